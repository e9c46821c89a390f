#pragma once

// The event idle mode: CAF's work-stealing with the event-based relaxed tier
// of Torquati et al., "Reducing Message Latency and CPU Utilization in the
// CAF Actor Framework", Algorithms 1 and 2, for the latency study.
//
// Algorithm 1 (the worker): poll the aggressive and moderate tiers
// (first_tiers), then set the own `sleeping` flag and wait on the own
// condition variable for `wait_timeout`, until the injection queue holds a
// job. Woken by a signal, the worker takes that job in its loop; timed out,
// it tries a steal round, since work pushed by workers signals nobody.
//
// Algorithm 2 (the enqueuer): an external enqueue picks a worker
// round-robin and, if that one sleeps, signals it, both under the worker's
// mutex, so the signal is never lost. Work pushed by workers wakes nobody:
// sleepers find it when their wait times out and they try to steal.
//
// An idle worker stays counted as searching, never as parked, so the exit
// rule of work_stealing.cpp holds unchanged; its wait also ends when
// stopping and nobody runs a job.
//
// Locality policy: a job pushed onto a worker's affinity queue signals that
// worker, whose wait also ends when its affinity queue holds a job.
//
// Threads: search() and block() on the worker's own thread;
// after_injection(), after_push_to() and wake_all() from any thread.

#include "tiers.hpp"

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace troupe::detail::idle {

struct alignas(64) event_slot {
  /// The owner waits on `cv` with `sleeping` set; external enqueuers and
  /// stop() signal it. Both under `mtx`.
  std::mutex mtx;
  std::condition_variable cv;
  bool sleeping = false;
  /// Owner only.
  first_tiers tiers;

  void reset() noexcept {
    tiers.reset();
  }
};

class event : public tiered<event_slot> {
public:
  using tiered::tiered;

  /// Algorithm 1's wait on the worker's own event.
  std::optional<resumable*> block(stealing::worker& w, bool& searching);

  void after_local_push() {
    // Wakes nobody (see the top).
  }

  void after_injection() {
    signal_next_sleeper();
  }

  /// Signals worker `index`: the job is its own (see adaptive.hpp).
  void after_push_to(size_t index) {
    signal(index);
  }

  /// Signals every worker waiting on its event.
  void wake_all();

private:
  /// Algorithm 2: signals the next worker round-robin if it sleeps.
  void signal_next_sleeper();

  /// Signals worker `index` if it sleeps.
  void signal(size_t index);

  /// The worker the next external enqueue signals.
  alignas(64) std::atomic<size_t> next_signalled_{0};
};

static_assert(mode<event>);

} // namespace troupe::detail::idle
