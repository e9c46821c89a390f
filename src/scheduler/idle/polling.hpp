#pragma once

// The polling idle mode: the tiers of CAF's work-stealing scheduler
// (Torquati et al., "Reducing Message Latency and CPU Utilization in the CAF
// Actor Framework", Table I), kept to reproduce the paper's default, custom
// and aggressive configurations.
//
// In each tier a worker looks at its own queues `poll_attempts` times, tries
// one steal every `steal_interval` looks and sleeps `sleep_duration` after
// each look; the relaxed tier (block()) never ends. Nobody wakes a sleeping
// worker: a job waits for the end of its sleep. An idle worker stays
// counted as searching, never as parked, so the exit rule of
// work_stealing.cpp holds unchanged.
//
// Threads: search() and block() on the worker's own thread; the wake-ups
// do nothing.

#include "tiers.hpp"

#include <cstddef>

namespace troupe::detail::idle {

struct alignas(64) polling_slot {
  /// Owner only.
  first_tiers tiers;
  /// Owner only: looks in the relaxed tier, for its steal interval.
  size_t relaxed_looks = 0;

  void reset() noexcept {
    tiers.reset();
    relaxed_looks = 0;
  }
};

class polling : public tiered<polling_slot> {
public:
  using tiered::tiered;

  /// One look of the relaxed tier: steal, then sleep.
  std::optional<resumable*> block(stealing::worker& w, bool& searching);

  void after_local_push() {
    // Sleepers wake on their own (see the top).
  }

  void after_injection() {
  }

  void after_push_to(size_t) {
  }

  void wake_all() {
  }
};

static_assert(mode<polling>);

} // namespace troupe::detail::idle
