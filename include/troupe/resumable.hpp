#pragma once

// A resumable is a unit of work a scheduler runs: an event-based actor, or an
// internal job. Reference counting contract: whoever hands a job to a
// scheduler has added one reference for it (`ref_resumable`); the scheduler
// keeps it while the job is queued and drops it (`deref_resumable`) after a
// `resume` that returned anything but `resume_later`.

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace troupe {

class execution_unit;

class resumable {
public:
  enum class resume_result {
    /// Run me again soon: the scheduler re-queues the job, keeping its ref.
    resume_later,
    /// My mailbox is empty; a sender will schedule me again.
    awaiting_message,
    /// Finished for good.
    done,
  };

  virtual ~resumable() = default;

  /// Runs at most `max_throughput` messages (or units of work).
  virtual resume_result resume(execution_unit* ctx, size_t max_throughput) = 0;

  virtual void ref_resumable() const noexcept = 0;
  virtual void deref_resumable() const noexcept = 0;

  /// last_worker() of a job that never ran.
  static constexpr uint32_t never_ran = 0xFFFF'FFFF;
  /// last_worker() of a hub actor (spawn<hub>) that never ran: the locality
  /// policy starts it far from the other hubs.
  static constexpr uint32_t new_hub = 0xFFFF'FFFE;

  /// The locality policy's placement hint: the index of the worker that ran
  /// this job last, or never_ran or new_hub. That worker writes it before
  /// each run; whoever schedules the job next reads it. Relaxed: a stale
  /// hint only places the job elsewhere. Other policies leave it alone.
  uint32_t last_worker() const noexcept {
    return last_worker_.load(std::memory_order_relaxed);
  }

  void set_last_worker(uint32_t index) noexcept {
    last_worker_.store(index, std::memory_order_relaxed);
  }

  /// The locality policy's affinity hint: the worker (index + 1, above the
  /// low 8 bits) whose jobs unblocked this one while it ran elsewhere, and how
  /// many times in a row (low 8 bits); 0 after a wake on its own worker. Written
  /// by whoever schedules the job, which the mailbox orders after its last
  /// run: relaxed.
  uint32_t remote_wakes() const noexcept {
    return remote_wakes_.load(std::memory_order_relaxed);
  }

  void set_remote_wakes(uint32_t x) noexcept {
    remote_wakes_.store(x, std::memory_order_relaxed);
  }

private:
  std::atomic<uint32_t> last_worker_{never_ran};
  std::atomic<uint32_t> remote_wakes_{0};
};

/// A thread that runs resumables: a scheduler worker, or a thread of its own.
class execution_unit {
public:
  virtual ~execution_unit() = default;

  /// Schedules `job` from inside this unit, typically onto its own queue.
  /// The caller has added a reference for the job.
  virtual void exec_later(resumable* job) = 0;

  /// Like exec_later, but the unit adds the job's reference itself: a unit
  /// that still holds one from the job's last run reuses it, which saves two
  /// atomic operations per hop when two actors keep waking each other.
  virtual void exec_later_ref(resumable* job) {
    job->ref_resumable();
    exec_later(job);
  }

  /// True if jobs wait here that no other thread can take over: a job that
  /// runs long should then yield (return resume_later) now and then.
  virtual bool has_private_work() const noexcept {
    return false;
  }

  /// Called from inside this unit's current job when a mailbox it fills
  /// backs up: hands the jobs only this unit could run to other threads,
  /// since the current job may keep the unit busy for long.
  virtual void share_private_work() {}
};

} // namespace troupe
