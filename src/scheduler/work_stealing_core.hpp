#pragma once

// What the work-stealing worker loop (work_stealing.cpp) and its idle
// policies (idle/adaptive, idle/event, idle/polling) share: the queues, the
// count of searching and parked workers, the stop flag, and the ways a
// worker looks for work. Who may touch what is said at each field; the
// protocols are explained where they are implemented.
//
// An idle policy is a type P, constructed from a `core&`, with:
// - std::optional<resumable*> search(worker& w): w ran out of local work and
//   counts as searching; look for work before blocking (Algorithm 1's
//   polling tiers, or the adaptive spin).
// - void block(worker& w, bool& searching): nothing found; block until work
//   may be there (park, wait on the event, sleep). `searching` says on
//   return whether w still counts as searching.
// - void found_work(worker& w, uint64_t idle_before): w left the searching
//   count (`idle_before` is the word before it did) to run a job.
// - void after_local_push(): a worker pushed onto its own deque or slot.
// - void after_injection(): any thread pushed onto the injection queue.
// - void after_push_to(size_t index): any thread pushed onto the affinity
//   queue of worker `index` (locality policy), which should run it.
// - void wake_all(): stop: every blocked worker looks again.
// The worker loop is instantiated once per policy (static dispatch), so the
// hot calls above inline into it.

#include "topology.hpp"
#include "worker_pool.hpp"

#include "troupe/detail/assert.hpp"
#include "troupe/detail/bounded_mpmc_queue.hpp"
#include "troupe/detail/chase_lev_deque.hpp"
#include "troupe/detail/hot.hpp"
#include "troupe/detail/injection_queue.hpp"
#include "troupe/detail/worker_counters.hpp"
#include "troupe/resumable.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace troupe::detail::stealing {

constexpr uint64_t one_searching = 1;
constexpr uint64_t one_parked = uint64_t{1} << 32;

inline uint64_t num_searching(uint64_t idle) noexcept {
  return idle & 0xFFFF'FFFFu;
}

inline uint64_t num_parked(uint64_t idle) noexcept {
  return idle >> 32;
}

/// Look at the injection queue first every this many jobs.
constexpr uint32_t injection_interval = 61;

/// More jobs than this queued on the worker (deque, affinity and later
/// queues) defer that look: outside work starts more work, and admitted
/// into such a backlog it only adds to what waits (BIG: each outside
/// message makes an actor ping 999 others; taken every 61st job, it
/// doubled the messages in flight and took 1.4x the time in about a third
/// of the runs, under work-stealing and both locality placements).
constexpr size_t outside_backlog_limit = 64;

/// Looks deferred so in a row at most: outside work still waits no more
/// than injection_interval x this many jobs.
constexpr uint32_t max_deferred_looks = 16;

/// How long a worker must have run one job before thieves take what others
/// placed on it (locality policy, affinity queues): longer than a worker
/// needs from the end of a job to its next look, short next to a time
/// slice.
constexpr int64_t affinity_patience_ns = 20'000;

/// Placed jobs on a busy worker that thieves take without affinity_patience:
/// all but the first wait for more than the owner's current job, while the
/// thief would run one now. A hub's clients kept on their workers queue up
/// so (CDICT, LAS/A: 0.93x the time of waiting out the patience; PUBSUB
/// 0.93x; no case slower, on a 2-vCPU VM).
constexpr size_t affinity_backlog = 2;

/// Affinity placement: an unblocked actor whose last worker has this many
/// jobs queued (its deque and its affinity queue: the owner runs the deque
/// first) runs where it was unblocked instead (as under local placement):
/// it would wait behind them, while the worker that placed it runs dry and
/// takes more outside work. BIG, where every actor pings every other: one
/// worker took 983 of the 1,000 outside messages and placed their pings on
/// the other, in about half the runs (twice the memory, up to 1.3x the
/// time). Counting the affinity queue alone: BIG 0.89x the time, 30 MiB in
/// every run; the chat server's p99 a quarter. Counting the deque too:
/// PUBSUB 0.94x of that, the chat server's p99 0.62x, BIG, CDICT, CSLL,
/// LOGM and APSP even; a limit of 16 instead: PUBSUB 0.82x, CDICT 1.45x
/// (2-vCPU VM). A hub's clients stay well below it.
constexpr size_t placed_backlog_limit = 64;

/// Jobs a worker takes in a row from its `next` slot while its deque waits.
constexpr uint32_t max_slot_runs = 32;

/// A steal whose thief runs out of work again this soon did not pay: moving
/// the job cost about as much as running it (cache misses on both cores),
/// and more of the same would follow, e.g. a hub's clients moved back and
/// forth between two workers for every request (CDICT: 0.46x the time).
constexpr int64_t short_steal_ns = 5'000;

/// How long a thief then steals nothing (worker::note_out_of_work): long
/// next to short_steal_ns, short next to a job that is worth moving.
constexpr int64_t steal_backoff_ns = 50'000;

/// Affinity placement: an actor unblocked this many times in a row by the
/// jobs of one worker other than its last runs on that worker instead
/// (core::placement_of). CDICT, LAS/A: 0.29x the time; BIG 0.90, APSP 0.97,
/// CSLL 0.99, LOGM 0.98, PUBSUB 1.05 (2-vCPU VM, full sizes).
constexpr uint32_t follow_after_wakes = 4;
static_assert(follow_after_wakes < 256, "resumable::remote_wakes() keeps the streak in 8 bits");

class worker;

/// What the locality policy adds to a core: where the workers sit in the
/// memory hierarchy, who polls each NUMA node, where hubs go.
struct locality_state {
  /// Loads troupe.scheduler.topology (std::invalid_argument if hwloc
  /// refuses it) and places max-threads workers on it, or one per core.
  explicit locality_state(const scheduler_config& cfg);

  const topology topo;
  const worker_layout layout;
  /// troupe.scheduler.placement is "affinity".
  const bool affinity;
  /// Workers sit on their cores: troupe.scheduler.pin-workers, or a
  /// topology where some workers are nearer each other than others (more
  /// than one cache or NUMA domain). Where all share one cache, a worker
  /// keeps no data a move would lose, and the kernel may move it off a
  /// core other load took.
  const bool pinned;

  struct alignas(64) node_polling {
    /// Workers of the node polling deques with work (Algorithm 1's p): a
    /// thief adds itself once its round finds a level with work, and leaves
    /// when the round ends.
    std::atomic<uint32_t> count{0};
  };

  /// One per NUMA node.
  std::unique_ptr<node_polling[]> polling;

  /// Hubs started so far; any thread.
  alignas(64) std::atomic<uint32_t> hubs{0};

  /// The worker the next hub starts on: the NUMA nodes in hub_order, and
  /// within a node its workers in turn. Any thread.
  uint32_t next_hub_worker() noexcept {
    auto k = hubs.fetch_add(1, std::memory_order_relaxed);
    auto& order = layout.hub_order;
    auto& node = layout.workers_of_node[order[k % order.size()]];
    return node[(k / order.size()) % node.size()];
  }
};

/// The state of one work-stealing scheduler that does not depend on the
/// idle policy.
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

  /// After a full fence: is any job queued anywhere?
  bool work_visible() const noexcept;

  /// After a full fence: is a job queued that `w` should stay awake for (it
  /// is about to park, or the last searcher)? work_visible() minus the
  /// affinity queues of other idle owners: each takes its own, and a push
  /// there wakes it.
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

/// A worker without its idle policy: its queues and how it looks for work.
/// The loop around them is work_stealing::state::worker_of<P>.
class worker : public execution_unit {
public:
  worker(core& parent, size_t index) : index_(index), parent_(parent) {
    // xorshift needs a nonzero seed; distinct ones spread the victims.
    rng_ = 0x9E37'79B9'7F4A'7C15u * (index + 1);
    // Idle until its thread runs: thieves leave what was placed on it alone.
    counters.begin_idle();
    if (auto* loc = parent.locality.get()) {
      place = &loc->layout.workers[index];
      affinity = std::make_unique<detail::bounded_mpmc_queue<resumable*>>(
        defaults::locality::affinity_capacity);
      level_steals = std::make_unique<single_writer_counter[]>(place->levels.size());
    }
  }

  bool has_private_work() const noexcept override {
    return next_job != nullptr || !later.empty();
  }

  /// Any thread: jobs queued where other threads can see them (the deque,
  /// the affinity queue).
  bool has_public_work() const noexcept {
    return deque.size_approx() > 0 || (affinity != nullptr && affinity->size_approx() > 0);
  }

  /// Any thread: about how many jobs wait in the deque and the affinity
  /// queue.
  size_t public_backlog() const noexcept {
    return deque.size_approx() + (affinity != nullptr ? affinity->size_approx() : 0);
  }

  /// Any thread: jobs here another worker may have to take: the deque's,
  /// and the affinity queue's while the owner is busy.
  bool has_work_for_others() const noexcept {
    return deque.size_approx() > 0
           || (affinity != nullptr && affinity->size_approx() > 0
               && counters.idle_since.load(std::memory_order_relaxed) == 0);
  }

  /// Any thread: jobs a thief may take here: the deque's, and those of the
  /// affinity queue once the owner has been busy with one job for
  /// affinity_patience (see affinity_ripe).
  bool has_stealable_work(worker& thief) noexcept {
    return deque.size_approx() > 0 || thief.affinity_ripe(*this);
  }

  /// A thief's take: the top of the deque, then the affinity queue if ripe.
  std::optional<resumable*> steal_from(worker& thief) noexcept {
    if (auto job = deque.steal())
      return job;
    if (thief.affinity_ripe(*this))
      return affinity->try_pop();
    return std::nullopt;
  }

  core& parent() const noexcept {
    return parent_;
  }

  size_t index() const noexcept {
    return index_;
  }

  /// Owner only: is the calling thread this worker?
  bool on_own_thread() const noexcept {
    return core::current_worker == this;
  }

  /// Drops the reference kept from the last job that blocked.
  void release_held() noexcept {
    if (auto* job = std::exchange(held_, nullptr))
      job->deref_resumable();
  }

  /// The slot, the deque, the affinity queue, the later queue, then the
  /// injection queue (every injection_interval-th call the affinity and
  /// injection queues first).
  std::optional<resumable*> next_local();

  /// The injection queue, then the deques of the others from a random one
  /// on (locality policy: the own affinity queue, then steal_nearest).
  std::optional<resumable*> steal_round();

  /// One steal from one random worker (the polling tiers).
  std::optional<resumable*> steal_from_random_victim();

  /// The first two polling tiers of Algorithm 1 (aggressive, moderate).
  std::optional<resumable*> poll_first_tiers();

  /// Sleeps `d`, counted as a park and a wake-up.
  void sleep_for(std::chrono::microseconds d);

  /// Owner only: ran out of jobs at `now` (steady_clock ns). If this busy
  /// period began with a steal under short_steal_ns ago, its steal rounds
  /// steal nothing for steal_backoff_ns. It still takes outside work and
  /// its own queues', and re-checks every queue before it parks: no job
  /// waits longer than the back-off for it, and no wake-up is lost.
  void note_out_of_work(int64_t now) noexcept {
    if (stolen_at_ == 0)
      return;
    if (now - stolen_at_ < short_steal_ns)
      backoff_until_ = now + steal_backoff_ns;
    stolen_at_ = 0;
  }

  /// Thieves steal from it; the owner pushes and pops.
  detail::chase_lev_deque<resumable*> deque;

  /// Locality policy only (null otherwise), set at construction.
  /// Where the worker sits in the memory hierarchy.
  const worker_place* place = nullptr;
  /// Jobs placed on this worker by others (hubs; unblocked actors under
  /// affinity placement); the owner runs them after its deque, thieves may
  /// take them.
  std::unique_ptr<detail::bounded_mpmc_queue<resumable*>> affinity;
  /// Steals by victim level (place->levels), written by the owner.
  std::unique_ptr<single_writer_counter[]> level_steals;

  /// Written by the owner only.
  detail::worker_counters counters;

  /// The job to run next; owner only (see the top of work_stealing.cpp).
  resumable* next_job = nullptr;

  /// Jobs taken in a row from next_job; owner only.
  uint32_t slot_runs = 0;

  /// Jobs that asked to run again (resume_later); owner only.
  std::deque<resumable*> later;

protected:
  uint64_t next_random() noexcept {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }

  // Owner only from here on.
  alignas(64) size_t index_;
  /// The last job that blocked (awaiting_message), with the reference the
  /// scheduler held for it: if a job run next wakes it again, that reference
  /// is reused (exec_later_ref) instead of dropped and taken anew.
  resumable* held_ = nullptr;
  core& parent_;
  uint64_t rng_;
  uint32_t tick_ = 0;
  /// Injection looks deferred in a row (outside_backlog_limit).
  uint32_t deferred_looks_ = 0;
  /// When the steal that began this busy period took its job; 0 if it
  /// began otherwise.
  int64_t stolen_at_ = 0;
  /// End of the steal back-off (see note_out_of_work); 0 if none.
  int64_t backoff_until_ = 0;

  /// Owner only: the jobs queued here, in the deque, the affinity queue
  /// and the later queue.
  size_t local_backlog() const noexcept {
    return public_backlog() + later.size();
  }

  /// Owner only: may this steal round take from the other workers?
  bool may_steal() noexcept {
    if (backoff_until_ == 0)
      return true;
    if (detail::worker_counters::now_ns() < backoff_until_)
      return false;
    backoff_until_ = 0;
    return true;
  }

  /// Owner only: a steal round took `job` from another worker.
  std::optional<resumable*> stole(std::optional<resumable*> job) noexcept {
    counters.steals.bump();
    stolen_at_ = detail::worker_counters::now_ns();
    return job;
  }

private:
  /// steal_round of the locality policy: Algorithm 1, nearest level first.
  std::optional<resumable*> steal_nearest();

  /// Owner only (as a thief): may it take the jobs in victim's affinity
  /// queue? Not while the victim is idle: it takes them itself (whoever
  /// pushed woke it if it was parked), which is what keeps an actor on its
  /// worker. Nor just after it finished a job: it is about to look. Only
  /// once this thief has seen the victim run one and the same job for
  /// affinity_patience, or at once while the queue holds affinity_backlog
  /// jobs or more. The thief watches one victim at a time (watch_), and
  /// moves on to another only when the watched one no longer qualifies.
  bool affinity_ripe(const worker& victim) noexcept;

  struct watch {
    const worker* victim = nullptr;
    uint64_t jobs_run = 0;
    int64_t since_ns = 0;
  };
  watch watch_;
};

inline bool worker::affinity_ripe(const worker& victim) noexcept {
  if (victim.affinity == nullptr || victim.affinity->size_approx() == 0
      || victim.counters.idle_since.load(std::memory_order_relaxed) != 0)
    return false;
  if (victim.affinity->size_approx() >= affinity_backlog)
    return true;
  auto jobs = victim.counters.jobs_run.get();
  auto now = detail::worker_counters::now_ns();
  if (watch_.victim == &victim && watch_.jobs_run == jobs)
    return now - watch_.since_ns >= affinity_patience_ns;
  // Watch this one instead, unless the one watched still qualifies.
  if (auto* w = watch_.victim; w != nullptr && w != &victim && w->affinity->size_approx() > 0
                               && w->counters.idle_since.load(std::memory_order_relaxed) == 0
                               && w->counters.jobs_run.get() == watch_.jobs_run)
    return false;
  watch_ = {&victim, jobs, now};
  return false;
}

TROUPE_HOT inline bool core::work_visible() const noexcept {
  if (injection.size_approx() > 0)
    return true;
  for (auto& w : workers)
    if (w->has_public_work())
      return true;
  return false;
}

TROUPE_HOT inline bool core::work_for(const worker& w) const noexcept {
  if (injection.size_approx() > 0)
    return true;
  for (auto& x : workers)
    if (x.get() == &w ? x->has_public_work() : x->has_work_for_others())
      return true;
  return false;
}

TROUPE_HOT inline std::optional<resumable*> worker::next_local() {
  TROUPE_ASSERT(on_own_thread());
  if (++tick_ == injection_interval) {
    tick_ = 0;
    // Neither outside work nor work placed here waits behind a pair of
    // actors that keep the slot busy.
    if (affinity != nullptr)
      if (auto job = affinity->try_pop())
        return job;
    if (local_backlog() <= outside_backlog_limit || ++deferred_looks_ == max_deferred_looks) {
      deferred_looks_ = 0;
      if (auto job = parent_.injection.try_pop())
        return job;
    }
  }
  if (next_job != nullptr) {
    ++slot_runs;
    return std::exchange(next_job, nullptr);
  }
  slot_runs = 0;
  // The deque before the affinity queue: the owner pops the newest end, so
  // the deque must run dry now and then, or its oldest jobs wait for as long
  // as it refills. Taking turns with a busy affinity queue halved its share
  // and did that (chat, LAS/A: seconds). A placed job waits at most about
  // placed_backlog_limit x injection_interval jobs: beyond that many jobs
  // queued here, placers keep their actors on their own deques.
  if (auto job = deque.pop())
    return job;
  if (affinity != nullptr)
    if (auto job = affinity->try_pop())
      return job;
  if (!later.empty()) {
    auto* job = later.front();
    later.pop_front();
    return job;
  }
  return parent_.injection.try_pop();
}

TROUPE_HOT inline std::optional<resumable*> worker::steal_round() {
  if (auto job = parent_.injection.try_pop())
    return job;
  if (place != nullptr) {
    if (auto job = affinity->try_pop()) // Placed here while we search.
      return job;
    if (!may_steal())
      return std::nullopt;
    return steal_nearest();
  }
  auto& ws = parent_.workers;
  auto n = ws.size();
  if (n < 2 || !may_steal())
    return std::nullopt;
  auto first = next_random() % n;
  for (size_t k = 0; k < n; ++k) {
    auto& victim = *ws[(first + k) % n];
    // Looking costs two loads; steal() costs a fence.
    if (&victim == this || victim.deque.size_approx() == 0)
      continue;
    counters.steal_attempts.bump();
    if (auto job = victim.deque.steal())
      return stole(job);
  }
  return std::nullopt;
}

template <class P>
concept idle_policy = std::constructible_from<P, core&>
                      && requires(P& p, worker& w, bool& searching, uint64_t before, size_t index) {
                           { p.search(w) } -> std::same_as<std::optional<resumable*>>;
                           p.block(w, searching);
                           p.found_work(w, before);
                           p.after_local_push();
                           p.after_injection();
                           p.after_push_to(index);
                           p.wake_all();
                         };

} // namespace troupe::detail::stealing
