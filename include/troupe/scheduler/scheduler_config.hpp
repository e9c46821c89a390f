#pragma once

#include "troupe/defaults.hpp"
#include "troupe/detail/parse_name.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace troupe {

/// What an idle work-stealing worker does (troupe.work-stealing.idle-mode).
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

namespace detail {

/// defaults::work_stealing::idle_mode, parsed at compile time.
inline constexpr idle_mode default_idle_mode = [] {
  auto result = idle_mode::adaptive;
  if (!from_string(defaults::work_stealing::idle_mode, result))
    throw "defaults::work_stealing::idle_mode names no idle mode";
  return result;
}();

} // namespace detail

using polling_tier = defaults::work_stealing::polling_tier;

/// The scheduler's part of actor_system_config (keys troupe.scheduler.* and
/// troupe.work-stealing.*).
struct scheduler_config {
  std::string policy{defaults::scheduler::policy};
  /// 0: one worker per hardware thread.
  size_t max_threads = defaults::scheduler::max_threads;
  size_t max_throughput = defaults::scheduler::max_throughput;
  bool pin_workers = defaults::scheduler::pin_workers;

  idle_mode idle = detail::default_idle_mode;
  /// Adaptive mode: rounds of looking for work before parking.
  size_t spin_attempts = defaults::work_stealing::spin_attempts;
  /// Adaptive mode: the share of one core idle workers may spend spinning
  /// where the next work is expected.
  double idle_budget = defaults::work_stealing::idle_budget;
  /// Event and polling modes.
  polling_tier aggressive = defaults::work_stealing::aggressive;
  polling_tier moderate = defaults::work_stealing::moderate;
  /// Polling mode only: the event mode waits on its event instead.
  polling_tier relaxed = defaults::work_stealing::relaxed;
  /// Event mode only.
  std::chrono::microseconds wait_timeout = defaults::work_stealing::wait_timeout;

  /// The number of workers `max_threads` stands for on this machine.
  size_t num_workers() const noexcept;

  /// The most max_threads takes on this machine: 4 per hardware thread, at
  /// least 64, at most 1024 (defaults::scheduler::max_threads_cap).
  static size_t max_threads_limit() noexcept;
};

} // namespace troupe
