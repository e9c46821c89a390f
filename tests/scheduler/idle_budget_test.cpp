// The adaptive idle mode with an idle budget (troupe.scheduler.idle-budget):
// workers that anticipate periodic work, or keep warm through long random
// gaps, lose no wake-up, spend no more than the budget, and stop waking once
// the traffic stops. Timing is what the mechanism is about, but these tests
// assert only what holds however late the threads run: they count jobs and
// read the per-worker counters.

#include "troupe/scheduler/scheduler.hpp"

#include "troupe/defaults.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include "../support/sanitizers.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <random>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using troupe::execution_unit;
using troupe::resumable;
using troupe::scheduler;
using troupe::scheduler_config;
using troupe::worker_stats;

namespace {

/// Counts its runs; owned by the test, so its references only balance.
class counting_job : public resumable {
public:
  resume_result resume(execution_unit*, size_t) override {
    runs.fetch_add(1, std::memory_order_relaxed);
    return resume_result::done;
  }

  void ref_resumable() const noexcept override {
    refs.fetch_add(1, std::memory_order_relaxed);
  }

  void deref_resumable() const noexcept override {
    refs.fetch_sub(1, std::memory_order_relaxed);
  }

  std::atomic<int> runs{0};
  mutable std::atomic<int> refs{0};
};

std::unique_ptr<scheduler> make(double budget) {
  scheduler_config cfg;
  cfg.policy = "work-stealing";
  cfg.idle_mode = troupe::idle_mode::adaptive;
  cfg.max_threads = 2;
  cfg.idle_budget = budget;
  return scheduler::make(cfg);
}

/// Sends `n` jobs from this thread on absolute deadlines `gap()` apart,
/// each after the previous one ran: outside work, as the workers learn it.
/// False if a job did not run within 10 s.
template <class Gap>
bool send_with_gaps(scheduler& s, counting_job& job, int n, Gap gap) {
  auto next = std::chrono::steady_clock::now();
  for (int i = 1; i <= n; ++i) {
    next += gap();
    std::this_thread::sleep_until(next);
    job.ref_resumable();
    s.schedule(&job);
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (job.runs.load() < i) {
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      std::this_thread::yield();
    }
  }
  return true;
}

/// Periodic outside work: one job every `period`.
bool send_periodically(scheduler& s, counting_job& job, int n, std::chrono::microseconds period) {
  return send_with_gaps(s, job, n, [period] { return period; });
}

struct totals {
  uint64_t parks = 0;
  uint64_t wakeups = 0;
  uint64_t anticipations = 0;
  uint64_t warm_wakeups = 0;
  std::chrono::nanoseconds anticipation_time{0};
};

totals sum(const std::vector<worker_stats>& xs) {
  totals result;
  for (const auto& x : xs) {
    result.parks += x.parks;
    result.wakeups += x.wakeups;
    result.anticipations += x.anticipations;
    result.warm_wakeups += x.warm_wakeups;
    result.anticipation_time += x.anticipation_time;
  }
  return result;
}

/// What the workers of a scheduler with `budget` spent on `n` jobs sent
/// `gap()` apart, and over how long; none if a job was lost.
struct spending {
  double budget;
  totals t;
  std::chrono::nanoseconds elapsed;
};

template <class Gap>
std::optional<spending> spend(double budget, int n, Gap gap) {
  auto s = make(budget);
  auto start = std::chrono::steady_clock::now();
  s->start();
  counting_job job;
  bool ran = send_with_gaps(*s, job, n, gap);
  auto t = sum(s->stats());
  auto elapsed = std::chrono::steady_clock::now() - start;
  s->stop();
  if (!ran)
    return std::nullopt;
  return spending{budget, t, elapsed};
}

/// The budget's share of the time, plus 1 ms: one window or slice may
/// overrun its tokens by what its timed wake-up cost above the estimate and
/// the last spin step.
testing::AssertionResult within_budget(const spending& x) {
  auto allowed = std::chrono::duration_cast<std::chrono::nanoseconds>(x.elapsed * x.budget);
  if (x.t.anticipation_time <= allowed + 1ms)
    return testing::AssertionSuccess();
  return testing::AssertionFailure()
         << x.t.anticipation_time.count() << " ns spent, " << allowed.count()
         << " ns allowed, in " << x.t.anticipations << " windows and " << x.t.warm_wakeups
         << " warm wake-ups over " << std::chrono::duration<double>(x.elapsed).count() << " s";
}

} // namespace

TEST(idle_budget, periodic_work_is_never_lost_while_workers_anticipate_it) {
  // A budget of a whole core: the newest sleeper anticipates every gap of
  // this rhythm, parking until the window and spinning through it; each
  // job must still find a worker.
  auto s = make(1.0);
  s->start();
  counting_job job;
  ASSERT_TRUE(send_periodically(*s, job, troupe::test::scaled(300, 100), 3ms))
    << "job " << job.runs.load() + 1 << " was lost";
  auto t = sum(s->stats());
  s->stop();
  EXPECT_EQ(job.refs.load(), 0);
  // With gaps this regular most are anticipated; a loaded machine may
  // stretch a few, never most.
  EXPECT_GT(t.anticipations, 0u);
  RecordProperty("anticipations", static_cast<int>(t.anticipations));
}

TEST(idle_budget, a_budget_of_zero_never_anticipates) {
  auto s = make(0.0);
  s->start();
  counting_job job;
  ASSERT_TRUE(send_periodically(*s, job, 50, 3ms));
  auto t = sum(s->stats());
  s->stop();
  EXPECT_EQ(t.anticipations, 0u);
  EXPECT_EQ(t.anticipation_time, 0ns);
}

TEST(idle_budget, the_time_spent_anticipating_stays_within_the_budget) {
  // 0.5% of a core earns 100 us per 20 ms gap: less than a window wants, so
  // the bucket is what limits the spending here.
  auto x = spend(0.005, troupe::test::scaled(60, 30), [] { return 20ms; });
  ASSERT_TRUE(x.has_value());
  EXPECT_TRUE(within_budget(*x));
}

TEST(idle_budget, workers_keep_warm_through_long_random_gaps_within_the_budget) {
  // Random gaps of 15 to 45 ms, longer than a warm slice: a worker parks in
  // slices, each a timed wake-up that the budget pays for, and no job is
  // lost to a slice's end.
  std::minstd_rand rng{11};
  auto x = spend(0.02, troupe::test::scaled(40, 20),
                 [&] { return std::chrono::microseconds{15'000 + rng() % 30'000}; });
  ASSERT_TRUE(x.has_value());
  EXPECT_GT(x->t.warm_wakeups, 0u);
  EXPECT_LE(x->t.warm_wakeups, x->t.wakeups);
  EXPECT_TRUE(within_budget(*x));
}

TEST(idle_budget, workers_stop_waking_once_the_traffic_stops) {
  // After the last job a worker may open one more window, at most
  // max_anticipation later; from then on the scheduler makes no wake-ups.
  auto s = make(1.0);
  s->start();
  counting_job job;
  ASSERT_TRUE(send_periodically(*s, job, 100, 3ms));
  std::this_thread::sleep_for(troupe::defaults::scheduler::max_anticipation + 200ms);
  auto before = s->stats();
  std::this_thread::sleep_for(500ms);
  auto after = s->stats();
  s->stop();
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].wakeups, before[i].wakeups) << "worker " << i;
    EXPECT_EQ(after[i].parks, before[i].parks) << "worker " << i;
    EXPECT_EQ(after[i].anticipations, before[i].anticipations) << "worker " << i;
    EXPECT_EQ(after[i].warm_wakeups, before[i].warm_wakeups) << "worker " << i;
  }
}
