#pragma once

// The counters behind scheduler::stats(). Each worker bumps its own counters
// (a single writer, so a relaxed load and store instead of a locked
// read-modify-write); stats() reads them relaxed from any thread and gets a
// recent value of each.

#include "troupe/scheduler/scheduler.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>

#ifdef __linux__
#  include <time.h>
#endif

namespace troupe::detail {

class single_writer_counter {
public:
  /// The owning worker only.
  void bump() noexcept {
    add(1);
  }

  /// The owning worker only.
  void add(uint64_t n) noexcept {
    value_.store(value_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  /// Any thread.
  uint64_t get() const noexcept {
    return value_.load(std::memory_order_relaxed);
  }

private:
  std::atomic<uint64_t> value_{0};
};

/// Written by one worker; on a cache line of their own so that bumping them
/// doesn't disturb fields other threads read.
struct alignas(64) worker_counters {
  single_writer_counter jobs_run;
  single_writer_counter steal_attempts;
  single_writer_counter steals;
  single_writer_counter parks;
  single_writer_counter wakeups;
  single_writer_counter idle_ns;
  single_writer_counter anticipations;
  single_writer_counter anticipation_ns;
  single_writer_counter warm_wakeups;
  /// steady_clock nanoseconds when the current idle period began; 0 while
  /// the worker runs a job. Lets stats() count a period still going on.
  std::atomic<int64_t> idle_since{0};

  /// The owner, when it runs out of jobs.
  void begin_idle() noexcept {
    idle_since.store(now_ns(), std::memory_order_relaxed);
  }

  /// The owner, when it has a job again or exits.
  void end_idle() noexcept {
    auto since = idle_since.load(std::memory_order_relaxed);
    idle_ns.add(static_cast<uint64_t>(now_ns() - since));
    idle_since.store(0, std::memory_order_release);
  }

  /// Any thread. A period that ends during the call may be counted short.
  worker_stats snapshot() const noexcept {
    auto since = idle_since.load(std::memory_order_acquire);
    auto idle = static_cast<int64_t>(idle_ns.get());
    if (since != 0)
      idle += now_ns() - since;
    worker_stats result;
    result.jobs_run = jobs_run.get();
    result.steal_attempts = steal_attempts.get();
    result.steals = steals.get();
    result.parks = parks.get();
    result.wakeups = wakeups.get();
    result.time_idle = std::chrono::nanoseconds{idle};
    result.anticipations = anticipations.get();
    result.anticipation_time
      = std::chrono::nanoseconds{static_cast<int64_t>(anticipation_ns.get())};
    result.warm_wakeups = warm_wakeups.get();
    return result;
  }

  /// steady_clock's time. On Linux read straight from clock_gettime: a
  /// worker reads it on waking, on the way to its first job, where the
  /// extra cold code page of steady_clock::now() cost about a microsecond.
  static int64_t now_ns() noexcept {
#ifdef __linux__
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
#else
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
#endif
  }
};

} // namespace troupe::detail
