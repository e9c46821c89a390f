// A pattern's handle is an ordinary actor: typed where the types are known,
// many concurrent requests each get their own answer, it can be linked,
// monitored and spawned detached, and a pattern without handles finishes
// its work and stops.

#include "troupe/patterns.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/scoped_actor.hpp"

#include "../support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;
using namespace troupe::patterns;

namespace {

class pattern_handle : public troupe::test::actor_fixture {
protected:
  /// Sends `n` requests at once from one client actor into `p` and returns
  /// how many came back right (the answer to i must be `expected(i)`).
  template <class Handle, class Expected>
  int32_t burst(const Handle& p, int32_t n, Expected expected) {
    sys.spawn([=, r = reporter](event_based_actor* client) {
      auto good = std::make_shared<int32_t>(0);
      auto left = std::make_shared<int32_t>(n);
      auto done = [=] {
        if (--*left == 0)
          client->send(r, *good);
      };
      for (int32_t i = 0; i < n; ++i)
        client->request(p, troupe::test::patience, i)
          .then(
            [=](int32_t y) {
              *good += y == expected(i);
              done();
            },
            [=](error&) { done(); });
      return behavior{};
    });
    return next<int32_t>();
  }
};

TEST_P(pattern_handle, is_typed_when_the_types_are_known) {
  auto p = spawn_pattern(sys, pipeline(seq([](int32_t x) { return x + 1; }),
                                       seq([](int32_t x) { return std::to_string(x); })));
  static_assert(std::is_same_v<decltype(p), typed_actor<result<std::string>(int32_t),
                                                        result<void>(close_atom)>>);
  auto q = spawn_pattern(sys, seq([] { return behavior{[](int32_t x) { return x; }}; }));
  static_assert(std::is_same_v<decltype(q), actor>);
  EXPECT_EQ(ask<std::string>(p, int32_t{1}), "2");
  EXPECT_EQ(ask<int32_t>(q, int32_t{1}), 1);
}

TEST_P(pattern_handle, ten_thousand_concurrent_requests_each_get_their_own_answer) {
  auto p = spawn_pattern(sys, pipeline(farm(seq([](int32_t x) { return x * 2; }), 3),
                                       seq([](int32_t x) { return x + 1; })));
  EXPECT_EQ(burst(p, 10'000, [](int32_t i) { return i * 2 + 1; }), 10'000);
}

TEST_P(pattern_handle, ten_thousand_concurrent_requests_into_an_ordered_farm) {
  auto p = spawn_pattern(sys, farm(seq([](int32_t x) { return x - 1; }), 4).ordered());
  EXPECT_EQ(burst(p, 10'000, [](int32_t i) { return i - 1; }), 10'000);
}

TEST_P(pattern_handle, can_be_spawned_detached) {
  auto p = spawn_pattern<detached>(sys, farm(seq([](int32_t x) { return x * 3; }), 2));
  EXPECT_EQ(ask<int32_t>(p, int32_t{5}), 15);
  EXPECT_EQ(burst(p, 1000, [](int32_t i) { return i * 3; }), 1000);
}

TEST_P(pattern_handle, a_monitor_learns_when_the_pattern_is_stopped) {
  auto p = spawn_pattern(sys, farm(seq([](int32_t x) { return x; }), 2));
  self->monitor(p);
  self->send_exit(p, make_error(exit_reason::user_shutdown));
  auto down = next<down_msg>();
  EXPECT_TRUE(down.source == troupe::patterns::detail::to_actor(p).address());
  EXPECT_EQ(down.reason, exit_reason::user_shutdown);
}

TEST_P(pattern_handle, a_linked_actor_dies_with_the_pattern) {
  auto p = spawn_pattern(sys, seq([](int32_t x) { return x; }));
  auto buddy = sys.spawn([](event_based_actor*) { return behavior{[](int32_t) {}}; });
  self->monitor(buddy);
  actor_cast_raw(buddy)->link_to(actor_cast_raw(troupe::patterns::detail::to_actor(p)));
  self->send_exit(p, make_error(exit_reason::user_shutdown));
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
}

TEST_P(pattern_handle, a_stopped_pattern_answers_requests_with_an_error) {
  auto p = spawn_pattern(sys, seq([](int32_t x) { return x; }));
  self->monitor(p);
  self->send_exit(p, make_error(exit_reason::kill));
  next<down_msg>();
  EXPECT_FALSE(ask<int32_t>(p, int32_t{1}));
}

TEST_P(pattern_handle, a_pattern_without_handles_finishes_its_items_then_stops) {
  std::atomic<int> done{0};
  scoped_actor sink{sys};
  {
    auto p = spawn_pattern(sys,
                           pipeline(seq([](int32_t x) {
                                      std::this_thread::sleep_for(100us);
                                      return x;
                                    }),
                                    farm(seq([&](int32_t x) {
                                           ++done;
                                           return x;
                                         }),
                                         2)),
                           sink);
    for (int32_t i = 0; i < 100; ++i)
      self->send(p, i);
  } // the last handle goes: what is inside still finishes
  int32_t received = 0;
  for (int32_t i = 0; i < 100; ++i) {
    bool got = false;
    sink->receive([&](int32_t) { ++received, got = true; },
                  after(troupe::test::patience) >> [] {});
    if (!got)
      break;
  }
  EXPECT_EQ(received, 100);
  EXPECT_EQ(done.load(), 100);
}

TEST_P(pattern_handle, stream_markers_pass_through_every_kind_of_stage) {
  scoped_actor sink{sys};
  auto p = spawn_pattern(sys,
                         pipeline(seq([](int32_t x) { return x; }),
                                  seq([] { return behavior{[](int32_t x) { return x; }}; }),
                                  farm(seq([](int32_t x) { return x; }), 2).ordered(),
                                  farm(seq([](int32_t x) { return x; }), 2, broadcast{}),
                                  seq([](std::vector<int32_t> xs) { return xs[0] + xs[1]; })),
                         sink);
  for (int32_t i = 0; i < 50; ++i)
    self->send(p, i);
  self->send(p, close_atom_v);
  int32_t sum = 0;
  int count = 0;
  bool ended = false;
  while (!ended) {
    bool got = false;
    sink->receive([&](int32_t x) { sum += x, ++count, got = true; },
                  [&](close_atom) { ended = got = true; },
                  after(troupe::test::patience) >> [] {});
    if (!got)
      break;
  }
  EXPECT_TRUE(ended);
  EXPECT_EQ(count, 50) << "the end of stream came before the last result";
  EXPECT_EQ(sum, 2 * (49 * 50 / 2));
}

TROUPE_TEST_EVERY_POLICY(pattern_handle);

} // namespace
