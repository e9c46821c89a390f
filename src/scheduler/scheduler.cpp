#include "troupe/scheduler/scheduler.hpp"

#include "troupe/scheduler/scheduler_config.hpp"
#include "troupe/scheduler/work_sharing.hpp"
#include "troupe/scheduler/work_stealing.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace troupe {

size_t scheduler_config::num_workers() const noexcept {
  if (max_threads > 0)
    return max_threads;
  return std::max<size_t>(std::thread::hardware_concurrency(), 1);
}

size_t scheduler_config::max_threads_limit() noexcept {
  using namespace defaults::scheduler;
  size_t per_machine = std::thread::hardware_concurrency() * max_threads_per_hardware_thread;
  return std::min(std::max(per_machine, max_threads_floor), max_threads_cap);
}

std::unique_ptr<scheduler> scheduler::make(const scheduler_config& cfg) {
  if (cfg.policy == "work-stealing" || cfg.policy == "locality")
    return std::make_unique<work_stealing>(cfg);
  if (cfg.policy == "work-sharing")
    return std::make_unique<work_sharing>(cfg);
  // actor_system_config rejects unknown names with an error value before a
  // scheduler is made, so reaching this is a bug in the caller.
  throw std::invalid_argument("unknown scheduler policy: \"" + cfg.policy + "\"");
}

} // namespace troupe
