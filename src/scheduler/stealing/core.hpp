#pragma once

// The state of one work-stealing scheduler that does not depend on its idle
// mode: the workers, the injection queue, the count of searching and
// parked workers, the stop flag, and where the locality policy places a
// job. The worker loop (work_stealing.cpp) and the idle modes (idle/)
// share it. Who may touch what is said at each field; the protocols are
// explained where they are implemented.

#include "locality_state.hpp"

#include "../worker_pool.hpp"

#include "troupe/detail/injection_queue.hpp"
#include "troupe/resumable.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace troupe::detail::stealing {

/// core::idle: searching workers in the low half, parked ones in the high.
constexpr uint64_t one_searching = 1;
constexpr uint64_t one_parked = uint64_t{1} << 32;

inline uint64_t num_searching(uint64_t idle) noexcept {
  return idle & 0xFFFF'FFFFu;
}

inline uint64_t num_parked(uint64_t idle) noexcept {
  return idle >> 32;
}

class worker;

struct core : worker_pool {
  /// The locality policy's core if cfg.policy is "locality".
  explicit core(const scheduler_config& cfg);

  core(const scheduler_config& cfg, std::unique_ptr<locality_state> loc);

  ~core() override;

  /// No worker runs a job: all are searching, parked or gone. May err
  /// towards true while a searcher has just taken a job (see work_stealing.cpp).
  bool nobody_runs_a_job() const noexcept {
    // An exiting worker adds to `exited` before it leaves `idle`: read in
    // this order, a worker is counted at least once.
    auto x = idle.load(std::memory_order_seq_cst);
    auto gone = exited.load(std::memory_order_seq_cst);
    return num_searching(x) + num_parked(x) + gone >= workers.size();
  }

  /// stopping, and no worker runs a job.
  bool done() const noexcept {
    return stopping.load(std::memory_order_acquire) && nobody_runs_a_job();
  }

  /// After a full fence: is any job queued anywhere? (Inline, in worker.hpp.)
  bool work_visible() const noexcept;

  /// After a full fence: is a job queued that `w` should stay awake for (it
  /// is about to park, or the last searcher)? work_visible() minus the
  /// affinity queues of other idle owners: each takes its own, and a push
  /// there wakes it. (Inline, in worker.hpp.)
  bool work_for(const worker& w) const noexcept;

  void never_started(size_t started) override;
  void drop_leftovers() override;

  /// Releases every job waiting in an affinity queue (locality policy):
  /// after stop, whichever of stop() and a racing outside push comes last.
  void drop_placed() noexcept;
  int cpu_of(size_t index) const noexcept override;

  /// Where placement_of sends a job.
  struct placement {
    /// The worker whose affinity queue the job should go to, or null for
    /// the usual place (the current worker, or the injection queue).
    worker* target = nullptr;
    /// The job is a hub's first start, not an actor a message unblocked.
    bool hub = false;
  };

  /// Locality policy: where `job` goes when `current` (null outside the
  /// workers) schedules it.
  placement placement_of(resumable* job, const worker* current) noexcept;

  const scheduler_config cfg;
  const size_t max_throughput;

  /// The locality policy's; null for plain work stealing.
  const std::unique_ptr<locality_state> locality;

  /// Filled by the constructor of the idle mode's core, read-only after.
  std::vector<std::unique_ptr<worker>> workers;

  detail::injection_queue<resumable*> injection;

  /// Searching (low half) and parked (high half) workers. Written by workers
  /// and wakers with seq_cst RMWs; loaded after a full fence by enqueuers.
  alignas(64) std::atomic<uint64_t> idle{0};

  /// Set once by stop(); read by workers when they run out of work.
  alignas(64) std::atomic<bool> stopping{false};

  /// Workers that left their loop (or never started).
  std::atomic<size_t> exited{0};

  /// The worker running on this thread, if any (of any work_stealing).
  static inline thread_local worker* current_worker = nullptr;
};

} // namespace troupe::detail::stealing
