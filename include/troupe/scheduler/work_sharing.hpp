#pragma once

// The work-sharing scheduler, policy "work-sharing": one FIFO queue shared by
// all workers, guarded by a mutex; idle workers wait on a condition variable
// with no timeout. Simple and fair, and the baseline the work-stealing policy
// is measured against: every schedule and every dequeue takes the one lock.

#include "troupe/scheduler/scheduler.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace troupe {

class work_sharing final : public scheduler {
public:
  explicit work_sharing(const scheduler_config& cfg);

  /// Stops the scheduler if it still runs.
  ~work_sharing() override;

  work_sharing(const work_sharing&) = delete;
  work_sharing& operator=(const work_sharing&) = delete;

  void start() override;

  /// Must not be called from one of this scheduler's workers.
  void stop() override;

  void schedule(resumable* job) override;

  size_t num_workers() const noexcept override;

  const char* name() const noexcept override {
    return "work-sharing";
  }

  std::vector<worker_stats> stats() const override;

private:
  struct state;
  std::unique_ptr<state> state_;
};

} // namespace troupe
