// Work stealing with an idle protocol after Go's runtime (proc.go: wakep,
// nmspinning) and tokio's multi-thread scheduler (idle.rs).
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
// Idle protocol. `idle` holds the number of searching workers (low 32 bits)
// and of parked workers (high 32 bits) in one atomic word, so a waker sees
// both at once. A worker that runs out of local work becomes searching,
// spins up to `spin_attempts` rounds looking for work (with a cpu pause),
// then parks on its own parker with no timeout (how long it spins adapts,
// see spin_budget_). The parked workers' indices sit in `sleepers` under a
// mutex that only parking and waking take.
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
// comes before park() isn't lost either. There is no timed wake-up: an idle
// scheduler sleeps until work arrives.
//
// Stop: stop() sets `stopping`, wakes every sleeper and joins. A worker that
// runs out of work while stopping exits if no worker runs a job (all are
// searching, parked or gone) and no job is queued; it then wakes every
// sleeper so they see it too. Otherwise it parks as usual: a worker that
// still runs a job will either push work (and wake someone) or become the
// last idle worker and let everybody go. A parking worker's re-check
// includes "stopping and nobody runs a job", so a sleeper can't miss the
// last exit. Correctness doesn't hinge on the count being exact: a job
// pushed by a worker is seen by that same worker before it exits, so no
// queued job is left behind. Only schedule() calls from other threads that
// race with stop() can find the workers gone; stop() drops those (releases
// their reference), as it does after it returned.
//
// The protocol above is the `adaptive` idle mode. Two more reproduce CAF's
// schedulers for the latency study (Torquati et al., "Reducing Message
// Latency and CPU Utilization in the CAF Actor Framework"); in both, an idle
// worker stays counted as searching, never as parked, so enqueuers never
// wake one through `sleepers` and the exit rule above holds unchanged:
// - `polling`: the tiers of CAF's work-stealing (Table I). In each tier a
//   worker looks at its own queues `poll_attempts` times, tries one steal
//   every `steal_interval` looks and sleeps `sleep_duration` after each look;
//   the relaxed tier never ends. Nobody wakes a sleeping worker: a job
//   waits for the end of its sleep.
// - `event` (Algorithms 1 and 2): the aggressive and moderate tiers, then
//   the worker sets its `sleeping` flag and waits on its own condition
//   variable for `wait_timeout`, until the injection queue holds a job. An
//   external enqueue picks a worker round-robin and, if that one sleeps,
//   signals it, both under the worker's mutex, so the signal is never lost.
//   Work pushed by workers wakes nobody: sleepers find it when their wait
//   times out and they try to steal.

#include "troupe/scheduler/work_stealing.hpp"

#include "troupe/detail/assert.hpp"
#include "troupe/detail/chase_lev_deque.hpp"
#include "troupe/detail/cpu_relax.hpp"
#include "troupe/detail/full_fence.hpp"
#include "troupe/detail/hot.hpp"
#include "troupe/detail/injection_queue.hpp"
#include "troupe/detail/parker.hpp"
#include "troupe/detail/thread_name.hpp"
#include "troupe/detail/worker_counters.hpp"

#include "troupe/detail/thread_affinity.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

namespace troupe {

namespace {

constexpr uint64_t one_searching = 1;
constexpr uint64_t one_parked = uint64_t{1} << 32;

uint64_t num_searching(uint64_t idle) noexcept {
  return idle & 0xFFFF'FFFFu;
}

uint64_t num_parked(uint64_t idle) noexcept {
  return idle >> 32;
}

/// Look at the injection queue first every this many jobs.
constexpr uint32_t injection_interval = 61;

/// Jobs a worker takes in a row from its `next` slot while its deque waits.
constexpr uint32_t max_slot_runs = 32;

/// The least an adaptive worker spins before it parks (if spin_attempts
/// allows as many): enough to catch work that follows at once.
constexpr size_t min_spin_rounds = 16;

} // namespace

struct work_stealing::state {
  class worker;

  explicit state(const scheduler_config& cfg);

  /// A push onto the own deque of `w`; called on w's thread only.
  void push_local(worker& w, resumable* job);

  /// A push onto the injection queue, from any thread.
  void push_injected(resumable* job);

  /// The enqueuer's half of the idle protocol of the adaptive mode.
  void wake_one_if_nobody_searches();

  /// Algorithm 2's half of the event mode: signals a sleeping worker.
  void signal_next_sleeper();

  /// Pops a sleeper and unparks it, unless a worker searches already.
  void wake_one();

  /// Takes worker `index` off sleepers. False if a waker was first.
  bool cancel_park(size_t index);

  /// Unparks every sleeper, counting them as searching; signals every
  /// worker waiting on its event.
  void wake_all();

  /// No worker runs a job: all are searching, parked or gone. May err
  /// towards true while a searcher has just taken a job (see the top).
  bool nobody_runs_a_job() const noexcept;

  /// After a full fence: is any job queued anywhere?
  bool work_visible() const noexcept;

  void drop_leftovers();

  const scheduler_config cfg;
  const size_t max_throughput;

  std::vector<std::unique_ptr<worker>> workers;

  detail::injection_queue<resumable*> injection;

  /// Searching (low half) and parked (high half) workers. Written by workers
  /// and wakers with seq_cst RMWs; loaded after a full fence by enqueuers.
  alignas(64) std::atomic<uint64_t> idle{0};

  /// Set once by stop(); read by workers when they run out of work.
  alignas(64) std::atomic<bool> stopping{false};

  /// Workers that left their loop (or never started).
  std::atomic<size_t> exited{0};

  /// Event mode: the worker the next external enqueue signals.
  std::atomic<size_t> next_signalled{0};

  /// Guards sleepers. Taken only to park, to wake and to stop.
  alignas(64) std::mutex sleepers_mtx;
  std::vector<size_t> sleepers;

  /// Guards the life cycle (start, stop); caller threads only.
  std::mutex lifecycle_mtx;
  enum class phase { idle, running, stopped } lifecycle = phase::idle;

  /// stop() with lifecycle_mtx held.
  void stop_locked();

  /// The worker running on this thread, if any (of any work_stealing).
  static inline thread_local worker* current_worker = nullptr;
};

class work_stealing::state::worker final : public execution_unit {
public:
  worker(state& parent, size_t index)
    : index_(index), parent_(parent), spin_budget_(parent.cfg.spin_attempts) {
    // xorshift needs a nonzero seed; distinct ones spread the victims.
    rng_ = 0x9E37'79B9'7F4A'7C15u * (index + 1);
  }

  void exec_later(resumable* job) override {
    if (current_worker == this)
      parent_.push_local(*this, job);
    else
      parent_.push_injected(job); // Called from elsewhere: stay correct.
  }

  void exec_later_ref(resumable* job) override {
    if (current_worker == this && job == held_) {
      held_ = nullptr; // Its reference goes with it.
      parent_.push_local(*this, job);
      return;
    }
    job->ref_resumable();
    exec_later(job);
  }

  bool has_private_work() const noexcept override {
    return next_job != nullptr || !later.empty();
  }

  /// Moves next_job and the later queue onto the deque, where thieves find
  /// them, and wakes a worker to take them.
  void share_private_work() override {
    if (current_worker != this || !has_private_work())
      return;
    if (next_job != nullptr)
      deque.push(std::exchange(next_job, nullptr));
    for (; !later.empty(); later.pop_front())
      deque.push(later.front());
    parent_.wake_one_if_nobody_searches();
  }

  /// Drops the reference kept from the last job that blocked.
  void release_held() noexcept {
    if (auto* job = std::exchange(held_, nullptr))
      job->deref_resumable();
  }

  state& parent() const noexcept {
    return parent_;
  }

  /// The thread body.
  void run();

  /// Thieves steal from it; the owner pushes and pops.
  detail::chase_lev_deque<resumable*> deque;

  /// Unparked by wakers and stop(); parked by the owner.
  detail::parker parker;

  /// Event mode (Algorithms 1 and 2): the owner waits on `cv` with
  /// `sleeping` set; external enqueuers and stop() signal it. Both fields
  /// under `mtx`.
  struct event {
    std::mutex mtx;
    std::condition_variable cv;
    bool sleeping = false;
  } event;

  /// Written by the owner only.
  detail::worker_counters counters;

  /// Written by start(), joined by stop(): controlling thread only.
  std::thread thread;

  /// The job to run next; owner only (see the top of this file).
  resumable* next_job = nullptr;

  /// Jobs taken in a row from next_job; owner only.
  uint32_t slot_runs = 0;

  /// Jobs that asked to run again (resume_later); owner only.
  std::deque<resumable*> later;

private:
  std::optional<resumable*> next_local();
  std::optional<resumable*> search();
  std::optional<resumable*> spin();
  std::optional<resumable*> poll_tiers();
  std::optional<resumable*> steal_from_random_victim();
  std::optional<resumable*> steal_round();
  void leave_searching();
  bool idle_step(bool& searching);
  bool exit_if_done(bool& searching);
  void park(bool& searching);
  void sleep_relaxed();
  void wait_for_event();
  void sleep_for(std::chrono::microseconds d);
  void run_job(resumable* job);

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
  state& parent_;
  uint64_t rng_;
  uint32_t tick_ = 0;
  /// Adaptive mode: rounds the next spin may take, between min_spin_rounds
  /// and spin_attempts. Doubles when spinning found work, halves when the
  /// worker had to park: under a steady trickle of work (a message every
  /// millisecond) spinning never pays, and an idle worker stops burning a
  /// core for it, while a burst keeps workers spinning between its jobs.
  size_t spin_budget_;
  /// Event and polling modes: the first tiers are spent; stays set until the
  /// worker has a job again (the last tier is a dead end).
  bool in_last_tier_ = false;
  /// Polling mode: looks in the relaxed tier, for its steal interval.
  size_t relaxed_looks_ = 0;
};

// -- state --------------------------------------------------------------------

work_stealing::state::state(const scheduler_config& config)
  : cfg(config), max_throughput(std::max<size_t>(config.max_throughput, 1)) {
  auto n = cfg.num_workers();
  workers.reserve(n);
  for (size_t i = 0; i < n; ++i)
    workers.push_back(std::make_unique<worker>(*this, i));
}

TROUPE_HOT void work_stealing::state::push_local(worker& w, resumable* job) {
  TROUPE_ASSERT(current_worker == &w); // next_job and the deque bottom are the owner's
  if (w.next_job == nullptr) {
    if (w.slot_runs < max_slot_runs || w.deque.size_approx() == 0) {
      w.next_job = job;
      return;
    }
    w.deque.push(job);
  } else {
    w.deque.push(std::exchange(w.next_job, job));
  }
  wake_one_if_nobody_searches();
}

TROUPE_HOT void work_stealing::state::push_injected(resumable* job) {
  if (!injection.push(job)) {
    job->deref_resumable(); // Stopped: drop it.
    return;
  }
  if (cfg.idle == idle_mode::event)
    signal_next_sleeper();
  else
    wake_one_if_nobody_searches();
}

void work_stealing::state::signal_next_sleeper() {
  auto& w = *workers[next_signalled.fetch_add(1, std::memory_order_relaxed) % workers.size()];
  std::lock_guard guard{w.event.mtx};
  if (w.event.sleeping)
    w.event.cv.notify_one();
}

TROUPE_HOT void work_stealing::state::wake_one_if_nobody_searches() {
  detail::full_fence(); // Order the push before the load of idle.
  auto x = idle.load(std::memory_order_relaxed);
  if (num_searching(x) == 0 && num_parked(x) > 0)
    wake_one();
}

TROUPE_HOT void work_stealing::state::wake_one() {
  size_t index;
  {
    std::lock_guard guard{sleepers_mtx};
    // Another enqueuer may have woken one since: a searcher will do.
    if (num_searching(idle.load(std::memory_order_relaxed)) != 0 || sleepers.empty())
      return;
    index = sleepers.back(); // The one parked last: its cache is warmest.
    sleepers.pop_back();
    idle.fetch_add(one_searching - one_parked, std::memory_order_seq_cst);
  }
  workers[index]->parker.unpark();
}

bool work_stealing::state::cancel_park(size_t index) {
  std::lock_guard guard{sleepers_mtx};
  auto i = std::find(sleepers.begin(), sleepers.end(), index);
  if (i == sleepers.end())
    return false;
  sleepers.erase(i);
  idle.fetch_add(one_searching - one_parked, std::memory_order_seq_cst);
  return true;
}

void work_stealing::state::wake_all() {
  std::vector<size_t> parked;
  {
    std::lock_guard guard{sleepers_mtx};
    parked.swap(sleepers);
    idle.fetch_add(parked.size() * (one_searching - one_parked), std::memory_order_seq_cst);
  }
  for (auto index : parked)
    workers[index]->parker.unpark();
  if (cfg.idle == idle_mode::event) {
    for (auto& w : workers) {
      std::lock_guard guard{w->event.mtx};
      w->event.cv.notify_one();
    }
  }
}

TROUPE_HOT bool work_stealing::state::nobody_runs_a_job() const noexcept {
  // An exiting worker adds to `exited` before it leaves `idle`: read in
  // this order, a worker is counted at least once.
  auto x = idle.load(std::memory_order_seq_cst);
  auto gone = exited.load(std::memory_order_seq_cst);
  return num_searching(x) + num_parked(x) + gone >= workers.size();
}

TROUPE_HOT bool work_stealing::state::work_visible() const noexcept {
  if (injection.size_approx() > 0)
    return true;
  for (auto& w : workers)
    if (w->deque.size_approx() > 0)
      return true;
  return false;
}

void work_stealing::state::drop_leftovers() {
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

// -- worker -------------------------------------------------------------------

TROUPE_HOT void work_stealing::state::worker::run() {
  current_worker = this;
  bool searching = false;
  for (;;) {
    auto job = next_local();
    if (!job) {
      if (!searching) {
        parent_.idle.fetch_add(one_searching, std::memory_order_seq_cst);
        searching = true;
        counters.begin_idle();
      }
      job = search();
      if (!job) {
        if (!idle_step(searching))
          break;
        continue;
      }
    }
    if (searching) {
      searching = false;
      counters.end_idle();
      in_last_tier_ = false;
      leave_searching();
    }
    run_job(*job);
  }
  counters.end_idle();
  current_worker = nullptr;
}

TROUPE_HOT std::optional<resumable*> work_stealing::state::worker::next_local() {
  TROUPE_ASSERT(current_worker == this);
  if (++tick_ == injection_interval) {
    tick_ = 0;
    if (auto job = parent_.injection.try_pop())
      return job;
  }
  if (next_job != nullptr) {
    ++slot_runs;
    return std::exchange(next_job, nullptr);
  }
  slot_runs = 0;
  if (auto job = deque.pop())
    return job;
  if (!later.empty()) {
    auto* job = later.front();
    later.pop_front();
    return job;
  }
  return parent_.injection.try_pop();
}

TROUPE_HOT std::optional<resumable*> work_stealing::state::worker::search() {
  if (parent_.cfg.idle == idle_mode::adaptive)
    return spin();
  if (in_last_tier_)
    return std::nullopt; // idle_step() looks and sleeps in the last tier.
  auto job = poll_tiers();
  if (!job) {
    in_last_tier_ = true;
    relaxed_looks_ = 0;
  }
  return job;
}

TROUPE_HOT std::optional<resumable*> work_stealing::state::worker::spin() {
  for (size_t round = 0; round < spin_budget_; ++round) {
    if (auto job = steal_round()) {
      spin_budget_ = std::min(spin_budget_ * 2, parent_.cfg.spin_attempts);
      return job;
    }
    detail::cpu_relax();
  }
  auto least = std::min(min_spin_rounds, parent_.cfg.spin_attempts);
  spin_budget_ = std::max(spin_budget_ / 2, least);
  return std::nullopt;
}

std::optional<resumable*> work_stealing::state::worker::poll_tiers() {
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

std::optional<resumable*> work_stealing::state::worker::steal_from_random_victim() {
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

TROUPE_HOT std::optional<resumable*> work_stealing::state::worker::steal_round() {
  if (auto job = parent_.injection.try_pop())
    return job;
  auto& ws = parent_.workers;
  auto n = ws.size();
  if (n < 2)
    return std::nullopt;
  auto first = next_random() % n;
  for (size_t k = 0; k < n; ++k) {
    auto& victim = *ws[(first + k) % n];
    // Looking costs two loads; steal() costs a fence.
    if (&victim == this || victim.deque.size_approx() == 0)
      continue;
    counters.steal_attempts.bump();
    if (auto job = victim.deque.steal()) {
      counters.steals.bump();
      return job;
    }
  }
  return std::nullopt;
}

void work_stealing::state::worker::sleep_for(std::chrono::microseconds d) {
  counters.parks.bump();
  std::this_thread::sleep_for(d);
  counters.wakeups.bump();
}

TROUPE_HOT void work_stealing::state::worker::leave_searching() {
  auto before = parent_.idle.fetch_sub(one_searching, std::memory_order_seq_cst);
  if (num_searching(before) != 1 || num_parked(before) == 0)
    return;
  // The last searcher: fan out if there is more work than this job.
  detail::full_fence();
  if (parent_.work_visible())
    parent_.wake_one_if_nobody_searches();
}

TROUPE_HOT bool work_stealing::state::worker::idle_step(bool& searching) {
  // An idle worker holds no reference. Dropping the last one may terminate
  // an unreachable actor, whose goodbyes land in our own queues: run them.
  if (held_ != nullptr) {
    release_held();
    if (next_job != nullptr || deque.size_approx() > 0 || !later.empty())
      return true;
  }
  if (!exit_if_done(searching))
    return false;
  switch (parent_.cfg.idle) {
    case idle_mode::adaptive:
      park(searching);
      break;
    case idle_mode::event:
      wait_for_event();
      break;
    case idle_mode::polling:
      sleep_relaxed();
      break;
  }
  return true;
}

TROUPE_HOT bool work_stealing::state::worker::exit_if_done(bool& searching) {
  auto& st = parent_;
  if (!st.stopping.load(std::memory_order_acquire) || !st.nobody_runs_a_job()
      || st.work_visible())
    return true;
  st.exited.fetch_add(1, std::memory_order_seq_cst);
  st.idle.fetch_sub(one_searching, std::memory_order_seq_cst);
  searching = false;
  st.wake_all(); // Sleepers see the same and leave as well.
  return false;
}

TROUPE_HOT void work_stealing::state::worker::park(bool& searching) {
  auto& st = parent_;
  {
    std::lock_guard guard{st.sleepers_mtx};
    st.sleepers.push_back(index_);
    st.idle.fetch_add(one_parked - one_searching, std::memory_order_seq_cst);
  }
  searching = false;
  detail::full_fence(); // Order the announcement before the re-check.
  if (st.work_visible()
      || (st.stopping.load(std::memory_order_relaxed) && st.nobody_runs_a_job())) {
    if (st.cancel_park(index_)) {
      searching = true;
      return;
    }
    // A waker took us off sleepers: our parker holds a token.
  }
  counters.parks.bump();
  parker.park();
  counters.wakeups.bump();
  searching = true; // The waker counted us as searching.
}

void work_stealing::state::worker::sleep_relaxed() {
  // The own queues were looked at by run(); steal, then sleep.
  const auto& tier = parent_.cfg.relaxed;
  if (tier.steal_interval > 0 && relaxed_looks_++ % tier.steal_interval == 0) {
    if (auto job = steal_from_random_victim()) {
      next_job = *job;
      return;
    }
  }
  if (tier.sleep_duration.count() > 0)
    sleep_for(tier.sleep_duration);
}

void work_stealing::state::worker::wait_for_event() {
  auto& st = parent_;
  bool timed_out = false;
  {
    std::unique_lock lock{event.mtx};
    event.sleeping = true;
    counters.parks.bump();
    while (st.injection.size_approx() == 0
           && !(st.stopping.load(std::memory_order_acquire) && st.nobody_runs_a_job())) {
      if (event.cv.wait_for(lock, st.cfg.wait_timeout) == std::cv_status::timeout) {
        timed_out = true;
        break;
      }
    }
    event.sleeping = false;
    counters.wakeups.bump();
  }
  // Signalled: run() takes the job from the injection queue. Timed out:
  // look for work the other workers pushed, which signals nobody.
  if (timed_out)
    if (auto job = steal_round())
      next_job = *job;
}

TROUPE_HOT void work_stealing::state::worker::run_job(resumable* job) {
  TROUPE_ASSERT(current_worker == this); // later and held_ are the owner's
  counters.jobs_run.bump();
  switch (job->resume(this, parent_.max_throughput)) {
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

// -- work_stealing ------------------------------------------------------------

work_stealing::work_stealing(const scheduler_config& cfg)
  : state_(std::make_unique<state>(cfg)) {
}

work_stealing::~work_stealing() {
  stop();
}

void work_stealing::start() {
  std::lock_guard guard{state_->lifecycle_mtx};
  if (state_->lifecycle != state::phase::idle)
    return;
  state_->lifecycle = state::phase::running;
  auto& ws = state_->workers;
  // Counts the workers that never ran as gone, so the started ones can leave
  // (they wait until every worker is idle or gone), then stops them.
  auto abandon = [this, &ws](size_t started) {
    state_->exited.fetch_add(ws.size() - started, std::memory_order_seq_cst);
    state_->stop_locked();
  };
  for (size_t i = 0; i < ws.size(); ++i) {
    auto* w = ws[i].get();
    try {
      w->thread = std::thread{[w] { w->run(); }};
    } catch (const std::system_error& ex) {
      abandon(i);
      // What failed, not just EAGAIN: the actor_system constructor passes it on.
      throw std::system_error(ex.code(), "troupe: work-stealing: cannot start worker thread "
                                           + std::to_string(i + 1) + " of "
                                           + std::to_string(ws.size()));
    } catch (...) {
      abandon(i);
      throw;
    }
    detail::name_thread(w->thread, "troupe-steal", i);
    if (state_->cfg.pin_workers)
      detail::pin_thread(w->thread, i);
  }
}

void work_stealing::stop() {
  std::lock_guard guard{state_->lifecycle_mtx};
  state_->stop_locked();
}

void work_stealing::state::stop_locked() {
  auto& st = *this;
  if (st.lifecycle == state::phase::stopped)
    return;
  if (st.lifecycle == state::phase::running) {
    st.stopping.store(true, std::memory_order_seq_cst);
    st.wake_all();
    for (auto& w : st.workers)
      if (w->thread.joinable())
        w->thread.join();
  }
  st.lifecycle = state::phase::stopped;
  st.drop_leftovers();
}

TROUPE_HOT void work_stealing::schedule(resumable* job) {
  auto* w = state::current_worker;
  if (w != nullptr && &w->parent() == state_.get())
    state_->push_local(*w, job);
  else
    state_->push_injected(job);
}

size_t work_stealing::num_workers() const noexcept {
  return state_->workers.size();
}

std::vector<worker_stats> work_stealing::stats() const {
  std::vector<worker_stats> result;
  result.reserve(state_->workers.size());
  for (auto& w : state_->workers)
    result.push_back(w->counters.snapshot());
  return result;
}

} // namespace troupe
