#include "troupe/detail/anticipation.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <random>

using troupe::detail::anticipation;

namespace {

constexpr int64_t ms = 1'000'000;
constexpr int64_t us = 1'000;

/// Feeds `n` gaps from `gap()` as a worker would see them: it parks (and
/// plans, but is woken before any window), is woken after the gap and runs a
/// job of 10 us; returns the time after the last.
template <class Gap>
int64_t feed(anticipation& a, int64_t t, int n, Gap gap) {
  for (int i = 0; i < n; ++i) {
    auto g = gap();
    a.plan(t, t + 50 * us);
    a.learn_gap(g);
    t += g + 10 * us;
  }
  return t;
}

/// Plans at the moment a worker idle since `t` parks, 50 us later.
std::optional<anticipation::window> plan_at(anticipation& a, int64_t t) {
  return a.plan(t, t + 50 * us);
}

} // namespace

TEST(anticipation, a_budget_of_zero_is_off) {
  EXPECT_FALSE(anticipation{0}.enabled());
  EXPECT_TRUE(anticipation{0.01}.enabled());
}

TEST(anticipation, periodic_gaps_get_a_window_around_the_period_no_wider_than_needed) {
  anticipation a{0.02};
  std::minstd_rand rng{1};
  auto jitter = [&] { return static_cast<int64_t>(rng() % (40 * us)); };
  auto t = feed(a, 1'000 * ms, 32, [&] { return 100 * ms + jitter(); });
  auto w = plan_at(a, t);
  ASSERT_TRUE(w.has_value());
  // Every gap (100 ms to 100.04 ms) lies inside, with the margin around.
  EXPECT_LE(w->begin, t + 100 * ms);
  EXPECT_GE(w->end, t + 100 * ms + 40 * us);
  EXPECT_GE(w->begin, t + 100 * ms - anticipation::margin_ns);
  EXPECT_LE(w->end - w->begin, 40 * us + 2 * anticipation::margin_ns);
}

TEST(anticipation, random_gaps_get_no_window) {
  // Poisson arrivals at 10 per second: no window the budget affords holds
  // most gaps, so the worker parks and spends nothing.
  anticipation a{0.05};
  std::mt19937_64 rng{7};
  std::exponential_distribution<double> exp{10.0};
  auto t = feed(a, 1'000 * ms, 32, [&] { return static_cast<int64_t>(exp(rng) * 1e9); });
  EXPECT_FALSE(plan_at(a, t).has_value());
}

TEST(anticipation, there_is_no_window_before_enough_gaps_were_seen) {
  anticipation a{0.02};
  auto t = feed(a, 1'000 * ms, static_cast<int>(anticipation::min_samples) - 1,
                [] { return 100 * ms; });
  EXPECT_FALSE(plan_at(a, t).has_value());
  t = feed(a, t, 1, [] { return 100 * ms; });
  EXPECT_TRUE(plan_at(a, t).has_value());
}

TEST(anticipation, short_and_long_gaps_get_no_window) {
  // Below min_gap_ns the CPU wakes fast anyway; past max_anticipation the
  // traffic has stopped as far as the worker is concerned.
  for (auto gap : {anticipation::min_gap_ns / 2, 2'000 * ms}) {
    anticipation a{0.5};
    auto t = feed(a, 10'000 * ms, 32, [gap] { return gap; });
    EXPECT_FALSE(plan_at(a, t).has_value()) << "gaps of " << gap << " ns";
  }
}

TEST(anticipation, a_window_never_opens_before_the_present) {
  anticipation a{0.02};
  auto t = feed(a, 1'000 * ms, 32, [] { return 5 * ms; });
  // The worker parks 4.95 ms into its idle time: the window starts now.
  auto w = a.plan(t, t + 5 * ms - 50 * us);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->begin, t + 5 * ms - 50 * us);
  EXPECT_GT(w->end, t + 5 * ms);
  // Parked after the gaps it knows: nothing ahead to wait for.
  EXPECT_FALSE(a.plan(t, t + 6 * ms).has_value());
}

TEST(anticipation, the_window_fits_the_tokens_the_budget_earned) {
  // 0.001 of a core earns 100 us per 100 ms: less than the 200 us a window
  // would like, and the timed wake-up that opens it comes out of it too.
  anticipation a{0.001};
  auto t = feed(a, 1'000 * ms, 32, [] { return 100 * ms; });
  auto depth = std::chrono::nanoseconds{troupe::defaults::scheduler::max_anticipation};
  a.plan(t - 100 * ms, t - 100 * ms);
  // Empties the bucket 100 ms before: it holds at most the budget's share
  // of max_anticipation.
  a.charge(static_cast<int64_t>(0.001 * static_cast<double>(depth.count())));
  auto w = plan_at(a, t);
  ASSERT_TRUE(w.has_value());
  EXPECT_LE(w->end - w->begin, 100 * us + 50 * us); // 100.05 ms of earnings.
  // Spending them leaves nothing for the next gap.
  a.charge(w->end - w->begin + 20 * us);
  EXPECT_FALSE(a.plan(t, t + 50 * us).has_value());
}

TEST(anticipation, the_bucket_holds_at_most_the_budget_of_max_anticipation) {
  // After a long quiet time the worker may not spend more than the budget
  // of one max_anticipation at once.
  anticipation a{0.001};
  auto t = feed(a, 1'000 * ms, 32, [] { return 100 * ms; });
  auto hour_later = t + 3'600'000 * ms;
  ASSERT_TRUE(plan_at(a, hour_later).has_value());
  auto depth = std::chrono::nanoseconds{troupe::defaults::scheduler::max_anticipation};
  a.charge(static_cast<int64_t>(0.001 * static_cast<double>(depth.count())));
  EXPECT_FALSE(plan_at(a, hour_later).has_value());
}

TEST(anticipation, a_worker_keeps_warm_in_slices_after_long_random_gaps) {
  // Poisson arrivals at 10 per second get no window, but the worker parks
  // in slices so that the wake-up that ends the gap finds its CPU warm.
  anticipation a{0.02};
  std::mt19937_64 rng{7};
  std::exponential_distribution<double> exp{10.0};
  auto t = feed(a, 1'000 * ms, 32, [&] { return 3 * ms + static_cast<int64_t>(exp(rng) * 1e9); });
  ASSERT_FALSE(plan_at(a, t).has_value());
  auto until = a.warm_until(t, t + 50 * us);
  ASSERT_TRUE(until.has_value());
  EXPECT_EQ(*until, t + 50 * us + anticipation::warm_interval_ns);
}

TEST(anticipation, no_warm_slices_without_a_budget_or_a_history_of_long_gaps) {
  anticipation off{0};
  feed(off, 1'000 * ms, 32, [] { return 100 * ms; });
  EXPECT_FALSE(off.warm_until(10'000 * ms, 10'000 * ms).has_value());
  // Too few gaps seen yet, then enough.
  anticipation a{0.02};
  auto t = feed(a, 1'000 * ms, static_cast<int>(anticipation::min_samples) - 1,
                [] { return 100 * ms; });
  EXPECT_FALSE(a.warm_until(t, t).has_value());
  t = feed(a, t, 1, [] { return 100 * ms; });
  EXPECT_TRUE(a.warm_until(t, t).has_value());
  // Mostly short gaps: the CPU never idles long enough to go cold.
  anticipation busy{0.02};
  t = feed(busy, 1'000 * ms, 32, [] { return anticipation::min_gap_ns / 2; });
  EXPECT_FALSE(busy.warm_until(t, t).has_value());
}

TEST(anticipation, warm_slices_end_at_max_anticipation_after_the_last_job) {
  anticipation a{0.02};
  auto t = feed(a, 1'000 * ms, 32, [] { return 100 * ms; });
  auto horizon = std::chrono::nanoseconds{troupe::defaults::scheduler::max_anticipation}.count();
  auto late = t + horizon - anticipation::warm_interval_ns / 2;
  auto until = a.warm_until(t, late);
  ASSERT_TRUE(until.has_value());
  EXPECT_EQ(*until, t + horizon); // The last slice is cut short.
  EXPECT_FALSE(a.warm_until(t, t + horizon).has_value()); // Then none.
}

TEST(anticipation, warm_slices_stop_when_the_tokens_run_out) {
  anticipation a{0.001};
  auto t = feed(a, 1'000 * ms, 32, [] { return 100 * ms; });
  ASSERT_TRUE(a.warm_until(t, t).has_value());
  auto depth = std::chrono::nanoseconds{troupe::defaults::scheduler::max_anticipation};
  a.charge(static_cast<int64_t>(0.001 * static_cast<double>(depth.count())));
  EXPECT_FALSE(a.warm_until(t, t).has_value());
  // 0.001 of a core earns back a wake-up's 20 us in 20 ms.
  EXPECT_TRUE(a.warm_until(t, t + 25 * ms).has_value());
}

TEST(anticipation, a_window_pays_for_warm_slices_before_it_only_if_the_tokens_allow) {
  anticipation rich{0.02};
  auto t = feed(rich, 1'000 * ms, 32, [] { return 100 * ms; });
  auto w = plan_at(rich, t);
  ASSERT_TRUE(w.has_value());
  EXPECT_TRUE(w->warm);
  // 0.001 earns 100 us per gap: one timed wake-up and a short window, not
  // ten wake-ups on the way.
  anticipation poor{0.001};
  t = feed(poor, 1'000 * ms, 32, [] { return 100 * ms; });
  poor.plan(t - 100 * ms, t - 100 * ms);
  auto depth = std::chrono::nanoseconds{troupe::defaults::scheduler::max_anticipation};
  poor.charge(static_cast<int64_t>(0.001 * static_cast<double>(depth.count())));
  w = plan_at(poor, t);
  ASSERT_TRUE(w.has_value());
  EXPECT_FALSE(w->warm);
}
