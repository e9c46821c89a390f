// What live actors cost in memory, and that the process gets it back once
// they terminated: a long-running server that once held a million actors
// must not keep their memory for good.

#include "troupe/actor_system.hpp"

#include "troupe/detail/allocator.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include "../benchmarks/common/memory.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;

namespace {

using bench::resident_bytes;

TEST(memory, terminated_actors_give_their_memory_back_to_the_kernel) {
  if (!detail::allocator_is_mimalloc())
    GTEST_SKIP() << "only mimalloc gives freed memory back without malloc_trim";
  if (resident_bytes() == 0)
    GTEST_SKIP() << "/proc/self/statm is not readable";
  constexpr int n = 50'000;
  actor_system_config cfg;
  cfg.scheduler.max_threads = 2;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto before = resident_bytes();
  std::vector<actor> alive;
  alive.reserve(n);
  for (int i = 0; i < n; ++i) {
    alive.push_back(sys.spawn([] { return behavior{[](int x) { return x; }}; }));
    self->send(alive.back(), i);
  }
  for (int i = 0; i < n; ++i)
    self->receive([](int) {});
  auto live = resident_bytes();
  ASSERT_GT(live, before + n * 256) << "50,000 live actors should take more than 12 MB";
  for (auto& x : alive)
    self->send_exit(x, exit_reason::user_shutdown);
  alive = {};
  sys.await_all_actors_done();
  // The allocator decommits as blocks come back; give the workers a moment.
  auto after = resident_bytes();
  for (int i = 0; i < 40 && after > before + (live - before) / 4; ++i) {
    std::this_thread::sleep_for(50ms);
    after = resident_bytes();
  }
  EXPECT_LT(after, before + (live - before) / 4)
    << "before " << before << ", with the actors " << live << ", after " << after;
}

} // namespace
