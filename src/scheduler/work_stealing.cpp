// The work-stealing worker loop and scheduler. What an idle worker does is
// its idle policy's: idle/adaptive (the default), idle/event and
// idle/polling; the loop is instantiated once per policy, chosen from
// cfg.idle when the scheduler is built.
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
// - A worker takes jobs from its slot, its deque, its later queue, then the
//   injection queue; every 61st job it looks at the injection queue first so
//   outside work can't starve (Go and tokio use the same interval). With all
//   empty it searches: the injection queue, then the deques of the other
//   workers from a random one on.
//
// Stop: stop() sets `stopping`, wakes every sleeper and joins. A worker that
// runs out of work while stopping exits if no worker runs a job (all are
// searching, parked or gone) and no job is queued; it then wakes every
// sleeper so they see it too. Otherwise it blocks as usual: a worker that
// still runs a job will either push work (and wake someone) or become the
// last idle worker and let everybody go. Every policy's block() ends, or
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
#include "work_stealing_core.hpp"

#include "troupe/detail/assert.hpp"
#include "troupe/detail/hot.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

namespace troupe {

// -- core ---------------------------------------------------------------------

namespace detail::stealing {

core::core(const scheduler_config& config)
  : worker_pool("work-stealing", "troupe-steal", config.num_workers(), config.pin_workers),
    cfg(config),
    max_throughput(std::max<size_t>(config.max_throughput, 1)) {
}

core::~core() = default;

void core::never_started(size_t started) {
  // Counts the workers that never ran as gone, so the started ones can leave
  // (they wait until every worker is idle or gone).
  exited.fetch_add(workers.size() - started, std::memory_order_seq_cst);
}

void core::drop_leftovers() {
  // Only jobs from other threads that raced with stop() can be left here.
  for (auto* job : injection.close())
    job->deref_resumable();
  for (auto& w : workers) { // The owners are gone (joined): popping is safe.
    if (auto* job = std::exchange(w->next_job, nullptr))
      job->deref_resumable();
    for (auto* job : w->later)
      job->deref_resumable();
    w->later.clear();
    while (auto job = w->deque.pop())
      (*job)->deref_resumable();
  }
}

std::optional<resumable*> worker::steal_from_random_victim() {
  auto& ws = parent_.workers;
  if (ws.size() < 2)
    return std::nullopt;
  auto& victim = *ws[next_random() % ws.size()];
  if (&victim == this)
    return std::nullopt;
  counters.steal_attempts.bump();
  auto job = victim.deque.steal();
  if (job)
    counters.steals.bump();
  return job;
}

std::optional<resumable*> worker::poll_first_tiers() {
  for (const auto* tier : {&parent_.cfg.aggressive, &parent_.cfg.moderate}) {
    for (size_t i = 0; i < tier->poll_attempts; ++i) {
      if (auto job = next_local())
        return job;
      if (tier->steal_interval > 0 && i % tier->steal_interval == 0)
        if (auto job = steal_from_random_victim())
          return job;
      if (tier->sleep_duration.count() > 0)
        sleep_for(tier->sleep_duration);
    }
  }
  return std::nullopt;
}

void worker::sleep_for(std::chrono::microseconds d) {
  counters.parks.bump();
  std::this_thread::sleep_for(d);
  counters.wakeups.bump();
}

} // namespace detail::stealing

// -- the scheduler of one idle policy -----------------------------------------

/// What work_stealing needs of its state whatever the policy.
struct work_stealing::state : detail::stealing::core {
  using core::core;

  /// The state of the policy cfg.idle names.
  static std::unique_ptr<state> make(const scheduler_config& cfg);

  /// schedule() of the policy's scheduler.
  virtual void schedule(resumable* job) = 0;

  template <detail::stealing::idle_policy Policy>
  class of;

  template <detail::stealing::idle_policy Policy>
  class worker_of;
};

using detail::stealing::core;
using detail::stealing::one_searching;

template <detail::stealing::idle_policy Policy>
class work_stealing::state::worker_of final : public detail::stealing::worker {
public:
  worker_of(of<Policy>& parent, size_t index) : worker(parent, index), owner_(parent) {
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

  /// Moves next_job and the later queue onto the deque, where thieves find
  /// them, and wakes a worker to take them.
  void share_private_work() override {
    if (!on_own_thread() || !has_private_work())
      return;
    if (next_job != nullptr)
      deque.push(std::exchange(next_job, nullptr));
    for (; !later.empty(); later.pop_front())
      deque.push(later.front());
    owner_.policy.after_local_push();
  }

  /// A push onto the own slot or deque; on this worker's thread only.
  void push_local(resumable* job);

  /// The thread body.
  void run();

private:
  bool idle_step(bool& searching);
  bool exit_if_done(bool& searching);
  void run_job(resumable* job);

  of<Policy>& owner_;
};

template <detail::stealing::idle_policy Policy>
class work_stealing::state::of final : public work_stealing::state {
public:
  explicit of(const scheduler_config& cfg) : state(cfg), policy(*this) {
    auto n = size();
    workers.reserve(n);
    for (size_t i = 0; i < n; ++i)
      workers.push_back(std::make_unique<worker_of<Policy>>(*this, i));
  }

  TROUPE_HOT void schedule(resumable* job) override {
    auto* w = current_worker;
    if (w != nullptr && &w->parent() == this)
      static_cast<worker_of<Policy>*>(w)->push_local(job);
    else
      push_injected(job);
  }

  /// A push onto the injection queue, from any thread.
  TROUPE_HOT void push_injected(resumable* job) {
    if (!injection.push(job)) {
      job->deref_resumable(); // Stopped: drop it.
      return;
    }
    policy.after_injection();
  }

  Policy policy;

private:
  void run_worker(size_t index) override {
    static_cast<worker_of<Policy>&>(*workers[index]).run();
  }

  void request_stop() override {
    stopping.store(true, std::memory_order_seq_cst);
    policy.wake_all();
  }
};

template <detail::stealing::idle_policy Policy>
TROUPE_HOT void work_stealing::state::worker_of<Policy>::push_local(resumable* job) {
  TROUPE_ASSERT(on_own_thread()); // next_job and the deque bottom are the owner's
  if (next_job == nullptr) {
    if (slot_runs < detail::stealing::max_slot_runs || deque.size_approx() == 0) {
      next_job = job;
      return;
    }
    deque.push(job);
  } else {
    deque.push(std::exchange(next_job, job));
  }
  owner_.policy.after_local_push();
}

template <detail::stealing::idle_policy Policy>
TROUPE_HOT void work_stealing::state::worker_of<Policy>::run() {
  core::current_worker = this;
  auto& idle = owner_.idle;
  bool searching = false;
  for (;;) {
    auto job = next_local();
    if (!job) {
      if (!searching) {
        idle.fetch_add(one_searching, std::memory_order_seq_cst);
        searching = true;
        counters.begin_idle();
      }
      job = owner_.policy.search(*this);
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
      owner_.policy.found_work(*this, before);
    }
    run_job(*job);
  }
  counters.end_idle();
  deque.disown(); // stop() drops what is left from its own thread.
  core::current_worker = nullptr;
}

template <detail::stealing::idle_policy Policy>
TROUPE_HOT bool work_stealing::state::worker_of<Policy>::idle_step(bool& searching) {
  // An idle worker holds no reference. Dropping the last one may terminate
  // an unreachable actor, whose goodbyes land in our own queues: run them.
  if (held_ != nullptr) {
    release_held();
    if (next_job != nullptr || deque.size_approx() > 0 || !later.empty())
      return true;
  }
  if (!exit_if_done(searching))
    return false;
  owner_.policy.block(*this, searching);
  return true;
}

template <detail::stealing::idle_policy Policy>
TROUPE_HOT bool work_stealing::state::worker_of<Policy>::exit_if_done(bool& searching) {
  auto& st = owner_;
  if (!st.done() || st.work_visible())
    return true;
  st.exited.fetch_add(1, std::memory_order_seq_cst);
  st.idle.fetch_sub(one_searching, std::memory_order_seq_cst);
  searching = false;
  st.policy.wake_all(); // Sleepers see the same and leave as well.
  return false;
}

template <detail::stealing::idle_policy Policy>
TROUPE_HOT void work_stealing::state::worker_of<Policy>::run_job(resumable* job) {
  TROUPE_ASSERT(on_own_thread()); // later and held_ are the owner's
  counters.jobs_run.bump();
  switch (job->resume(this, owner_.max_throughput)) {
    case resumable::resume_result::resume_later:
      later.push_back(job); // Keeps the reference.
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
  switch (cfg.idle) {
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

std::vector<worker_stats> work_stealing::stats() const {
  return detail::collect_stats(state_->workers);
}

} // namespace troupe
