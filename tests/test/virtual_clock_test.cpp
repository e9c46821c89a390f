// virtual_clock: time moves only when told; due actions run in deadline
// order on the caller's thread, each at its own deadline.

#include "troupe/test/virtual_clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

using namespace std::chrono_literals;
using troupe::test::virtual_clock;

namespace {

TEST(virtual_clock, time_stands_still_until_moved) {
  virtual_clock clock;
  auto t0 = clock.now();
  int runs = 0;
  clock.schedule(t0 + 1s, [&runs] { ++runs; });
  EXPECT_EQ(clock.now(), t0);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(clock.advance_time(999ms), 0u);
  EXPECT_EQ(clock.advance_time(1ms), 1u);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(clock.now(), t0 + 1s);
}

TEST(virtual_clock, due_actions_run_in_deadline_order_each_at_its_deadline) {
  virtual_clock clock;
  auto t0 = clock.now();
  std::vector<std::chrono::milliseconds> seen;
  auto record = [&] { seen.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - t0)); };
  clock.schedule(t0 + 3s, record);
  clock.schedule(t0 + 1s, record);
  clock.schedule(t0 + 2s, record);
  EXPECT_EQ(clock.advance_time(10s), 3u);
  EXPECT_EQ(seen, (std::vector<std::chrono::milliseconds>{1s, 2s, 3s}));
  EXPECT_EQ(clock.now(), t0 + 10s);
}

TEST(virtual_clock, an_action_may_schedule_another_that_is_due_as_well) {
  virtual_clock clock;
  auto t0 = clock.now();
  int runs = 0;
  clock.schedule(t0 + 1s, [&] {
    ++runs;
    clock.schedule(clock.now() + 1s, [&runs] { ++runs; });
  });
  EXPECT_EQ(clock.advance_time(5s), 2u);
  EXPECT_EQ(runs, 2);
}

TEST(virtual_clock, time_never_goes_back) {
  virtual_clock clock;
  auto t0 = clock.now();
  clock.advance_time(5s);
  EXPECT_EQ(clock.set_time(t0 + 1s), 0u);
  EXPECT_EQ(clock.now(), t0 + 5s);
}

TEST(virtual_clock, trigger_timeout_jumps_to_the_next_deadline) {
  virtual_clock clock;
  auto t0 = clock.now();
  int runs = 0;
  clock.schedule(t0 + 1h, [&runs] { ++runs; });
  clock.schedule(t0 + 2h, [&runs] { ++runs; });
  EXPECT_EQ(clock.next_timeout(), t0 + 1h);
  EXPECT_EQ(clock.last_timeout(), t0 + 2h);
  EXPECT_TRUE(clock.trigger_timeout());
  EXPECT_EQ(clock.now(), t0 + 1h);
  EXPECT_EQ(clock.trigger_all_timeouts(), 1u);
  EXPECT_EQ(clock.now(), t0 + 2h);
  EXPECT_FALSE(clock.trigger_timeout());
  EXPECT_EQ(clock.next_timeout(), std::nullopt);
  EXPECT_EQ(runs, 2);
}

TEST(virtual_clock, a_cancelled_action_never_runs) {
  virtual_clock clock;
  int runs = 0;
  auto id = clock.schedule(clock.now() + 1s, [&runs] { ++runs; });
  EXPECT_TRUE(clock.cancel(id));
  EXPECT_FALSE(clock.cancel(id));
  EXPECT_EQ(clock.pending(), 0u);
  EXPECT_EQ(clock.advance_time(2s), 0u);
  EXPECT_EQ(runs, 0);
}

TEST(virtual_clock, stop_drops_pending_actions_and_refuses_new_ones) {
  virtual_clock clock;
  int runs = 0;
  clock.schedule(clock.now() + 1s, [&runs] { ++runs; });
  EXPECT_EQ(clock.stop(), 1u);
  EXPECT_EQ(clock.schedule(clock.now(), [&runs] { ++runs; }), troupe::detail::invalid_timer_id);
  EXPECT_EQ(clock.trigger_all_timeouts(), 0u);
  EXPECT_EQ(runs, 0);
}

} // namespace
