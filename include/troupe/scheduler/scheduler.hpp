#pragma once

// The scheduler interface. Policies (work_sharing, work_stealing and its
// locality variant) implement it; the actor system owns one instance.

#include "troupe/resumable.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace troupe {

struct scheduler_config;

/// Counters of one worker. Workers write their own counters without locks;
/// readers see a recent value.
struct worker_stats {
  uint64_t jobs_run = 0;
  uint64_t steal_attempts = 0;
  uint64_t steals = 0;
  /// Times the worker blocked in the kernel: parked, waited on its event or
  /// slept between polls.
  uint64_t parks = 0;
  /// Times it came back from such a block, woken or timed out.
  uint64_t wakeups = 0;
  /// Time spent without a job: searching, spinning, polling and blocked.
  std::chrono::nanoseconds time_idle{0};
  /// Adaptive mode: windows the worker spun through where it expected work
  /// (troupe.scheduler.idle-budget).
  uint64_t anticipations = 0;
  /// Adaptive mode: what those cost: the time spun and the CPU time of the
  /// timed wake-ups that opened them or kept the worker warm (below). The
  /// idle budget bounds it.
  std::chrono::nanoseconds anticipation_time{0};
  /// Adaptive mode: timed wake-ups (counted in `wakeups` too) that kept the
  /// worker's CPU from sinking into a deep idle while it expected work
  /// after long gaps (troupe/detail/anticipation.hpp, "keeping warm").
  uint64_t warm_wakeups = 0;
  /// Locality policy: the steals counted in `steals` by victim level,
  /// nearest first (the levels of troupe.scheduler.topology around this
  /// worker: its core, shared caches, NUMA node, ... the machine). Empty
  /// for the other policies.
  std::vector<uint64_t> steals_by_level;
};

class scheduler {
public:
  virtual ~scheduler() = default;

  /// Starts the worker threads. If one fails to start, stops and joins
  /// those already started, leaves the scheduler stopped (as after stop())
  /// and throws: std::system_error naming the worker for a thread the system
  /// refused, std::bad_alloc as it came.
  virtual void start() = 0;

  /// Runs every job still queued, then joins the workers. Jobs scheduled
  /// after stop() returned are dropped: their reference is released.
  virtual void stop() = 0;

  /// Schedules `job` from any thread. The caller has added a reference.
  virtual void schedule(resumable* job) = 0;

  virtual size_t num_workers() const noexcept = 0;

  /// The policy name as in the configuration: "work-sharing", "work-stealing",
  /// "locality".
  virtual const char* name() const noexcept = 0;

  virtual std::vector<worker_stats> stats() const = 0;

  /// Creates the policy named in `cfg`.
  static std::unique_ptr<scheduler> make(const scheduler_config& cfg);
};

/// The execution unit of a thread outside the scheduler's workers (a
/// detached actor's thread, a test's): what a job run there schedules goes
/// to the scheduler.
class outside_unit final : public execution_unit {
public:
  explicit outside_unit(scheduler& sched) noexcept : sched_(sched) {}

  void exec_later(resumable* job) override {
    sched_.schedule(job);
  }

private:
  scheduler& sched_;
};

} // namespace troupe
