#pragma once

// The adaptive idle mode (the default), after Go's runtime (proc.go: wakep,
// nmspinning) and tokio's multi-thread scheduler (idle.rs).
//
// `core::idle` holds the number of searching workers (low 32 bits) and of
// parked workers (high 32 bits) in one atomic word, so a waker sees both at
// once. A worker that runs out of local work becomes searching, spins up to
// `spin_attempts` rounds looking for work (with a cpu pause), then parks on
// its own parker until woken (how long it spins adapts, see spin_budget;
// the idle budget may have it spin once more where it expects work, below). The parked workers' indices sit in `sleepers_` under a mutex
// that only parking and waking take.
//
// - Enqueue (any push): push, full fence, load idle. If no worker searches
//   and one is parked, wake one: under the mutex, re-check that still none
//   searches, pop a sleeper, count it as searching (not parked) and unpark
//   it. Counting it as searching at once is what keeps concurrent enqueuers
//   from waking a second one: no thundering herd.
// - Found work while searching: leave the searching count. The last searcher
//   to leave, if workers are parked, fences and wakes one when it still sees
//   work queued, so a burst fans out over the parked workers one wake-up at
//   a time. (Go and tokio wake one here unconditionally; looking first saves
//   the wake-up of a worker that would find nothing, e.g. one per hop of a
//   ping-pong.)
// - Park: under the mutex, push the own index to sleepers and move from
//   searching to parked in one RMW on idle; then full fence, then re-check
//   every queue (and the stop flag). Seeing work, the worker takes itself off
//   sleepers if still there and searches again; if a waker already took it
//   off, its parker holds a token and park() returns at once.
//
// Why no wake-up is lost: an enqueuer stores (the job), fences, loads idle;
// a parking worker stores idle (announcing itself parked), fences, loads
// the queues. By the fences (the classic store-buffer/Dekker argument),
// either the enqueuer sees the worker parked and not searching, and wakes
// someone, or the worker sees the job. If the enqueuer instead sees a
// searching worker, that worker still has to pass the same re-check before
// it parks. Every worker re-checks before it parks, not only the last
// searcher (Go and tokio): the check is a handful of loads, and the argument
// stays this short. The parker itself keeps a token, so an unpark() that
// comes before park() isn't lost either. The only timed wake-ups open a
// window of anticipation or end a warm slice, none later than
// max_anticipation after a worker's last job: an idle scheduler sleeps
// until work arrives.
//
// The re-check includes "stopping and nobody runs a job", so a sleeper can't
// miss the last worker's exit (see the stop rule in work_stealing.cpp).
//
// Locality policy: a job pushed onto a worker's affinity queue is for that
// worker, and thieves leave it alone while the worker is idle. So the
// pusher wakes that very worker if it is parked, searchers or not (the same
// push, fence, load idle, then under the mutex: found in sleepers? wake it);
// a worker that is searching or parking takes the job itself (the re-check
// sees every affinity queue); one that runs a job may lose it to a thief, so
// then the pusher wakes one as after any push. Only a hub's first start is
// pushed to a worker seen parked: an unblocked actor then stays with its
// sender (parked(), a hint; a worker that parks after the look is woken as
// above).
//
// Anticipation (troupe/detail/anticipation.hpp): with an idle budget, the newest
// sleeper (the one wake_one() pops first) may park with a timeout until the
// window where it expects work, then spin on its parker through it; and a
// sleeper whose work keeps coming after long gaps parks in warm slices
// (timed parks of at most 10 ms) until it is woken. None of this changes
// the protocol: it stays in sleepers and counted as parked all along, and a
// waker's unpark() leaves the token it returns with.
//
// Threads: search(), block() and found_work() on the worker's own thread;
// after_local_push(), after_injection() and wake_all() from any thread.

#include "mode.hpp"
#include "troupe/detail/anticipation.hpp"

#include "troupe/detail/full_fence.hpp"
#include "troupe/detail/hot.hpp"
#include "troupe/detail/parker.hpp"

#include <cstddef>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace troupe::detail::idle {

class adaptive {
public:
  explicit adaptive(stealing::core& parent);

  /// Spins up to the worker's spin budget of steal rounds.
  std::optional<resumable*> search(stealing::worker& w);

  /// Parks the worker until a waker unparks it (see the top).
  std::optional<resumable*> block(stealing::worker& w, bool& searching);

  /// The last searcher to leave fans out to a parked worker if work waits.
  void found_work(stealing::worker& w, uint64_t idle_before);

  void after_local_push() {
    wake_one_if_nobody_searches();
  }

  void after_injection() {
    wake_one_if_nobody_searches();
  }

  /// Wakes worker `index` if it is parked, even if others search: thieves
  /// leave an idle worker's affinity queue to it. Otherwise as
  /// after_injection: a thief may take the job from a busy worker.
  void after_push_to(size_t index);

  /// Unparks every sleeper, counting them as searching.
  void wake_all();

  /// Any thread: is worker `index` parked (or about to park)? A hint: it may
  /// be woken or park right after.
  bool parked(size_t index) const noexcept {
    return slots_[index].parked.load(std::memory_order_relaxed);
  }

private:
  /// The enqueuer's half of the protocol.
  void wake_one_if_nobody_searches();

  /// Pops a sleeper and unparks it, unless a worker searches already.
  void wake_one();

  /// Takes worker `index` off sleepers and unparks it, counted as
  /// searching. False if it wasn't parked.
  bool wake_if_parked(size_t index);

  /// Takes worker `index` off sleepers. False if a waker was first.
  bool cancel_park(size_t index);

  struct slot;

  /// Blocks until unparked; the newest sleeper spins through the window
  /// its anticipation plans (see the top).
  void sleep(stealing::worker& w, slot& s);

  /// Under sleepers_mtx_, after sleepers_ changed.
  void note_newest_sleeper() noexcept {
    newest_sleeper_.store(sleepers_.empty() ? 0 : sleepers_.back() + 1,
                          std::memory_order_relaxed);
  }

  struct alignas(64) slot {
    /// Unparked by wakers and stop(); parked by the owner.
    detail::parker parker;
    /// In sleepers_; written under sleepers_mtx_, read without it by
    /// after_push_to, so that a push to a worker that isn't parked takes no
    /// lock (the owner stores it before its re-check's fence, the pusher
    /// loads it after its push's: one of them sees the other).
    std::atomic<bool> parked{false};
    /// Owner only: rounds the next spin may take, between min_spin_rounds
    /// and spin_attempts. Doubles when spinning found work, halves when the
    /// worker had to park: under a steady trickle of work (a message every
    /// millisecond) spinning never pays, and an idle worker stops burning a
    /// core for it, while a burst keeps workers spinning between its jobs.
    size_t spin_budget = 0;
    /// Owner only: where the worker expects work, and its budget.
    anticipation expect;
  };

  stealing::core& parent_;

  /// One per worker, by index.
  std::unique_ptr<slot[]> slots_;

  /// Guards sleepers_. Taken only to park, to wake and to stop.
  alignas(64) std::mutex sleepers_mtx_;
  std::vector<size_t> sleepers_;

  /// sleepers_.back() + 1, 0 if none: who anticipates. Written under
  /// sleepers_mtx_, read by the sleeper without it (a stale value only
  /// costs a window, or skips one).
  std::atomic<size_t> newest_sleeper_{0};
};

TROUPE_HOT inline void adaptive::wake_one_if_nobody_searches() {
  detail::full_fence(); // Order the push before the load of idle.
  auto x = parent_.idle.load(std::memory_order_relaxed);
  if (stealing::num_searching(x) == 0 && stealing::num_parked(x) > 0)
    wake_one();
}

inline void adaptive::after_push_to(size_t index) {
  detail::full_fence(); // Order the push before the loads of parked and idle.
  if (slots_[index].parked.load(std::memory_order_relaxed) && wake_if_parked(index))
    return;
  auto x = parent_.idle.load(std::memory_order_relaxed);
  if (stealing::num_searching(x) == 0 && stealing::num_parked(x) > 0)
    wake_one();
}

TROUPE_HOT inline void adaptive::found_work(stealing::worker& w, uint64_t before) {
  if (stealing::num_searching(before) != 1 || stealing::num_parked(before) == 0)
    return;
  // The last searcher: fan out if there is more work than this job.
  detail::full_fence();
  if (parent_.work_for(w))
    wake_one_if_nobody_searches();
}

static_assert(mode<adaptive>);

} // namespace troupe::detail::idle
