#pragma once

// Default values of every configuration key. The dotted key of each value is
// written beside it; actor_system_config reads the same keys from the command
// line and from a TOML file.

#include <chrono>
#include <cstddef>
#include <limits>
#include <string_view>

namespace troupe::defaults {

namespace scheduler {
/// troupe.scheduler.policy: "work-stealing" or "work-sharing".
inline constexpr std::string_view policy = "work-stealing";
/// troupe.scheduler.max-threads: 0 means one worker per hardware thread.
inline constexpr size_t max_threads = 0;
/// troupe.scheduler.max-throughput: messages an actor handles per turn
/// before its worker runs others. Unlimited by default, as in CAF: an actor
/// drains its mailbox while it has messages, which keeps a receiver that
/// many senders flood from falling behind (its mailbox stays short).
inline constexpr size_t max_throughput = std::numeric_limits<size_t>::max();
} // namespace scheduler

namespace work_stealing {
/// troupe.work-stealing.spin-attempts: rounds a worker spends looking for
/// work (own deque, injection queue, steals) before it parks. 1024 rounds
/// take some 50 us: about what parking and waking a thread costs on a virtual
/// machine, so a worker spins no longer than a sleep would cost it (the
/// classic spin-then-block rule), and an idle system still sleeps.
inline constexpr size_t spin_attempts = 1024;
} // namespace work_stealing

namespace logger {
/// troupe.logger.verbosity: quiet, error, warning, info, debug or trace.
inline constexpr std::string_view verbosity = "warning";
} // namespace logger

} // namespace troupe::defaults
