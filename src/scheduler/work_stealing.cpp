// The work-stealing worker loop and scheduler. What an idle worker does is
// its idle policy's: idle/adaptive (the default), idle/event and
// idle/polling; the loop is instantiated once per policy, chosen from
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

// -- core ---------------------------------------------------------------------

namespace detail::stealing {

namespace {

/// max-threads, or else one worker per core of the topology.
size_t workers_on(const scheduler_config& cfg, const topology& topo) {
  if (cfg.max_threads > 0)
    return cfg.max_threads;
  return std::min(topo.num_cores(), scheduler_config::max_threads_limit());
}

/// Affinity placement: counts a wake of `job` by a job of worker `waker`,
/// not its last; true once that worker woke it follow_after_wakes times in a
/// row. An actor that only one other worker's jobs keep waking talks to them
/// across cores on every message (a hub's client, half of a pair a steal
/// split): it follows them there, as under local placement.
bool follows(resumable& job, size_t waker) noexcept {
  // Waker index + 1 above, streak in the low 8 bits (see remote_wakes()).
  auto from = static_cast<uint32_t>(waker + 1) << 8;
  auto x = job.remote_wakes();
  uint32_t n = (x & ~0xFFu) == from ? (x & 0xFFu) + 1 : 1;
  if (n < follow_after_wakes) {
    job.set_remote_wakes(from | n);
    return false;
  }
  job.set_remote_wakes(0);
  return true;
}

} // namespace

locality_state::locality_state(const scheduler_config& cfg)
  : topo(topology::load(cfg.topology)),
    layout(topo.layout(workers_on(cfg, topo))),
    affinity(cfg.placement == locality_placement::affinity),
    pinned(cfg.pin_workers || std::any_of(layout.workers.begin(), layout.workers.end(),
                                          [](const worker_place& w) {
                                            return w.levels.size() > 1;
                                          })),
    polling(std::make_unique<node_polling[]>(topo.num_numa_nodes())) {
}

core::core(const scheduler_config& config)
  : core(config,
         config.policy == "locality" ? std::make_unique<locality_state>(config) : nullptr) {
}

core::core(const scheduler_config& config, std::unique_ptr<locality_state> loc)
  : worker_pool(loc ? "locality" : "work-stealing", "troupe-steal",
                loc ? loc->layout.workers.size() : config.num_workers(), config.pin_workers),
    cfg(config),
    max_throughput(std::max<size_t>(config.max_throughput, 1)),
    locality(std::move(loc)) {
}

int core::cpu_of(size_t index) const noexcept {
  // On this machine's topology each worker runs on its own core.
  if (locality == nullptr || !locality->pinned)
    return -1;
  return locality->layout.workers[index].cpu;
}

core::placement core::placement_of(resumable* job, const worker* current) noexcept {
  auto last = job->last_worker();
  if (last == resumable::never_ran)
    return {}; // New actors start where they were spawned.
  placement result;
  if (last == resumable::new_hub) {
    // Only its first start is spread: where it runs from then on is the
    // placement's business. If the push fails, it starts here.
    job->set_last_worker(resumable::never_ran);
    result = {workers[locality->next_hub_worker()].get(), true};
  } else if (locality->affinity && last < workers.size()) {
    auto* home = workers[last].get();
    if (home == current) {
      if (job->remote_wakes() != 0)
        job->set_remote_wakes(0); // Woken at home: the streak ends.
      return {};
    }
    if (home->public_backlog() >= placed_backlog_limit)
      return {}; // It would wait behind them.
    if (current == nullptr || !follows(*job, current->index()))
      result.target = home;
    return result;
  }
  if (result.target == current)
    result.target = nullptr;
  return result;
}

core::~core() = default;

void core::never_started(size_t started) {
  // Counts the workers that never ran as gone, so the started ones can leave
  // (they wait until every worker is idle or gone).
  exited.fetch_add(workers.size() - started, std::memory_order_seq_cst);
}

void core::drop_leftovers() {
  // Only jobs from other threads that raced with stop() can be left here.
  // An outside thread that places a job on an affinity queue checks
  // `injection.closed()` afterwards (both under the queue's mutex): pushed
  // before the close, the job is dropped below; after it, by that thread.
  // The fence pairs with that thread's, should it have seen `stopping` unset.
  detail::full_fence();
  for (auto* job : injection.close())
    job->deref_resumable();
  drop_placed();
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

// Algorithm 1 of Barghi and Karsten, one round of it per call: the levels
// around this worker nearest first; a level whose victims all look empty
// (their approximate sizes, two loads each, no fence) is skipped at once;
// on a level of the own NUMA node where a single victim has work and more
// than half of the level's workers poll the node, most of them back off
// for this round, so that the one deque isn't hammered by every thief
// (those that go on are about half the level's workers: the seed's bound,
// made random so that somebody always steals); the first victim that has
// work, from a random one on, is tried. Where it differs from the paper:
// the single-victim test looks at the level's ring, not the whole subtree
// (nearer rings were just found empty); remote levels skip empty deques
// too (the paper picks a random victim there), and a round visits each
// level once instead of counting attempts per level (the caller's rounds
// repeat it).
TROUPE_HOT std::optional<resumable*> worker::steal_nearest() {
  auto& loc = *parent_.locality;
  // The thief counts itself as polling its node from the first level with
  // work on: a round that finds every deque empty writes no shared line.
  struct polling_guard {
    std::atomic<uint32_t>& count;
    bool joined = false;
    uint32_t join() noexcept {
      if (!joined) {
        joined = true;
        return count.fetch_add(1, std::memory_order_relaxed) + 1;
      }
      return count.load(std::memory_order_relaxed);
    }
    ~polling_guard() {
      if (joined)
        count.fetch_sub(1, std::memory_order_relaxed);
    }
  } polling{loc.polling[place->numa_node].count};
  auto& ws = parent_.workers;
  auto& levels = place->levels;
  for (size_t lv = 0; lv < levels.size(); ++lv) {
    auto& victims = levels[lv].workers;
    auto n = victims.size();
    if (n == 0)
      continue;
    auto first = next_random() % n;
    size_t with_work = 0;
    size_t found = n;
    for (size_t k = 0; k < n && with_work < 2; ++k) {
      auto i = (first + k) % n;
      if (ws[victims[i]]->has_stealable_work(*this)) {
        if (with_work++ == 0)
          found = i;
      }
    }
    if (with_work == 0)
      continue;
    auto p = polling.join();
    if (with_work == 1 && levels[lv].same_numa_node) {
      auto half = levels[lv].subtree_workers / 2;
      if (p > half && next_random() % p >= half)
        return std::nullopt;
    }
    // The first was seen with work just now; the others are looked at
    // again, as they may have been emptied meanwhile.
    for (size_t k = 0; k < n; ++k) {
      auto& victim = *ws[victims[(found + k) % n]];
      if (k > 0 && !victim.has_stealable_work(*this))
        continue;
      counters.steal_attempts.bump();
      if (auto job = victim.steal_from(*this)) {
        level_steals[lv].bump();
        return stole(job);
      }
    }
  }
  return std::nullopt;
}

void core::drop_placed() noexcept {
  for (auto& w : workers)
    if (w->affinity != nullptr)
      while (auto job = w->affinity->try_pop())
        (*job)->deref_resumable();
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

  /// The state of the policy cfg.idle_mode names.
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
    policy.after_injection();
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
    if constexpr (requires { policy.parked(size_t{}); })
      if (!hub && policy.parked(target->index()))
        return false;
    if (!target->affinity->try_push(job))
      return false;
    policy.after_push_to(target->index());
    return true;
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
  if (owner_.locality != nullptr && owner_.place_elsewhere(job, this))
    return;
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
  if (owner_.locality != nullptr)
    job->set_last_worker(static_cast<uint32_t>(index_));
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
