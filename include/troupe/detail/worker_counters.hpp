#pragma once

// The counters behind scheduler::stats(). Each worker bumps its own counters
// (a single writer, so a relaxed load and store instead of a locked
// read-modify-write); stats() reads them relaxed from any thread and gets a
// recent value of each.

#include "troupe/scheduler/scheduler.hpp"

#include <atomic>
#include <cstdint>

namespace troupe::detail {

class single_writer_counter {
public:
  /// The owning worker only.
  void bump() noexcept {
    value_.store(value_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
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

  worker_stats snapshot() const noexcept {
    return {jobs_run.get(), steal_attempts.get(), steals.get(), parks.get(), wakeups.get()};
  }
};

} // namespace troupe::detail
