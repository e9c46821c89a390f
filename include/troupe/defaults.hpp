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
/// troupe.scheduler.pin-workers: pins worker i to the i-th CPU the process
/// may run on (modulo their number). Off by default: on a shared machine the
/// kernel knows better where a thread can run now.
inline constexpr bool pin_workers = false;
/// troupe.scheduler.max-throughput: messages an actor handles per turn
/// before its worker runs others. Unlimited by default, as in CAF: an actor
/// drains its mailbox while it has messages, which keeps a receiver that
/// many senders flood from falling behind (its mailbox stays short).
inline constexpr size_t max_throughput = std::numeric_limits<size_t>::max();
} // namespace scheduler

namespace work_stealing {
/// troupe.work-stealing.idle-mode: what an idle worker does. "adaptive"
/// spins briefly, then parks until an enqueue wakes it; "event" polls the
/// aggressive and moderate tiers, then waits on its own event with a timeout,
/// signalled by external enqueues (seed 000, Algorithms 1 and 2); "polling"
/// polls the three tiers with plain sleeps (CAF's tiers, seed 000 Table I).
inline constexpr std::string_view idle_mode = "adaptive";

/// A polling tier (seed 000, Table I): `poll_attempts` looks at the own
/// queues, a steal every `steal_interval` of them, a sleep of
/// `sleep_duration` after each (none if zero).
struct polling_tier {
  size_t poll_attempts;
  size_t steal_interval;
  std::chrono::microseconds sleep_duration;
};

/// troupe.work-stealing.aggressive-{poll-attempts,steal-interval,sleep-duration}
inline constexpr polling_tier aggressive{100, 10, std::chrono::microseconds{0}};
/// troupe.work-stealing.moderate-{poll-attempts,steal-interval,sleep-duration}
inline constexpr polling_tier moderate{500, 5, std::chrono::microseconds{50}};
/// troupe.work-stealing.relaxed-{poll-attempts,steal-interval,sleep-duration}.
/// The relaxed tier never ends: its attempts only matter for the count.
inline constexpr polling_tier relaxed{1, 1, std::chrono::microseconds{10'000}};

/// troupe.work-stealing.wait-timeout: how long an idle worker of the event
/// mode waits on its event before it looks for work to steal (the paper's
/// best value for a 12-stage pipeline).
inline constexpr std::chrono::microseconds wait_timeout{200};

/// troupe.work-stealing.spin-attempts: the most rounds an adaptive worker
/// spends looking for work (own deque, injection queue, steals) before it
/// parks; it spins less while spinning keeps failing. 1024 rounds
/// take some 50 us: about what parking and waking a thread costs on a virtual
/// machine, so a worker spins no longer than a sleep would cost it (the
/// classic spin-then-block rule), and an idle system still sleeps.
inline constexpr size_t spin_attempts = 1024;
} // namespace work_stealing

namespace shutdown {
/// troupe.shutdown.grace-period: how long the actor system's destructor
/// waits for actors to finish on their own. Then it logs which actors it
/// still waits for and calls shutdown(), which stops them all.
inline constexpr std::chrono::milliseconds grace_period{5000};
} // namespace shutdown

namespace logger {
/// troupe.logger.verbosity: quiet, error, warning, info, debug or trace.
inline constexpr std::string_view verbosity = "warning";
} // namespace logger

} // namespace troupe::defaults
