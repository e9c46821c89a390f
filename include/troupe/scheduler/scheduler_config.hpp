#pragma once

#include "troupe/defaults.hpp"
#include "troupe/detail/parse_name.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace troupe {

/// What an idle work-stealing worker does (troupe.scheduler.idle-mode).
enum class idle_mode {
  /// Spin, then park until an enqueue wakes exactly one worker; with an
  /// idle budget, spin where work is expected (idle_budget).
  adaptive,
  /// Poll the aggressive and moderate tiers, then wait on a per-worker event
  /// with a timeout; external enqueues signal it (Torquati et al.,
  /// Algorithms 1-2).
  event,
  /// Poll the aggressive, moderate and relaxed tiers with plain sleeps.
  polling,
};

inline constexpr idle_mode idle_modes[] = {idle_mode::adaptive, idle_mode::event,
                                          idle_mode::polling};

/// "adaptive", "event" or "polling".
constexpr std::string_view to_string(idle_mode x) noexcept {
  switch (x) {
    case idle_mode::adaptive:
      return "adaptive";
    case idle_mode::event:
      return "event";
    case idle_mode::polling:
      return "polling";
  }
  return "?";
}

/// Parses a name as written by to_string; false if it is none of them.
constexpr bool from_string(std::string_view str, idle_mode& x) noexcept {
  return detail::parse_name(str, idle_modes, [](idle_mode y) { return to_string(y); }, x);
}

/// Where the locality policy puts an actor a message unblocks
/// (troupe.scheduler.placement).
enum class locality_placement {
  /// LAS/L: on the sender's worker, as work stealing does.
  local,
  /// LAS/A: on the worker that ran it last, unless that one is parked.
  affinity,
};

inline constexpr locality_placement locality_placements[] = {locality_placement::local,
                                                            locality_placement::affinity};

/// "local" or "affinity".
constexpr std::string_view to_string(locality_placement x) noexcept {
  return x == locality_placement::local ? "local" : "affinity";
}

/// Parses a name as written by to_string; false if it is none of them.
constexpr bool from_string(std::string_view str, locality_placement& x) noexcept {
  return detail::parse_name(str, locality_placements,
                            [](locality_placement y) { return to_string(y); }, x);
}

namespace detail {

/// defaults::scheduler::placement, parsed at compile time.
inline constexpr locality_placement default_locality_placement = [] {
  auto result = locality_placement::local;
  if (!from_string(defaults::scheduler::placement, result))
    throw "defaults::scheduler::placement names no placement";
  return result;
}();

/// defaults::scheduler::idle_mode, parsed at compile time.
inline constexpr idle_mode default_idle_mode = [] {
  auto result = idle_mode::adaptive;
  if (!from_string(defaults::scheduler::idle_mode, result))
    throw "defaults::scheduler::idle_mode names no idle mode";
  return result;
}();

} // namespace detail

using polling_tier = defaults::scheduler::polling_tier;

/// The scheduler's part of actor_system_config (keys troupe.scheduler.*).
/// The locality policy is work stealing with a steal order and placement of
/// its own: the work-stealing fields apply to it too.
struct scheduler_config {
  std::string policy{defaults::scheduler::policy};
  /// Locality policy: empty for this machine, else an hwloc synthetic
  /// description.
  std::string topology{defaults::scheduler::topology};
  /// Locality policy.
  locality_placement placement = detail::default_locality_placement;
  /// 0: one worker per hardware thread (the locality policy: one per core
  /// of its topology).
  size_t max_threads = defaults::scheduler::max_threads;
  size_t max_throughput = defaults::scheduler::max_throughput;
  bool pin_workers = defaults::scheduler::pin_workers;

  troupe::idle_mode idle_mode = detail::default_idle_mode;
  /// Adaptive mode: rounds of looking for work before parking.
  size_t spin_attempts = defaults::scheduler::spin_attempts;
  /// Adaptive mode: the share of one core idle workers may spend spinning
  /// where the next work is expected.
  double idle_budget = defaults::scheduler::idle_budget;
  /// Event and polling modes.
  polling_tier aggressive = defaults::scheduler::aggressive;
  polling_tier moderate = defaults::scheduler::moderate;
  /// Polling mode only: the event mode waits on its event instead.
  polling_tier relaxed = defaults::scheduler::relaxed;
  /// Event mode only.
  std::chrono::microseconds wait_timeout = defaults::scheduler::wait_timeout;

  /// The number of workers `max_threads` stands for on this machine (the
  /// locality policy decides its own for 0).
  size_t num_workers() const noexcept;

  /// The most max_threads takes on this machine: 4 per hardware thread, at
  /// least 64, at most 1024 (defaults::scheduler::max_threads_cap).
  static size_t max_threads_limit() noexcept;
};

} // namespace troupe
