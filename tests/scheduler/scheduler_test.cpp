#include "troupe/scheduler/scheduler.hpp"

#include "troupe/detail/job.hpp"
#include "troupe/scheduler/scheduler_config.hpp"
#include "troupe/scheduler/work_sharing.hpp"
#include "troupe/scheduler/work_stealing.hpp"

#include "../support/policies.hpp"
#include "../support/unstartable_threads.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include <pthread.h>
#include <sched.h>

using namespace std::chrono_literals;
using troupe::execution_unit;
using troupe::resumable;
using troupe::scheduler;
using troupe::scheduler_config;
using troupe::worker_stats;
using troupe::test::eventually;
using troupe::test::patience;
using troupe::test::scaled;
using troupe::test::spin_until;

namespace {

constexpr int total_schedules = scaled(1'000'000, 100'000);

using result = resumable::resume_result;

/// A job that counts its references and resumes; what it does when resumed
/// is up to the test. It never deletes itself: tests own it and check that
/// its references balance to zero.
class test_job : public resumable {
public:
  using body_fn = std::function<result(execution_unit*)>;

  explicit test_job(body_fn body = {}) : body_(std::move(body)) {
  }

  result resume(execution_unit* ctx, size_t) override {
    resumes.fetch_add(1, std::memory_order_relaxed);
    return body_ ? body_(ctx) : result::done;
  }

  void ref_resumable() const noexcept override {
    refs.fetch_add(1, std::memory_order_relaxed);
  }

  void deref_resumable() const noexcept override {
    refs.fetch_sub(1, std::memory_order_acq_rel);
  }

  int resume_count() const noexcept {
    return resumes.load(std::memory_order_acquire);
  }

  int ref_count() const noexcept {
    return refs.load(std::memory_order_acquire);
  }

  void set_body(body_fn body) {
    body_ = std::move(body);
  }

private:
  body_fn body_;
  std::atomic<int> resumes{0};
  mutable std::atomic<int> refs{0};
};

/// Adds the reference the scheduler takes over, then schedules.
void schedule(scheduler& s, const test_job& job) {
  job.ref_resumable();
  s.schedule(const_cast<test_job*>(&job));
}

void exec_later(execution_unit* ctx, const test_job& job) {
  job.ref_resumable();
  ctx->exec_later(const_cast<test_job*>(&job));
}

worker_stats total(const std::vector<worker_stats>& xs) {
  worker_stats sum;
  for (auto& x : xs) {
    sum.jobs_run += x.jobs_run;
    sum.steal_attempts += x.steal_attempts;
    sum.steals += x.steals;
    sum.parks += x.parks;
    sum.wakeups += x.wakeups;
    sum.time_idle += x.time_idle;
  }
  return sum;
}

/// True once every worker has parked at least once more than in `before`.
bool all_parked_since(const scheduler& s, const std::vector<worker_stats>& before) {
  auto now = s.stats();
  for (size_t i = 0; i < now.size(); ++i)
    if (now[i].parks <= before[i].parks)
      return false;
  return true;
}

void wait_until_every_worker_parked(const scheduler& s) {
  std::this_thread::sleep_for(50ms);
  std::vector<worker_stats> zero(s.num_workers());
  ASSERT_TRUE(eventually([&] { return all_parked_since(s, zero); }))
    << "idle workers never parked";
}

/// Runs `fn` on a thread of its own; a call that doesn't return within
/// `patience` fails the test by ending the process instead of hanging it.
template <class Fn>
void returns(Fn fn, const char* what) {
  std::promise<void> finished;
  auto f = finished.get_future();
  std::thread t{[&] {
    fn();
    finished.set_value();
  }};
  if (f.wait_for(patience) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: %s did not return\n", what);
    std::abort();
  }
  t.join();
}

class scheduler_policy : public troupe::test::policy_test {
protected:
  std::unique_ptr<scheduler> make(size_t workers,
                                  size_t spin_attempts = scheduler_config{}.spin_attempts,
                                  bool pin_workers = false) {
    scheduler_config cfg;
    troupe::test::apply_policy(cfg, GetParam());
    cfg.max_threads = workers;
    cfg.spin_attempts = spin_attempts;
    cfg.pin_workers = pin_workers;
    auto result = scheduler::make(cfg);
    EXPECT_EQ(result->name(), troupe::test::policy_of(GetParam()));
    EXPECT_EQ(result->num_workers(), workers);
    return result;
  }
};

} // namespace

TEST_P(scheduler_policy, a_job_scheduled_from_outside_runs) {
  auto s = make(2);
  s->start();
  test_job job;
  schedule(*s, job);
  EXPECT_TRUE(eventually([&] { return job.resume_count() == 1; }));
  s->stop();
  EXPECT_EQ(job.resume_count(), 1);
  EXPECT_EQ(job.ref_count(), 0);
}

TEST_P(scheduler_policy, a_job_scheduled_while_every_worker_is_parked_runs) {
  auto s = make(3);
  s->start();
  wait_until_every_worker_parked(*s);
  test_job job;
  schedule(*s, job);
  EXPECT_TRUE(eventually([&] { return job.resume_count() == 1; }));
  s->stop();
  EXPECT_EQ(job.ref_count(), 0);
}

TEST_P(scheduler_policy, jobs_scheduled_just_as_workers_go_to_sleep_are_never_lost) {
  // One job at a time with short, random gaps: the enqueue keeps landing
  // while workers decide to park, which is where a lost wake-up would hide.
  // With no spinning at all, a worker parks right after it runs dry.
  for (size_t spin : {size_t{0}, scheduler_config{}.spin_attempts}) {
    auto s = make(2, spin);
    s->start();
    std::minstd_rand rng{7};
    test_job job;
    for (int i = 1; i <= 2000; ++i) {
      schedule(*s, job);
      ASSERT_TRUE(spin_until([&] { return job.resume_count() == i; }))
        << "job " << i << " was lost (spin_attempts = " << spin << ")";
      auto gap = std::chrono::nanoseconds(rng() % 20'000);
      auto until = std::chrono::steady_clock::now() + gap;
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    s->stop();
    EXPECT_EQ(job.ref_count(), 0);
  }
}

TEST_P(scheduler_policy, an_idle_system_makes_no_wake_ups_over_a_second) {
  auto s = make(2);
  s->start();
  wait_until_every_worker_parked(*s);
  auto before = s->stats();
  std::this_thread::sleep_for(1s);
  auto after = s->stats();
  scheduler_config cfg;
  troupe::test::apply_policy(cfg, GetParam());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_GE(after[i].time_idle - before[i].time_idle, 900ms) << "worker " << i;
    auto wakeups = after[i].wakeups - before[i].wakeups;
    if (troupe::test::sleeps_until_woken(GetParam())) {
      EXPECT_EQ(wakeups, 0u) << "worker " << i << " woke up";
      EXPECT_EQ(after[i].parks, before[i].parks) << "worker " << i << " parked again";
    } else {
      // Timed modes wake on their own: after each sleep of the first tiers
      // (which may not be over yet), then once per relaxed sleep or wait
      // timeout at most.
      auto period = cfg.idle_mode == troupe::idle_mode::event ? cfg.wait_timeout
                                                         : cfg.relaxed.sleep_duration;
      auto most = cfg.aggressive.poll_attempts + cfg.moderate.poll_attempts + 1s / period + 1;
      EXPECT_GT(wakeups, 0u) << "worker " << i;
      EXPECT_LE(wakeups, static_cast<uint64_t>(most)) << "worker " << i;
    }
  }
  s->stop();
}

TEST_P(scheduler_policy, one_job_for_many_parked_workers_wakes_exactly_one) {
  if (!troupe::test::sleeps_until_woken(GetParam()))
    GTEST_SKIP() << "idle workers of this mode also wake on a timer";
  auto s = make(4);
  s->start();
  wait_until_every_worker_parked(*s);
  auto before = total(s->stats());
  ASSERT_EQ(before.wakeups, 0u);
  test_job job;
  schedule(*s, job);
  ASSERT_TRUE(eventually([&] { return job.resume_count() == 1; }));
  // The woken worker finds nothing more and parks again.
  ASSERT_TRUE(eventually([&] { return total(s->stats()).parks == before.parks + 1; }));
  std::this_thread::sleep_for(20ms); // Room for a wrong second wake-up.
  EXPECT_EQ(total(s->stats()).wakeups, 1u);
  EXPECT_EQ(total(s->stats()).parks, before.parks + 1);
  s->stop();
  EXPECT_EQ(job.ref_count(), 0);
}

TEST_P(scheduler_policy, the_time_a_worker_runs_a_job_is_not_idle_time) {
  auto s = make(1);
  s->start();
  test_job job{[](execution_unit*) {
    auto until = std::chrono::steady_clock::now() + 200ms;
    while (std::chrono::steady_clock::now() < until) {
    }
    return result::done;
  }};
  wait_until_every_worker_parked(*s);
  auto t0 = std::chrono::steady_clock::now();
  auto idle0 = s->stats()[0].time_idle;
  schedule(*s, job);
  ASSERT_TRUE(eventually([&] { return job.ref_count() == 0; })); // Done.
  std::this_thread::sleep_for(100ms);
  auto idle1 = s->stats()[0].time_idle;
  auto t1 = std::chrono::steady_clock::now();
  // Idle before the job and after it, an idle period still going on
  // included, but never during it.
  EXPECT_LE(idle1 - idle0, t1 - t0 - 200ms + 5ms);
  EXPECT_GE(idle1 - idle0, 90ms);
  s->stop();
  EXPECT_EQ(job.ref_count(), 0);
}

TEST_P(scheduler_policy, pinned_workers_run_on_one_cpu_each) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  auto s = make(2, scheduler_config{}.spin_attempts, true);
  s->start();
  std::atomic<int> cpus_allowed{-1};
  test_job job{[&](execution_unit*) {
    cpu_set_t mine;
    CPU_ZERO(&mine);
    if (pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine) == 0)
      cpus_allowed = CPU_COUNT(&mine);
    return result::done;
  }};
  schedule(*s, job);
  ASSERT_TRUE(eventually([&] { return job.ref_count() == 0; }));
  s->stop();
  EXPECT_EQ(cpus_allowed.load(), 1) << "of " << CPU_COUNT(&allowed) << " allowed";
}

TEST_P(scheduler_policy, a_million_schedules_from_several_threads_run_each_job_once_per_schedule) {
  constexpr int producers = 4;
  constexpr int jobs_per_producer = 16;
  constexpr int schedules_per_producer = total_schedules / producers;
  auto s = make(2);
  s->start();
  std::vector<std::unique_ptr<test_job>> jobs;
  for (int i = 0; i < producers * jobs_per_producer; ++i)
    jobs.push_back(std::make_unique<test_job>());
  std::vector<std::vector<int>> scheduled(producers, std::vector<int>(jobs_per_producer));
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      std::minstd_rand rng(static_cast<unsigned>(p + 1));
      for (int i = 0; i < schedules_per_producer; ++i) {
        auto k = static_cast<int>(rng() % jobs_per_producer);
        ++scheduled[p][k];
        schedule(*s, *jobs[p * jobs_per_producer + k]);
        // Now and then a short pause, so that workers run dry and park.
        if (rng() % 4096 == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(rng() % 200));
        else if (rng() % 512 == 0)
          std::this_thread::yield();
      }
    });
  for (auto& t : threads)
    t.join();
  s->stop();
  long long runs = 0;
  for (int p = 0; p < producers; ++p)
    for (int k = 0; k < jobs_per_producer; ++k) {
      auto& job = *jobs[p * jobs_per_producer + k];
      EXPECT_EQ(job.resume_count(), scheduled[p][k]);
      EXPECT_EQ(job.ref_count(), 0);
      runs += job.resume_count();
    }
  EXPECT_EQ(runs, producers * schedules_per_producer);
  EXPECT_EQ(total(s->stats()).jobs_run, static_cast<uint64_t>(runs));
}

TEST_P(scheduler_policy, resume_later_reruns_the_job_until_it_returns_done) {
  auto s = make(2);
  s->start();
  test_job job;
  job.set_body([&](execution_unit*) {
    return job.resume_count() < 100 ? result::resume_later : result::done;
  });
  schedule(*s, job);
  EXPECT_TRUE(eventually([&] { return job.ref_count() == 0; }));
  s->stop();
  EXPECT_EQ(job.resume_count(), 100);
  EXPECT_EQ(job.ref_count(), 0);
}

TEST_P(scheduler_policy, a_job_that_resumes_later_lets_other_jobs_run) {
  // One worker: a job that always wants to run again must not starve another.
  auto s = make(1);
  s->start();
  std::atomic<bool> other_ran{false};
  test_job greedy;
  greedy.set_body([&](execution_unit*) {
    return other_ran.load() ? result::done : result::resume_later;
  });
  test_job other{[&](execution_unit*) {
    other_ran = true;
    return result::done;
  }};
  schedule(*s, greedy);
  schedule(*s, other);
  EXPECT_TRUE(eventually([&] { return greedy.ref_count() == 0; }));
  s->stop();
  EXPECT_TRUE(other_ran.load());
  EXPECT_EQ(greedy.ref_count(), 0);
  EXPECT_EQ(other.ref_count(), 0);
}

TEST_P(scheduler_policy, exec_later_from_inside_a_job_runs) {
  auto s = make(2);
  s->start();
  test_job child;
  test_job parent{[&](execution_unit* ctx) {
    EXPECT_NE(ctx, nullptr);
    exec_later(ctx, child);
    return result::done;
  }};
  schedule(*s, parent);
  EXPECT_TRUE(eventually([&] { return child.resume_count() == 1; }));
  s->stop();
  EXPECT_EQ(parent.ref_count(), 0);
  EXPECT_EQ(child.ref_count(), 0);
}

TEST_P(scheduler_policy, schedule_from_inside_a_job_runs) {
  auto s = make(2);
  s->start();
  test_job child;
  test_job parent{[&](execution_unit*) {
    schedule(*s, child);
    return result::done;
  }};
  schedule(*s, parent);
  EXPECT_TRUE(eventually([&] { return child.resume_count() == 1; }));
  s->stop();
  EXPECT_EQ(child.ref_count(), 0);
}

TEST_P(scheduler_policy, a_burst_of_long_jobs_spreads_over_all_workers) {
  auto s = make(2);
  s->start();
  wait_until_every_worker_parked(*s);
  // Each job blocks until both have started: that can only happen if they
  // run on different workers at the same time.
  std::atomic<int> started{0};
  std::atomic<int> saw_both{0};
  std::mutex ids_mtx;
  std::set<std::thread::id> ids;
  auto body = [&](execution_unit*) {
    {
      std::lock_guard guard{ids_mtx};
      ids.insert(std::this_thread::get_id());
    }
    started.fetch_add(1);
    if (spin_until([&] { return started.load() == 2; }))
      saw_both.fetch_add(1);
    return result::done;
  };
  test_job a{body};
  test_job b{body};
  schedule(*s, a);
  schedule(*s, b);
  EXPECT_TRUE(eventually([&] { return a.ref_count() + b.ref_count() == 0; }));
  s->stop();
  EXPECT_EQ(saw_both.load(), 2) << "the two jobs never ran at the same time";
  EXPECT_EQ(ids.size(), 2u);
}

TEST_P(scheduler_policy, work_a_busy_worker_schedules_is_taken_by_an_idle_one) {
  // With work stealing the first job a worker schedules waits in its `next`
  // slot for the scheduling job to end; the second pushes it to the deque,
  // where the idle worker takes it. So the parent schedules two children.
  auto s = make(2);
  s->start();
  wait_until_every_worker_parked(*s);
  std::atomic<int> children_started{0};
  std::atomic<bool> child_ran_meanwhile{false};
  auto child_fn = [&](execution_unit*) {
    children_started.fetch_add(1);
    return result::done;
  };
  test_job first_child{child_fn};
  test_job second_child{child_fn};
  // The parent keeps its worker busy until a child has started elsewhere.
  test_job parent{[&](execution_unit* ctx) {
    exec_later(ctx, first_child);
    exec_later(ctx, second_child);
    child_ran_meanwhile = spin_until([&] { return children_started.load() > 0; });
    return result::done;
  }};
  schedule(*s, parent);
  EXPECT_TRUE(eventually([&] {
    return parent.ref_count() + first_child.ref_count() + second_child.ref_count() == 0;
  }));
  s->stop();
  EXPECT_TRUE(child_ran_meanwhile.load());
  EXPECT_EQ(children_started.load(), 2);
}

TEST_P(scheduler_policy, shared_private_work_is_taken_by_an_idle_worker) {
  // One child only: with work stealing it waits in the parent's `next`
  // slot, out of thieves' reach, until share_private_work() (what a backed
  // up mailbox calls) hands it over.
  auto s = make(2);
  s->start();
  wait_until_every_worker_parked(*s);
  std::atomic<bool> child_started{false};
  std::atomic<bool> child_ran_meanwhile{false};
  test_job child{[&](execution_unit*) {
    child_started = true;
    return result::done;
  }};
  test_job parent{[&](execution_unit* ctx) {
    exec_later(ctx, child);
    ctx->share_private_work();
    child_ran_meanwhile = spin_until([&] { return child_started.load(); });
    return result::done;
  }};
  schedule(*s, parent);
  EXPECT_TRUE(eventually([&] { return parent.ref_count() + child.ref_count() == 0; }));
  s->stop();
  EXPECT_TRUE(child_ran_meanwhile.load());
}

TEST_P(scheduler_policy, sharing_without_private_work_is_harmless) {
  auto s = make(2);
  s->start();
  std::atomic<int> runs{0};
  test_job job{[&](execution_unit* ctx) {
    ctx->share_private_work();
    ctx->share_private_work();
    runs.fetch_add(1);
    return result::done;
  }};
  schedule(*s, job);
  EXPECT_TRUE(eventually([&] { return job.ref_count() == 0; }));
  s->stop();
  EXPECT_EQ(runs.load(), 1);
}

namespace {

/// A node of a binary tree of jobs: each schedules its two children from
/// inside the scheduler, one with exec_later and one with schedule(), and
/// deletes itself when its last reference goes.
class tree_job : public troupe::detail::job {
public:
  struct counts {
    std::atomic<int> created{0};
    std::atomic<int> resumed{0};
    std::atomic<int> destroyed{0};
  };

  // Made with the reference the scheduler takes over.
  tree_job(scheduler& s, counts& c, int depth)
    : job(1), sched_(s), counts_(c), depth_(depth) {
    counts_.created.fetch_add(1, std::memory_order_relaxed);
  }

  ~tree_job() override {
    counts_.destroyed.fetch_add(1, std::memory_order_relaxed);
  }

protected:
  void run(execution_unit* ctx) override {
    counts_.resumed.fetch_add(1, std::memory_order_relaxed);
    if (depth_ > 0) {
      ctx->exec_later(new tree_job(sched_, counts_, depth_ - 1));
      sched_.schedule(new tree_job(sched_, counts_, depth_ - 1));
    }
  }

private:
  scheduler& sched_;
  counts& counts_;
  int depth_;
};

} // namespace

TEST_P(scheduler_policy, jobs_that_fan_out_from_inside_workers_all_run_once) {
  constexpr int depth = 14; // 2^15 - 1 jobs.
  auto s = make(3);
  s->start();
  tree_job::counts counts;
  s->schedule(new tree_job(*s, counts, depth));
  EXPECT_TRUE(eventually([&] { return counts.destroyed.load() == (2 << depth) - 1; }));
  s->stop();
  EXPECT_EQ(counts.created.load(), (2 << depth) - 1);
  EXPECT_EQ(counts.resumed.load(), counts.created.load());
  EXPECT_EQ(counts.destroyed.load(), counts.created.load());
}

TEST_P(scheduler_policy, stop_with_parked_workers_returns) {
  auto s = make(3);
  s->start();
  wait_until_every_worker_parked(*s);
  returns([&] { s->stop(); }, "stop()");
}

TEST_P(scheduler_policy, stop_waits_for_a_running_job_with_the_idle_workers_parked) {
  auto s = make(2);
  s->start();
  wait_until_every_worker_parked(*s);
  std::atomic<bool> release{false};
  test_job job{[&](execution_unit*) {
    spin_until([&] { return release.load(); });
    return result::done;
  }};
  schedule(*s, job);
  ASSERT_TRUE(eventually([&] { return job.resume_count() == 1; }));
  auto parks = total(s->stats()).parks;
  std::thread stopper{[&] { s->stop(); }};
  // stop() wakes the idle worker; seeing a job still running, it parks again
  // instead of spinning until the job ends.
  EXPECT_TRUE(eventually([&] { return total(s->stats()).parks > parks; }));
  EXPECT_EQ(job.ref_count(), 1);
  release = true;
  stopper.join();
  EXPECT_EQ(job.ref_count(), 0);
}

TEST_P(scheduler_policy, stop_runs_the_jobs_still_queued) {
  auto s = make(2);
  std::vector<std::unique_ptr<test_job>> jobs;
  for (int i = 0; i < 1000; ++i)
    jobs.push_back(std::make_unique<test_job>());
  for (auto& job : jobs)
    schedule(*s, *job); // Queued before the workers exist.
  s->start();
  s->stop();
  for (auto& job : jobs) {
    EXPECT_EQ(job->resume_count(), 1);
    EXPECT_EQ(job->ref_count(), 0);
  }
}

TEST_P(scheduler_policy, stop_runs_the_work_that_running_jobs_keep_scheduling) {
  constexpr int chain_length = 2000;
  auto s = make(2);
  s->start();
  // A chain: each job schedules the next from inside the scheduler.
  std::vector<std::unique_ptr<test_job>> chain;
  for (int i = 0; i < chain_length; ++i)
    chain.push_back(std::make_unique<test_job>());
  for (int i = 0; i + 1 < chain_length; ++i)
    chain[i]->set_body([&, i](execution_unit* ctx) {
      exec_later(ctx, *chain[i + 1]);
      return result::done;
    });
  // And a job that wants to run again and again.
  test_job stubborn;
  stubborn.set_body([&](execution_unit*) {
    return stubborn.resume_count() < 500 ? result::resume_later : result::done;
  });
  schedule(*s, *chain[0]);
  schedule(*s, stubborn);
  s->stop();
  for (auto& job : chain) {
    EXPECT_EQ(job->resume_count(), 1);
    EXPECT_EQ(job->ref_count(), 0);
  }
  EXPECT_EQ(stubborn.resume_count(), 500);
  EXPECT_EQ(stubborn.ref_count(), 0);
}

TEST_P(scheduler_policy, a_job_scheduled_after_stop_is_dropped) {
  auto s = make(2);
  s->start();
  s->stop();
  test_job job;
  schedule(*s, job);
  EXPECT_EQ(job.resume_count(), 0);
  EXPECT_EQ(job.ref_count(), 0);
}

TEST_P(scheduler_policy, a_worker_that_cannot_start_is_a_system_error_naming_it) {
  auto s = make(2);
  {
    troupe::test::unstartable_threads refuse;
    if (!refuse.active())
      GTEST_SKIP() << "threads still start under this build";
    try {
      s->start();
      ADD_FAILURE() << "start() returned";
    } catch (const std::system_error& ex) {
      EXPECT_EQ(ex.code(), std::errc::resource_unavailable_try_again);
      auto want = "troupe: " + troupe::test::policy_of(GetParam())
                  + ": cannot start worker thread 1 of 2";
      EXPECT_TRUE(std::string_view{ex.what()}.starts_with(want)) << ex.what();
    }
  }
  // The failed start() stopped the scheduler: a job is dropped, not queued
  // for workers that will never come.
  test_job job;
  schedule(*s, job);
  EXPECT_EQ(job.ref_count(), 0);
  returns([&] { s.reset(); }, "destroying the scheduler");
}

// Every policy shares one worker-pool life cycle: a failed start() leaves
// any of them stopped for good, not half started.
TEST_P(scheduler_policy, after_a_failed_start_the_scheduler_stays_stopped) {
  auto s = make(2);
  {
    troupe::test::unstartable_threads refuse;
    if (!refuse.active())
      GTEST_SKIP() << "threads still start under this build";
    EXPECT_THROW(s->start(), std::system_error);
  }
  returns([&] { s->start(); }, "starting again");
  test_job job;
  schedule(*s, job);
  EXPECT_EQ(job.resume_count(), 0);
  EXPECT_EQ(job.ref_count(), 0);
  returns([&] { s->stop(); }, "stopping");
  auto stats = s->stats();
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(total(stats).jobs_run, 0u);
}

TEST_P(scheduler_policy, stop_twice_and_destruction_after_stop_are_harmless) {
  auto s = make(2);
  s->start();
  s->stop();
  s->stop();
  s.reset();
  SUCCEED();
}

TEST_P(scheduler_policy, a_scheduler_destroyed_while_running_stops_first) {
  test_job job;
  {
    auto s = make(2);
    s->start();
    schedule(*s, job);
  }
  EXPECT_EQ(job.resume_count(), 1);
  EXPECT_EQ(job.ref_count(), 0);
}

TEST_P(scheduler_policy, stats_count_every_job_run_on_the_worker_that_ran_it) {
  auto s = make(2);
  s->start();
  std::vector<std::unique_ptr<test_job>> jobs;
  for (int i = 0; i < 500; ++i) {
    jobs.push_back(std::make_unique<test_job>());
    schedule(*s, *jobs.back());
  }
  s->stop();
  auto stats = s->stats();
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(total(stats).jobs_run, 500u);
  EXPECT_LE(total(stats).steals, total(stats).steal_attempts);
}

TROUPE_TEST_EVERY_POLICY(scheduler_policy);

TEST(scheduler_make, an_unknown_policy_name_throws_invalid_argument_naming_it) {
  scheduler_config cfg;
  cfg.policy = "work-juggling";
  try {
    scheduler::make(cfg);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string{e.what()}.find("work-juggling"), std::string::npos) << e.what();
  }
}

TEST(scheduler_make, the_default_policy_is_work_stealing) {
  scheduler_config cfg;
  cfg.max_threads = 1;
  auto s = scheduler::make(cfg);
  EXPECT_NE(dynamic_cast<troupe::work_stealing*>(s.get()), nullptr);
  EXPECT_STREQ(s->name(), "work-stealing");
}

TEST(scheduler_config, zero_max_threads_means_one_worker_per_hardware_thread) {
  scheduler_config cfg;
  cfg.max_threads = 0;
  auto expected = std::max(std::thread::hardware_concurrency(), 1u);
  EXPECT_EQ(cfg.num_workers(), expected);
  cfg.max_threads = 3;
  EXPECT_EQ(cfg.num_workers(), 3u);
}
