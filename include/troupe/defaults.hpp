#pragma once

// Default values of every configuration key, and the range of each numeric
// one. The dotted key of each value is written beside it; actor_system_config
// reads the same keys from the command line and from a TOML file, and
// rejects a value outside its range with an error naming the range.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace troupe::defaults {

namespace scheduler {
/// troupe.scheduler.policy: "work-stealing", "work-sharing" or "locality"
/// (work stealing over the memory hierarchy, Barghi and Karsten).
inline constexpr std::string_view policy = "work-stealing";
/// troupe.scheduler.topology: the memory hierarchy the locality policy
/// schedules on. Empty: this machine's, from hwloc, with each worker pinned
/// to its core. Otherwise an hwloc synthetic description such as
/// "package:2 numa:2 l3:1 core:4 pu:1": the steal order of a machine this
/// one is not, with no worker pinned (for tests and studies).
inline constexpr std::string_view topology = "";
/// troupe.scheduler.max-threads: 0 means one worker per hardware thread.
inline constexpr size_t max_threads = 0;
/// The most troupe.scheduler.max-threads takes: 4 workers per hardware
/// thread, but at least 64 (room to oversubscribe a small machine) and at
/// most 1024. A worker more than the CPUs can run only adds switches, and a
/// typo such as 100000 would start threads for minutes and starve the
/// machine (scheduler_config::max_threads_limit() computes it).
inline constexpr size_t max_threads_per_hardware_thread = 4;
inline constexpr size_t max_threads_floor = 64;
inline constexpr size_t max_threads_cap = 1024;
/// troupe.scheduler.pin-workers: pins worker i to the i-th CPU the process
/// may run on (modulo their number). Off by default: on a shared machine the
/// kernel knows better where a thread can run now.
inline constexpr bool pin_workers = false;
/// troupe.scheduler.max-throughput: messages an actor handles per turn
/// before its worker runs others. Unlimited by default, as in CAF: an actor
/// drains its mailbox while it has messages, which keeps a receiver that
/// many senders flood from falling behind (its mailbox stays short).
/// Range: at least 1 (a turn of no messages would never finish a mailbox).
inline constexpr size_t max_throughput = std::numeric_limits<size_t>::max();

// -- idle workers (work-stealing and locality policies) --

/// troupe.scheduler.idle-mode: what an idle worker does. "adaptive"
/// spins briefly, then parks until an enqueue wakes it; "event" polls the
/// aggressive and moderate tiers, then waits on its own event with a timeout,
/// signalled by external enqueues (Algorithms 1 and 2 of Torquati et al.,
/// "Reducing Message Latency and CPU Utilization in the CAF Actor
/// Framework"); "polling" polls the three tiers with plain sleeps (CAF's
/// tiers, Table I of the same paper).
inline constexpr std::string_view idle_mode = "adaptive";

/// A polling tier (Torquati et al., Table I): `poll_attempts` looks at the own
/// queues, a steal every `steal_interval` of them, a sleep of
/// `sleep_duration` after each (none if zero).
///
/// Ranges: poll attempts and steal interval 0 to `max_tier_count` (0 skips
/// the tier, or its steals), sleep duration 0 to `max_idle_duration`.
struct polling_tier {
  size_t poll_attempts;
  size_t steal_interval;
  std::chrono::microseconds sleep_duration;
};

/// The most looks or steal interval of a tier: a million looks of the
/// moderate tier's 50 us sleeps already take 50 s.
inline constexpr size_t max_tier_count = 1'000'000;
/// The longest sleep of a tier and the longest wait-timeout: a job that
/// arrives while its worker sleeps may wait as long, and a whole second is
/// far beyond any latency Troupe is tuned for.
inline constexpr std::chrono::microseconds max_idle_duration = std::chrono::seconds{1};

/// troupe.scheduler.aggressive.{poll-attempts,steal-interval,sleep-duration}
inline constexpr polling_tier aggressive{100, 10, std::chrono::microseconds{0}};
/// troupe.scheduler.moderate.{poll-attempts,steal-interval,sleep-duration}
inline constexpr polling_tier moderate{500, 5, std::chrono::microseconds{50}};
/// troupe.scheduler.relaxed.{poll-attempts,steal-interval,sleep-duration}.
/// The relaxed tier never ends: its attempts only matter for the count.
inline constexpr polling_tier relaxed{1, 1, std::chrono::microseconds{10'000}};

/// troupe.scheduler.wait-timeout: how long an idle worker of the event
/// mode waits on its event before it looks for work to steal (the paper's
/// best value for a 12-stage pipeline). Range: `min_wait_timeout` to
/// `max_idle_duration`; a zero timeout would turn the wait into a busy loop.
inline constexpr std::chrono::microseconds wait_timeout{200};
inline constexpr std::chrono::microseconds min_wait_timeout{1};

/// troupe.scheduler.spin-attempts: the most rounds an adaptive worker
/// spends looking for work (own deque, injection queue, steals) before it
/// parks; it spins less while spinning keeps failing. 1024 rounds
/// take some 50 us: about what parking and waking a thread costs on a virtual
/// machine, so a worker spins no longer than a sleep would cost it (the
/// classic spin-then-block rule), and an idle system still sleeps.
/// Range: 0 (park at once) to `max_spin_attempts`.
inline constexpr size_t spin_attempts = 1024;
/// 64 times the default, some 3 ms of spinning: past that a parked worker
/// costs far less than the spinning it replaces.
inline constexpr size_t max_spin_attempts = 65'536;

/// troupe.scheduler.idle-budget: the share of one core that each
/// adaptive worker may spend on being ready where it expects the next work,
/// so that it finds a worker awake instead of one the kernel must wake (on
/// a virtual machine 15 to 70 us after a long sleep). A worker learns its
/// idle gaps and spins in the window that holds most of them; where its
/// gaps are long but random, it parks in slices of 10 ms so that its CPU
/// never idles deeply (see troupe/detail/anticipation.hpp). 0 parks right
/// after the spin until woken, as the adaptive mode did before it had a
/// budget; 1 spins whenever the history says work may come. Range: 0 to 1.
inline constexpr double idle_budget = 0.02;
inline constexpr double max_idle_budget = 1.0;
/// The latest a worker anticipates work after its last job: from this long
/// after the last message on, an idle process makes no wake-ups.
inline constexpr std::chrono::milliseconds max_anticipation{1000};

// Fixed, not settable: how the worker loop shares its time (see
// src/scheduler/work_stealing.cpp). The commit that set each value gives
// the measurements behind it.

/// Every this many jobs a worker looks at its affinity and injection queues
/// before its own slot and deque, so that placed and outside work never
/// starve behind two actors that keep the slot busy (Go and tokio use 61).
inline constexpr uint32_t injection_interval = 61;
/// With more jobs than this queued on the worker, that look skips the
/// injection queue: outside work starts more work, and admitted into a
/// backlog it only adds to what waits.
inline constexpr size_t outside_backlog_limit = 64;
/// Looks skipped in a row at most, so outside work waits no longer than
/// injection_interval times this many jobs.
inline constexpr uint32_t max_deferred_looks = 16;
/// Jobs a worker takes in a row from its `next` slot, which thieves never
/// see, while its deque holds work: then new jobs go to the deque, where
/// they can.
inline constexpr uint32_t max_slot_runs = 32;
/// A steal whose thief runs out of work again this soon did not pay: moving
/// the job cost about as much as running it, and more of the same follows
/// (a pair of actors moved back and forth between two workers).
inline constexpr std::chrono::nanoseconds short_steal{5'000};
/// How long such a thief then steals nothing: long next to short_steal,
/// short next to a job worth moving.
inline constexpr std::chrono::nanoseconds steal_backoff{50'000};

// -- placement (locality policy) --

/// troupe.scheduler.placement: where the locality policy puts an actor that a
/// message unblocks. "local" (LAS/L): the deque of the worker that sent the
/// message, as work stealing does. "affinity" (LAS/A): the worker that ran
/// the actor last, through that worker's affinity queue, so that an actor
/// moves only when a thief takes it, or when that worker is parked (it
/// then runs where it was unblocked, as with "local": a wake-up costs more
/// than the actor's cached state saves). New actors start on the spawner's
/// worker either way.
inline constexpr std::string_view placement = "local";
/// Jobs one worker's affinity queue holds. Unblocked actors stop being
/// placed on a worker once placed_backlog_limit jobs wait there, in its
/// deque and this queue; the room above bounds hubs' first starts and
/// pushers racing past that check: a job that finds it full starts on the
/// sender's worker instead (as with "local").
inline constexpr size_t affinity_capacity = 1024;

// Fixed, not settable: when the locality policy moves an actor (see
// src/scheduler/stealing/). The commit that set each value gives the
// measurements behind it.

/// How long a worker must have run one job before thieves take what others
/// placed on it: longer than a worker needs from the end of a job to its
/// next look, short next to a time slice.
inline constexpr std::chrono::nanoseconds affinity_patience{20'000};
/// Placed jobs on a busy worker that thieves take without waiting out
/// affinity_patience: all but the first wait for more than the owner's
/// current job, while a thief would run one now.
inline constexpr size_t affinity_backlog = 2;
/// Affinity placement: an unblocked actor whose last worker has this many
/// jobs queued (deque and affinity queue) runs where it was unblocked
/// instead: it would wait behind them while the worker that placed it runs
/// dry and takes more outside work. A hub's clients stay well below it.
inline constexpr size_t placed_backlog_limit = 64;
/// Affinity placement: an actor unblocked this many times in a row by the
/// jobs of one worker other than its last moves to that worker: it talks to
/// them across cores on every message (a hub's client, half of a pair a
/// steal split). Below 256: resumable::remote_wakes() keeps it in 8 bits.
inline constexpr uint32_t follow_after_wakes = 4;
} // namespace scheduler

namespace mailbox {
/// troupe.mailbox.capacity: the messages an actor's mailbox holds before
/// troupe.mailbox.overflow applies; 0, the default (as in CAF), is no bound.
/// Responses and system messages (exits, down messages, timeouts) are never
/// refused, so a full mailbox may briefly hold more.
inline constexpr size_t capacity = 0;
/// The mailbox counts its queued messages in 16 bits of its lock-free word
/// (detail/fifo_inbox.hpp), exactly below 65536: the largest bound leaves
/// half that room to the messages a bound never refuses.
inline constexpr size_t max_capacity = 32'768;
/// troupe.mailbox.overflow: "drop" or "mute" (see mailbox_overflow.hpp).
inline constexpr std::string_view overflow = "mute";
/// troupe.mailbox.push-timeout: how long a thread outside the scheduler
/// waits for room in a muting mailbox before its message is dropped.
inline constexpr std::chrono::milliseconds push_timeout{1000};
/// The longest push-timeout and grace-period a setting may ask for.
inline constexpr std::chrono::milliseconds max_wait{std::chrono::hours{1}};
} // namespace mailbox

namespace stream {
/// troupe.stream.edge-capacity: the tuples each ring of a stream edge holds
/// (one ring per pair of producer and consumer replicas); a producer that
/// finds its ring full waits until the consumer drained half of it.
inline constexpr size_t edge_capacity = 1024;
inline constexpr size_t min_edge_capacity = 2;
inline constexpr size_t max_edge_capacity = size_t{1} << 24;
/// troupe.stream.execution: "scheduled" (the nodes run on the scheduler's
/// workers) or "threads" (one thread per node replica).
inline constexpr std::string_view execution = "scheduled";
} // namespace stream

namespace shutdown {
/// troupe.shutdown.grace-period: how long the actor system's destructor
/// waits for a message from outside once nothing inside the system can make
/// an actor run any more (while something can, it waits for that: see
/// actor_system::activity). Then it logs which actors are left and calls
/// shutdown(), which stops them all. Also what SIGINT and SIGTERM give the
/// actors under TROUPE_MAIN.
inline constexpr std::chrono::milliseconds grace_period{5000};
/// troupe.shutdown.report-interval: how often the destructor says what it
/// still waits for.
inline constexpr std::chrono::milliseconds report_interval{5000};
/// The shortest report-interval a setting may ask for.
inline constexpr std::chrono::milliseconds min_report_interval{10};
} // namespace shutdown

namespace net {
/// troupe.net.listen-address: where publish() and open() listen when not
/// told: loopback only (any other address needs TLS, see troupe.net.tls.*).
inline constexpr std::string_view listen_address = "127.0.0.1";
/// troupe.net.heartbeat-interval: how often a connection that sent nothing
/// else tells its peer it is alive.
inline constexpr std::chrono::milliseconds heartbeat_interval{500};
/// troupe.net.heartbeat-timeout: how long a peer may stay silent before its
/// node counts as lost: its proxies die with remote_link_unreachable and
/// requests waiting on it fail.
inline constexpr std::chrono::milliseconds heartbeat_timeout{2000};
/// troupe.net.handshake-timeout: connect and handshake, or give up.
inline constexpr std::chrono::milliseconds handshake_timeout{5000};
/// troupe.net.max-message-size: a frame larger than this closes the
/// connection that sent it.
inline constexpr size_t max_message_size = size_t{64} << 20;
/// troupe.net.send-buffer: bytes a connection holds for its peer before it
/// mutes the actors that send to it, until half of them are out.
inline constexpr size_t send_buffer = size_t{16} << 20;
/// troupe.net.inline-receivers: the I/O thread runs an actor that a network
/// message wakes up itself, a thread handoff less per message.
inline constexpr bool inline_receivers = true;
/// troupe.net.inline-limit: how long an actor may run on the I/O thread
/// before a second I/O thread takes the connections over.
inline constexpr std::chrono::milliseconds inline_limit{10};
inline constexpr size_t min_send_buffer = size_t{64} << 10;
inline constexpr size_t max_send_buffer = size_t{4} << 30;
inline constexpr std::chrono::milliseconds min_interval{1};
inline constexpr std::chrono::milliseconds max_interval{3'600'000};
inline constexpr size_t min_message_size = 1024;
inline constexpr size_t max_max_message_size = size_t{1} << 30;

/// Network services (net/lp.hpp, net/octet_stream.hpp): what a server or
/// client builder starts with, each one a builder method of the same name.
namespace service {
/// max_connections: connections a server holds at once; it accepts the
/// next one when one closes.
inline constexpr size_t max_connections = 1024;
/// max_message_size: a frame (or a line) larger than this closes its
/// connection.
inline constexpr size_t max_message_size = size_t{1} << 20;
/// max_pending_messages: what a connection's handler may have queued
/// before the connection stops reading from its socket.
inline constexpr size_t max_pending_messages = 64;
/// send_buffer: bytes a connection holds for its socket before it mutes
/// the actors that write to it, until half of them are out.
inline constexpr size_t send_buffer = size_t{1} << 20;
/// write_timeout: a peer that takes nothing of what the connection holds
/// for this long is dropped (it stopped reading).
inline constexpr std::chrono::milliseconds write_timeout{10'000};
/// idle_timeout: a connection on which nothing is read or written for this
/// long is closed; 0 keeps it open.
inline constexpr std::chrono::milliseconds idle_timeout{0};
} // namespace service
} // namespace net

namespace logger {
/// troupe.logger.verbosity: quiet, error, warning, info, debug or trace.
inline constexpr std::string_view verbosity = "warning";
} // namespace logger

} // namespace troupe::defaults
