// The work-stealing worker loop and scheduler. What an idle worker does is
// its idle mode's: idle/adaptive (the default), idle/event and
// idle/polling; the loop is instantiated once per mode, chosen from
// cfg.idle_mode when the scheduler is built.
//
// Where jobs go:
// - schedule() on one of this scheduler's workers (a thread-local pointer
//   says so) and exec_later(): the worker's `next` slot (Go's runnext,
//   tokio's LIFO slot), whose previous occupant moves to the bottom of the
//   worker's own Chase-Lev deque. The slot is the owner's alone: thieves
//   never see it, so filling an empty slot wakes nobody and an actor that
//   answers the actor that just ran stays on this core (a ping-pong runs
//   without a single wake-up). To stay fair to the deque, a worker takes at
//   most `max_slot_runs` jobs in a row from the slot while the deque holds
//   work; then new jobs go to the deque, where thieves see them. And a
//   job whose sends back up a mailbox (the push reports backlog) moves the
//   slot and the later queue onto the deque and wakes a worker
//   (share_private_work): the receiver may wait in the slot behind the very
//   job that feeds it, e.g. one handler sending a million messages.
// - A job that returns `resume_later`: the back of the worker's `later`
//   queue (FIFO, owner only). It runs again after the jobs of the worker's
//   deque, so a busy actor can't starve its neighbours, but before outside
//   work, so an actor with a full mailbox (one receiver, many senders) drains
//   it before more senders run; pushing it onto the deque would run it again
//   at once (LIFO), and the injection queue would put it behind every
//   spawned actor.
// - schedule() from any other thread: the injection queue.
// - A worker takes jobs from its slot, its deque, its affinity queue
//   (locality policy), its later queue, then the injection queue; every
//   61st job it looks at the affinity and injection queues first so placed
//   and outside work can't starve (Go and tokio use the same interval);
//   behind more than outside_backlog_limit queued jobs, the injection
//   queue only every max_deferred_looks-th time: outside work starts more
//   work, and admitted into a backlog it only adds to what waits. With all
//   empty it searches: the injection queue, then the deques of the other
//   workers from a random one on; but not the others' queues for a while
//   after a steal whose job ran out at once (worker::note_out_of_work).
//
// Stop: stop() sets `stopping`, wakes every sleeper and joins. A worker that
// runs out of work while stopping exits if no worker runs a job (all are
// searching, parked or gone) and no job is queued; it then wakes every
// sleeper so they see it too. Otherwise it blocks as usual: a worker that
// still runs a job will either push work (and wake someone) or become the
// last idle worker and let everybody go. Every idle mode's block() ends, or
// re-checks before it blocks, on "stopping and nobody runs a job", so a
// sleeper can't miss the last exit. Correctness doesn't hinge on the count
// being exact: a job pushed by a worker is seen by that same worker before it
// exits, so no queued job is left behind. Only schedule() calls from other threads that
// race with stop() can find the workers gone; stop() drops those (releases
// their reference), as it does after it returned.

#include "troupe/scheduler/work_stealing.hpp"

#include "idle/adaptive.hpp"
#include "idle/event.hpp"
#include "idle/polling.hpp"
#include "idle/mode.hpp"
#include "stealing/worker.hpp"

#include "troupe/detail/assert.hpp"
#include "troupe/detail/full_fence.hpp"
#include "troupe/detail/hot.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace troupe {

// -- the scheduler of one idle mode -------------------------------------------

/// What work_stealing needs of its state whatever the idle mode.
struct work_stealing::state : detail::stealing::core {
  using core::core;

  /// The state of the idle mode cfg.idle_mode names.
  static std::unique_ptr<state> make(const scheduler_config& cfg);

  /// schedule() of the idle mode's scheduler.
  virtual void schedule(resumable* job) = 0;

  template <detail::idle::mode Mode>
  class of;

  template <detail::idle::mode Mode>
  class worker_of;
};

using detail::stealing::core;
using detail::stealing::one_searching;

template <detail::idle::mode Mode>
class work_stealing::state::worker_of final : public detail::stealing::worker {
public:
  worker_of(of<Mode>& parent, size_t index) : worker(parent, index), owner_(parent) {
  }

  void exec_later(resumable* job) override {
    if (on_own_thread())
      push_local(job);
    else
      owner_.push_injected(job); // Called from elsewhere: stay correct.
  }

  void exec_later_ref(resumable* job) override {
    if (on_own_thread() && job == held_) {
      held_ = nullptr; // Its reference goes with it.
      push_local(job);
      return;
    }
    job->ref_resumable();
    exec_later(job);
  }

  /// Moves next_job_ and the later queue onto the deque, where thieves find
  /// them, and wakes a worker to take them.
  void share_private_work() override {
    if (!on_own_thread() || !has_private_work())
      return;
    if (next_job_ != nullptr)
      deque.push(std::exchange(next_job_, nullptr));
    for (; !later_.empty(); later_.pop_front())
      deque.push(later_.front());
    owner_.mode.after_local_push();
  }

  /// A push onto the own slot or deque; on this worker's thread only.
  void push_local(resumable* job);

  /// The thread body.
  void run();

private:
  bool idle_step(bool& searching);
  bool exit_if_done(bool& searching);
  void run_job(resumable* job);

  of<Mode>& owner_;
};

template <detail::idle::mode Mode>
class work_stealing::state::of final : public work_stealing::state {
public:
  explicit of(const scheduler_config& cfg) : state(cfg), mode(*this) {
    auto n = size();
    workers.reserve(n);
    for (size_t i = 0; i < n; ++i)
      workers.push_back(std::make_unique<worker_of<Mode>>(*this, i));
  }

  TROUPE_HOT void schedule(resumable* job) override {
    auto* w = current_worker;
    if (w != nullptr && &w->parent() == this)
      static_cast<worker_of<Mode>*>(w)->push_local(job);
    else
      push_injected(job);
  }

  /// A push onto the injection queue, from any thread.
  TROUPE_HOT void push_injected(resumable* job) {
    if (locality != nullptr && place_elsewhere(job, nullptr)) {
      // Racing with stop(): if it already dropped what the queues held,
      // drop this one too (see drop_leftovers).
      detail::full_fence();
      if (stopping.load(std::memory_order_relaxed) && injection.closed())
        drop_placed();
      return;
    }
    if (!injection.push(job)) {
      job->deref_resumable(); // Stopped: drop it.
      return;
    }
    mode.after_injection();
  }

  /// Locality policy: pushes `job` onto the affinity queue of the worker
  /// placement_of names, if any and if it has room. An unblocked actor
  /// whose last worker is parked goes where "local" puts it (this worker,
  /// or from outside the injection queue): waking that very worker costs
  /// tens of microseconds, more than the actor's cached state saves; where
  /// work runs thin it would make every message between two workers' actors
  /// a wake-up, and a timer thread would pay one per timeout. A hub's first
  /// start still goes there.
  bool place_elsewhere(resumable* job, const detail::stealing::worker* current) {
    auto [target, hub] = placement_of(job, current);
    if (target == nullptr)
      return false;
    if constexpr (requires { mode.parked(size_t{}); })
      if (!hub && mode.parked(target->index()))
        return false;
    if (!target->affinity->try_push(job))
      return false;
    mode.after_push_to(target->index());
    return true;
  }

  Mode mode;

private:
  void run_worker(size_t index) override {
    static_cast<worker_of<Mode>&>(*workers[index]).run();
  }

  void request_stop() override {
    stopping.store(true, std::memory_order_seq_cst);
    mode.wake_all();
  }
};

template <detail::idle::mode Mode>
TROUPE_HOT void work_stealing::state::worker_of<Mode>::push_local(resumable* job) {
  TROUPE_ASSERT(on_own_thread()); // next_job_ and the deque bottom are the owner's
  if (owner_.locality != nullptr && owner_.place_elsewhere(job, this))
    return;
  if (next_job_ == nullptr) {
    if (slot_runs_ < defaults::scheduler::max_slot_runs || deque.size_approx() == 0) {
      next_job_ = job;
      return;
    }
    deque.push(job);
  } else {
    deque.push(std::exchange(next_job_, job));
  }
  owner_.mode.after_local_push();
}

template <detail::idle::mode Mode>
TROUPE_HOT void work_stealing::state::worker_of<Mode>::run() {
  core::current_worker = this;
  auto& idle = owner_.idle;
  bool searching = false;
  // Idle since it was made (thieves leave what was placed on it alone): the
  // first look ends that, or starts the first search.
  if (auto job = next_local()) {
    counters.end_idle();
    run_job(*job);
  } else {
    idle.fetch_add(one_searching, std::memory_order_seq_cst);
    searching = true;
  }
  for (;;) {
    auto job = next_local();
    if (!job) {
      if (!searching) {
        idle.fetch_add(one_searching, std::memory_order_seq_cst);
        searching = true;
        counters.begin_idle();
        note_out_of_work(counters.idle_since.load(std::memory_order_relaxed));
      }
      job = owner_.mode.search(*this);
      if (!job) {
        if (!idle_step(searching))
          break;
        continue;
      }
    }
    if (searching) {
      searching = false;
      counters.end_idle();
      auto before = idle.fetch_sub(one_searching, std::memory_order_seq_cst);
      owner_.mode.found_work(*this, before);
    }
    run_job(*job);
  }
  counters.end_idle();
  deque.disown(); // stop() drops what is left from its own thread.
  core::current_worker = nullptr;
}

template <detail::idle::mode Mode>
TROUPE_HOT bool work_stealing::state::worker_of<Mode>::idle_step(bool& searching) {
  // An idle worker holds no reference. Dropping the last one may terminate
  // an unreachable actor, whose goodbyes land in our own queues: run them.
  if (held_ != nullptr) {
    release_held();
    if (next_job_ != nullptr || deque.size_approx() > 0 || !later_.empty())
      return true;
  }
  if (!exit_if_done(searching))
    return false;
  if (auto job = owner_.mode.block(*this, searching))
    next_job_ = *job; // Taken on the way: the next look runs it.
  return true;
}

template <detail::idle::mode Mode>
TROUPE_HOT bool work_stealing::state::worker_of<Mode>::exit_if_done(bool& searching) {
  auto& st = owner_;
  if (!st.done() || st.work_visible())
    return true;
  st.exited.fetch_add(1, std::memory_order_seq_cst);
  st.idle.fetch_sub(one_searching, std::memory_order_seq_cst);
  searching = false;
  st.mode.wake_all(); // Sleepers see the same and leave as well.
  return false;
}

template <detail::idle::mode Mode>
TROUPE_HOT void work_stealing::state::worker_of<Mode>::run_job(resumable* job) {
  TROUPE_ASSERT(on_own_thread()); // later_ and held_ are the owner's
  counters.jobs_run.bump();
  if (owner_.locality != nullptr)
    job->set_last_worker(static_cast<uint32_t>(index()));
  switch (job->resume(this, owner_.max_throughput)) {
    case resumable::resume_result::resume_later:
      later_.push_back(job); // Keeps the reference.
      break;
    case resumable::resume_result::awaiting_message:
      release_held();
      held_ = job;
      break;
    case resumable::resume_result::done:
      job->deref_resumable();
      break;
  }
}

std::unique_ptr<work_stealing::state> work_stealing::state::make(const scheduler_config& cfg) {
  // The tiers of the other modes steal from random deques and wake nobody
  // for an affinity queue: what was placed on a worker could wait for it.
  if (cfg.policy == "locality" && cfg.idle_mode != idle_mode::adaptive)
    throw std::invalid_argument("troupe.scheduler.policy = locality needs "
                                "troupe.scheduler.idle-mode = adaptive, not "
                                + std::string{to_string(cfg.idle_mode)});
  switch (cfg.idle_mode) {
    case idle_mode::event:
      return std::make_unique<of<detail::idle::event>>(cfg);
    case idle_mode::polling:
      return std::make_unique<of<detail::idle::polling>>(cfg);
    case idle_mode::adaptive:
      break;
  }
  return std::make_unique<of<detail::idle::adaptive>>(cfg);
}

// -- work_stealing ------------------------------------------------------------

work_stealing::work_stealing(const scheduler_config& cfg) : state_(state::make(cfg)) {
}

work_stealing::~work_stealing() {
  stop();
}

void work_stealing::start() {
  state_->start();
}

void work_stealing::stop() {
  state_->stop();
}

TROUPE_HOT void work_stealing::schedule(resumable* job) {
  state_->schedule(job);
}

size_t work_stealing::num_workers() const noexcept {
  return state_->workers.size();
}

const char* work_stealing::name() const noexcept {
  return state_->locality != nullptr ? "locality" : "work-stealing";
}

std::vector<worker_stats> work_stealing::stats() const {
  auto result = detail::collect_stats(state_->workers);
  for (size_t i = 0; i < result.size(); ++i) {
    auto& w = *state_->workers[i];
    if (w.place == nullptr)
      continue;
    auto& by_level = result[i].steals_by_level;
    by_level.resize(w.place->levels.size());
    for (size_t k = 0; k < by_level.size(); ++k)
      by_level[k] = w.level_steals[k].get();
  }
  return result;
}

} // namespace troupe
