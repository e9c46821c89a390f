#pragma once

// One work-stealing worker without its idle mode: its queues and how it
// looks for work. The loop around them is work_stealing::state::worker_of<P>
// (work_stealing.cpp), which derives from it.
//
// Its state comes in two parts, as a oneTBB arena slot's does:
// - shared: what other threads read or take (the deque, the affinity
//   queue, the counters, where it sits), public;
// - the owner's: what only its own thread touches, without synchronization
//   (the `next` slot, the later queue, the held job, the random state, the
//   steal back-off), protected, so only the loop that derives from worker
//   reaches it, and core::drop_leftovers once the thread is joined.
// The owner's member functions run on its thread (a test may drive a worker
// by hand from one thread instead).

#include "core.hpp"

#include "../topology.hpp"

#include "troupe/defaults.hpp"
#include "troupe/detail/assert.hpp"
#include "troupe/detail/bounded_mpmc_queue.hpp"
#include "troupe/detail/chase_lev_deque.hpp"
#include "troupe/detail/hot.hpp"
#include "troupe/detail/worker_counters.hpp"
#include "troupe/resumable.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <utility>

namespace troupe::detail::stealing {

class worker : public execution_unit {
  // Read-only after construction, beside the vtable pointer: read by any
  // thread, written by none.
  const size_t index_;
  core& parent_;

public:
  worker(core& parent, size_t index) : index_(index), parent_(parent) {
    // xorshift needs a nonzero seed; distinct ones spread the victims.
    rng_ = 0x9E37'79B9'7F4A'7C15u * (index + 1);
    // Idle until its thread runs: thieves leave what was placed on it alone.
    counters.begin_idle();
    if (auto* loc = parent.locality.get()) {
      place = &loc->layout.workers[index];
      affinity = std::make_unique<detail::bounded_mpmc_queue<resumable*>>(
        defaults::scheduler::affinity_capacity);
      level_steals = std::make_unique<single_writer_counter[]>(place->levels.size());
    }
  }

  // -- any thread -------------------------------------------------------------

  core& parent() const noexcept {
    return parent_;
  }

  size_t index() const noexcept {
    return index_;
  }

  /// Is the calling thread this worker?
  bool on_own_thread() const noexcept {
    return core::current_worker == this;
  }

  /// Jobs queued where other threads can see them (the deque, the affinity
  /// queue).
  bool has_public_work() const noexcept {
    return deque.size_approx() > 0 || (affinity != nullptr && affinity->size_approx() > 0);
  }

  /// About how many jobs wait in the deque and the affinity queue.
  size_t public_backlog() const noexcept {
    return deque.size_approx() + (affinity != nullptr ? affinity->size_approx() : 0);
  }

  /// Jobs here another worker may have to take: the deque's, and the
  /// affinity queue's while the owner is busy.
  bool has_work_for_others() const noexcept {
    return deque.size_approx() > 0
           || (affinity != nullptr && affinity->size_approx() > 0
               && counters.idle_since.load(std::memory_order_relaxed) == 0);
  }

  /// On the thief's thread: jobs `thief` may take here: the deque's, and
  /// those of the affinity queue once the owner has been busy with one job
  /// for affinity_patience (see affinity_ripe).
  bool has_stealable_work(worker& thief) noexcept {
    return deque.size_approx() > 0 || thief.affinity_ripe(*this);
  }

  /// On the thief's thread: the top of the deque, then the affinity queue
  /// if ripe.
  std::optional<resumable*> steal_from(worker& thief) noexcept {
    if (auto job = deque.steal())
      return job;
    if (thief.affinity_ripe(*this))
      return affinity->try_pop();
    return std::nullopt;
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

  // -- the owner's thread ------------------------------------------------------

  bool has_private_work() const noexcept override {
    return next_job_ != nullptr || !later_.empty();
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

  /// Ran out of jobs at `now` (steady_clock ns). If this busy period began
  /// with a steal under short_steal ago, its steal rounds steal nothing for
  /// steal_backoff. It still takes outside work and its own queues', and
  /// re-checks every queue before it parks: no job waits longer than the
  /// back-off for it, and no wake-up is lost.
  void note_out_of_work(int64_t now) noexcept {
    if (stolen_at_ == 0)
      return;
    if (now - stolen_at_ < defaults::scheduler::short_steal.count())
      backoff_until_ = now + defaults::scheduler::steal_backoff.count();
    stolen_at_ = 0;
  }

protected:
  /// Jobs queued here, in the deque, the affinity queue and the later queue.
  size_t local_backlog() const noexcept {
    return public_backlog() + later_.size();
  }

  /// The job to run next (see the top of work_stealing.cpp).
  resumable* next_job_ = nullptr;

  /// Jobs taken in a row from next_job_.
  uint32_t slot_runs_ = 0;

  /// Jobs that asked to run again (resume_later).
  std::deque<resumable*> later_;

  /// The last job that blocked (awaiting_message), with the reference the
  /// scheduler held for it: if a job run next wakes it again, that reference
  /// is reused (exec_later_ref) instead of dropped and taken anew.
  resumable* held_ = nullptr;

private:
  friend struct core; // drop_leftovers() empties the owner's queues once it is joined.

  // The owner's from here on, on a line of its own.
  alignas(64) uint64_t rng_;
  uint32_t tick_ = 0;
  /// Injection looks skipped in a row (outside_backlog_limit).
  uint32_t deferred_looks_ = 0;
  /// When the steal that began this busy period took its job; 0 if it
  /// began otherwise.
  int64_t stolen_at_ = 0;
  /// End of the steal back-off (see note_out_of_work); 0 if none.
  int64_t backoff_until_ = 0;

  struct watch {
    const worker* victim = nullptr;
    uint64_t jobs_run = 0;
    int64_t since_ns = 0;
  };
  /// The victim whose affinity queue this worker, as a thief, watches.
  watch watch_;

  uint64_t next_random() noexcept {
    rng_ ^= rng_ << 13;
    rng_ ^= rng_ >> 7;
    rng_ ^= rng_ << 17;
    return rng_;
  }

  /// May this steal round take from the other workers?
  bool may_steal() noexcept {
    if (backoff_until_ == 0)
      return true;
    if (detail::worker_counters::now_ns() < backoff_until_)
      return false;
    backoff_until_ = 0;
    return true;
  }

  /// A steal round took `job` from another worker.
  std::optional<resumable*> stole(std::optional<resumable*> job) noexcept {
    counters.steals.bump();
    stolen_at_ = detail::worker_counters::now_ns();
    return job;
  }

  /// steal_round of the locality policy: Algorithm 1, nearest level first.
  std::optional<resumable*> steal_nearest();

  /// As a thief: may it take the jobs in victim's affinity queue? Not while
  /// the victim is idle: it takes them itself (whoever pushed woke it if it
  /// was parked), which is what keeps an actor on its worker. Nor just after
  /// it finished a job: it is about to look. Only once this thief has seen
  /// the victim run one and the same job for affinity_patience, or at once
  /// while the queue holds affinity_backlog jobs or more. The thief watches
  /// one victim at a time (watch_), and moves on to another only when the
  /// watched one no longer qualifies.
  bool affinity_ripe(const worker& victim) noexcept;
};

inline bool worker::affinity_ripe(const worker& victim) noexcept {
  using namespace defaults::scheduler;
  if (victim.affinity == nullptr || victim.affinity->size_approx() == 0
      || victim.counters.idle_since.load(std::memory_order_relaxed) != 0)
    return false;
  if (victim.affinity->size_approx() >= affinity_backlog)
    return true;
  auto jobs = victim.counters.jobs_run.get();
  auto now = detail::worker_counters::now_ns();
  if (watch_.victim == &victim && watch_.jobs_run == jobs)
    return now - watch_.since_ns >= affinity_patience.count();
  // Watch this one instead, unless the one watched still qualifies.
  if (auto* w = watch_.victim; w != nullptr && w != &victim && w->affinity->size_approx() > 0
                               && w->counters.idle_since.load(std::memory_order_relaxed) == 0
                               && w->counters.jobs_run.get() == watch_.jobs_run)
    return false;
  watch_ = {&victim, jobs, now};
  return false;
}

TROUPE_HOT inline std::optional<resumable*> worker::next_local() {
  using namespace defaults::scheduler;
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
  if (next_job_ != nullptr) {
    ++slot_runs_;
    return std::exchange(next_job_, nullptr);
  }
  slot_runs_ = 0;
  // The deque before the affinity queue: the owner pops the newest end, so
  // the deque must run dry now and then, or its oldest jobs wait for as long
  // as it refills. A placed job waits at most about placed_backlog_limit x
  // injection_interval jobs: beyond that many jobs queued here, placers keep
  // their actors on their own deques.
  if (auto job = deque.pop())
    return job;
  if (affinity != nullptr)
    if (auto job = affinity->try_pop())
      return job;
  if (!later_.empty()) {
    auto* job = later_.front();
    later_.pop_front();
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

// core's checks over its workers, here where worker is complete.

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

} // namespace troupe::detail::stealing
