#pragma once

// deterministic_scheduler: the deterministic fixture's scheduler, without
// threads. Jobs wait in one FIFO queue until the test runs them, one message
// at a time, on its own thread; the fixture runs detached actors here too. Between steps, every queued actor
// has a message to handle: one whose mailbox ran empty leaves the queue
// (a sender schedules it again), as on a real scheduler.
//
// Threads: schedule() from any thread (a blocking actor may send); every
// other member from the thread that runs the test.

#include "troupe/resumable.hpp"
#include "troupe/scheduler/scheduler.hpp"

#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

namespace troupe {
class scheduled_actor;
} // namespace troupe

namespace troupe::test {

class deterministic_scheduler final : public scheduler {
public:
  deterministic_scheduler();

  deterministic_scheduler(const deterministic_scheduler&) = delete;
  deterministic_scheduler& operator=(const deterministic_scheduler&) = delete;

  ~deterministic_scheduler() override;

  // -- scheduler --------------------------------------------------------------------

  /// Nothing to start: jobs run when the test says so.
  void start() override;

  /// Runs queued jobs until none is left; jobs scheduled afterwards are
  /// dropped (their reference released).
  void stop() override;

  void schedule(resumable* job) override;

  size_t num_workers() const noexcept override {
    return 1;
  }

  const char* name() const noexcept override {
    return "deterministic";
  }

  std::vector<worker_stats> stats() const override;

  // -- stepping ---------------------------------------------------------------------

  /// Runs the initialisation of every queued actor that has not run yet
  /// (its behavior factory, which may send), so that what it sends at
  /// start waits in mailboxes before the test looks.
  void start_actors();

  /// Runs the first queued job that has a message on it; false if none has.
  bool run_once();

  /// Runs `job` on its next message; false if it is not queued (its
  /// mailbox is empty, or it is muted by a full mailbox) or took none.
  bool run_once(resumable* job);

  /// True if `job` waits in the queue.
  bool queued(const resumable* job) const;

  /// The queued jobs, first to run first.
  std::vector<resumable*> jobs() const;

private:
  /// Takes `job` out of the queue; false if it is not there.
  bool take(resumable* job);

  /// Resumes `job` (taken out of the queue) on at most `n` messages, then
  /// queues it again or releases it; true if it took a message.
  bool run(resumable* job, size_t n);

  mutable std::mutex mtx_;
  std::deque<resumable*> jobs_;
  bool stopped_ = false;
  worker_stats stats_;
};

} // namespace troupe::test
