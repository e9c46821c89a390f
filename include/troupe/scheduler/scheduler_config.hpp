#pragma once

#include "troupe/defaults.hpp"

#include <cstddef>
#include <string>

namespace troupe {

/// The scheduler's part of actor_system_config (keys troupe.scheduler.* and
/// troupe.work-stealing.*).
struct scheduler_config {
  std::string policy{defaults::scheduler::policy};
  /// 0: one worker per hardware thread.
  size_t max_threads = defaults::scheduler::max_threads;
  size_t max_throughput = defaults::scheduler::max_throughput;
  size_t spin_attempts = defaults::work_stealing::spin_attempts;

  /// The number of workers `max_threads` stands for on this machine.
  size_t num_workers() const noexcept;
};

} // namespace troupe
