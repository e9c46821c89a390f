#include "troupe/actor_system.hpp"

#include "troupe/detail/allocator.hpp"
#include "troupe/detail/parker.hpp"
#include "troupe/detail/timer_service.hpp"
#include "troupe/logger.hpp"

#include "detail/due_deliveries.hpp"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

namespace troupe {

namespace detail {

void free_actor_block(actor_control_block* ctrl) noexcept {
  ctrl->~actor_control_block();
  ::operator delete(static_cast<void*>(ctrl), std::align_val_t{actor_block_offset});
}

void destroy_actor(abstract_actor* ptr) noexcept {
  ptr->~abstract_actor();
}

} // namespace detail

namespace {

/// Each line of `xs` on a line of its own, indented.
std::string join_lines(const std::vector<std::string>& xs) {
  std::string out;
  for (auto& x : xs)
    out += "\n  " + x;
  return out;
}

/// The exit reason of a blocking actor whose body threw `eptr`.
error reason_of(std::exception_ptr eptr) {
  try {
    std::rethrow_exception(eptr);
  } catch (const actor_exited& e) {
    return e.reason();
  } catch (...) {
    return detail::exit_reason_of(eptr);
  }
}

} // namespace

struct actor_system::thread_registry {
  std::mutex mtx;
  std::vector<std::thread> threads;
  std::vector<std::thread::id> finished;

  /// Joins threads that said they are done. Called with mtx held.
  void reap() {
    for (auto id : finished) {
      auto i = std::find_if(threads.begin(), threads.end(),
                            [id](const std::thread& t) { return t.get_id() == id; });
      if (i != threads.end()) {
        i->join();
        threads.erase(i);
      }
    }
    finished.clear();
  }
};

actor_system::actor_system(const actor_system_config& cfg) : actor_system(cfg, custom_setup{}) {}

actor_system::actor_system(const actor_system_config& cfg, custom_setup setup)
  : cfg_(cfg),
    max_throughput_(std::max<size_t>(cfg.scheduler.max_throughput, 1)),
    scheduler_(setup.scheduler ? std::move(setup.scheduler) : scheduler::make(cfg.scheduler)),
    due_(setup.clock ? nullptr : std::make_unique<detail::due_deliveries>(*scheduler_)),
    clock_(setup.clock ? std::shared_ptr<actor_clock>{std::move(setup.clock)}
                       : std::make_shared<detail::timer_service>()),
    launch_detached_(setup.launch_detached ? std::move(setup.launch_detached)
                                           : [this](scheduled_actor* self) {
                                               launch_on_thread(self);
                                             }),
    threads_(std::make_unique<thread_registry>()) {
  logger::set_level(cfg.logger.verbosity);
  detail::configure_allocator();
  clock_->start();
  scheduler_->start();
  for (auto& [name, make] : cfg.modules())
    modules_.push_back(make(*this));
  for (auto& m : modules_)
    m->start();
}

actor_system_module* actor_system::module(std::string_view name) const noexcept {
  for (auto& m : modules_)
    if (m->name() == name)
      return m.get();
  return nullptr;
}

actor_system::~actor_system() {
  await_end();
  // Modules before the clock: their threads may still deliver to actors.
  for (auto i = modules_.rbegin(); i != modules_.rend(); ++i)
    (*i)->stop();
  // Timers first: their actions enqueue into actors and schedule them.
  clock_->stop();
  scheduler_->stop();
  std::vector<std::thread> threads;
  {
    std::lock_guard guard{threads_->mtx};
    threads.swap(threads_->threads);
    threads_->finished.clear();
  }
  for (auto& t : threads)
    t.join();
  if (shutting_down()) {
    auto dropped = dead_letters() - dead_letters_at_shutdown_.load(std::memory_order_relaxed);
    if (dropped > 0)
      TROUPE_LOG_WARNING("actor_system",
                         "shutdown dropped {} messages (counted as dead letters)", dropped);
  }
}

void actor_system::await_end() {
  // Named actors are kept for lookups, not for ever.
  names_.clear();
  using clock = std::chrono::steady_clock;
  using namespace std::chrono_literals;
  const auto grace = cfg_.shutdown.grace_period;
  const auto report_interval = cfg_.shutdown.report_interval;
  // While something can still run, look this often whether it still can.
  const timespan poll = std::clamp<timespan>(grace, 10ms, 1s);
  // A timer's message on its way from the clock to a mailbox shows in no
  // snapshot, nor does a message sent by an actor seen later to an actor
  // seen earlier: quiescence is two snapshots at least this far apart.
  const timespan quiet_needed = std::max<timespan>(grace, 10ms);
  auto next_report = clock::now() + report_interval;
  auto progress = messages_taken();
  std::optional<clock::time_point> quiet_since;
  timespan wait = poll;
  while (!await_all_actors_done(wait)) {
    auto now = clock::now();
    auto what = activity();
    auto taken = messages_taken();
    if (!what.empty() || taken != progress) {
      progress = taken;
      quiet_since.reset();
      wait = poll;
      if (!what.empty() && now >= next_report) {
        next_report = now + report_interval;
        TROUPE_LOG_WARNING("actor_system",
                           "waiting for {} actors: something inside the system can still "
                           "make one run; once nothing can and no message came for {} "
                           "(troupe.shutdown.grace-period), they are stopped:{}",
                           running_actors(), grace, join_lines(what));
      }
      continue;
    }
    // Quiescent: only a message from outside can make an actor run now.
    if (!quiet_since) {
      quiet_since = now;
      wait = quiet_needed;
      continue;
    }
    if (auto quiet = now - *quiet_since; quiet < quiet_needed) {
      wait = quiet_needed - quiet;
      continue;
    }
    TROUPE_LOG_WARNING("actor_system",
                       "{} actors are alive, but nothing inside the system can make them "
                       "run and none has run for the grace period of {}; stopping them "
                       "(troupe.shutdown.grace-period):{}",
                       running_actors(), grace, join_lines(live_actor_report()));
    shutdown();
    // A handler that never returns can't be stopped: say who, and wait.
    while (!await_all_actors_done(report_interval)) {
      shutdown(); // reaches actors spawned meanwhile
      TROUPE_LOG_WARNING("actor_system",
                         "shutdown still waits for {} actors; a handler or a blocking "
                         "actor that ignores the shutdown keeps it waiting:{}",
                         running_actors(), join_lines(live_actor_report()));
    }
    break;
  }
}

std::vector<std::string> actor_system::activity() const {
  // Listed at most this many actors; a count says how many more.
  constexpr size_t max_listed = 20;
  std::vector<std::string> result;
  size_t unlisted = 0;
  for (auto& shard : registry_) {
    std::lock_guard guard{shard.mtx};
    for (auto* x = shard.head; x != nullptr; x = x->registry_next_) {
      if (!x->active())
        continue;
      if (result.size() == max_listed) {
        ++unlisted;
        continue;
      }
      result.push_back("actor#" + std::to_string(x->id()) + " (" + x->name()
                       + "): " + x->wait_report());
    }
  }
  if (unlisted > 0)
    result.push_back("and " + std::to_string(unlisted) + " more active actors");
  if (auto n = clock_->pending(); n > 0)
    result.push_back(std::to_string(n)
                     + " pending timers (delayed messages, request timeouts, idle handlers)");
  for (auto& m : modules_)
    for (auto& x : m->activity())
      result.push_back(std::string{m->name()} + ": " + x);
  return result;
}

void actor_system::shutdown(timespan grace) {
  if (grace == infinite || grace < timespan::zero())
    throw std::invalid_argument("troupe: shutdown(grace) needs a finite, non-negative grace");
  if (grace == timespan::zero()) {
    shutdown();
    return;
  }
  // The timer counts as activity: the destructor waits for it.
  auto id = clock_->schedule(clock_->now() + grace, [this] { shutdown(); });
  if (id == detail::invalid_timer_id)
    shutdown(); // the clock has stopped: so has the system
}

uint64_t actor_system::messages_taken() const {
  uint64_t total = 0;
  for (auto& shard : registry_) {
    std::lock_guard guard{shard.mtx};
    for (auto* x = shard.head; x != nullptr; x = x->registry_next_)
      total += x->messages_taken();
  }
  return total;
}

void actor_system::await_all_actors_done() {
  std::unique_lock guard{running_mtx_};
  running_cv_.wait(guard, [this] { return running_.load(std::memory_order_acquire) == 0; });
}

bool actor_system::await_all_actors_done(timespan timeout) {
  std::unique_lock guard{running_mtx_};
  auto done = [this] { return running_.load(std::memory_order_acquire) == 0; };
  if (timeout == infinite) {
    running_cv_.wait(guard, done);
    return true;
  }
  return running_cv_.wait_until(guard, std::chrono::steady_clock::now() + timeout, done);
}

void actor_system::shutdown() {
  if (!shutting_down_.exchange(true, std::memory_order_acq_rel))
    dead_letters_at_shutdown_.store(dead_letters(), std::memory_order_relaxed);
  auto timers = clock_->stop();
  // Strong references taken under the locks, so that no listed actor is
  // destroyed before its exit is enqueued; never one whose count reached 0.
  // A later call reaches only actors spawned since.
  std::vector<strong_actor_ptr> targets;
  for (auto& shard : registry_) {
    std::lock_guard guard{shard.mtx};
    for (auto* x = shard.head; x != nullptr; x = x->registry_next_)
      if (!x->stop_sent_ && x->ctrl()->try_strong_ref()) {
        x->stop_sent_ = true;
        targets.emplace_back(x->ctrl(), false);
      }
  }
  if (targets.empty() && timers == 0)
    return;
  TROUPE_LOG_INFO("actor_system", "shutdown: stopping {} actors, dropped {} pending timers",
                  targets.size(), timers);
  for (auto& x : targets)
    x->get()->enqueue(
      make_mailbox_element(nullptr, message_id::make_system(message_priority::urgent),
                           make_message(exit_msg{actor_addr{},
                                                 error{exit_reason::system_shutdown}})),
      nullptr);
}

std::vector<std::string> actor_system::live_actor_report() const {
  std::vector<std::string> result;
  for (auto& shard : registry_) {
    std::lock_guard guard{shard.mtx};
    for (auto* x = shard.head; x != nullptr; x = x->registry_next_)
      result.push_back("actor#" + std::to_string(x->id()) + " (" + x->name()
                       + "): " + x->wait_report());
  }
  return result;
}

void actor_system::list_actor(abstract_actor* x) {
  auto& shard = registry_[x->id() % registry_shards];
  std::lock_guard guard{shard.mtx};
  x->listed_ = true;
  x->registry_prev_ = nullptr;
  x->registry_next_ = shard.head;
  if (shard.head != nullptr)
    shard.head->registry_prev_ = x;
  shard.head = x;
}

void actor_system::unlist_actor(abstract_actor* x) noexcept {
  auto& shard = registry_[x->id() % registry_shards];
  std::lock_guard guard{shard.mtx};
  if (x->registry_prev_ != nullptr)
    x->registry_prev_->registry_next_ = x->registry_next_;
  else
    shard.head = x->registry_next_;
  if (x->registry_next_ != nullptr)
    x->registry_next_->registry_prev_ = x->registry_prev_;
  x->registry_prev_ = x->registry_next_ = nullptr;
}

void actor_system::register_actor() noexcept {
  running_.fetch_add(1, std::memory_order_relaxed);
}

void actor_system::unregister_actor() noexcept {
  if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::lock_guard guard{running_mtx_};
    running_cv_.notify_all();
  }
}

void actor_system::add_dead_letter(const mailbox_element& elem) noexcept {
  dead_letters_.fetch_add(1, std::memory_order_relaxed);
  TROUPE_LOG_DEBUG("actor_system", "dead letter: {}", to_string(elem.payload));
}

void actor_system::add_dead_letter(const message& msg, std::string_view why) noexcept {
  dead_letters_.fetch_add(1, std::memory_order_relaxed);
  TROUPE_LOG_DEBUG("actor_system", "dead letter ({}): {}", why, to_string(msg));
}

void actor_system::start_thread(std::function<void()> job) {
  std::lock_guard guard{threads_->mtx};
  threads_->reap();
  threads_->threads.emplace_back([this, job = std::move(job)] {
    job();
    std::lock_guard guard{threads_->mtx};
    threads_->finished.push_back(std::this_thread::get_id());
  });
}

void actor_system::deliver_due(strong_actor_ptr dest, mailbox_element_ptr elem) {
  auto* target = dest->get();
  if (due_ != nullptr && target->runs_on_workers()) {
    due_->push(std::move(dest), std::move(elem));
    return;
  }
  // The clock's thread must not wait for room in a muting mailbox: every
  // timer would wait.
  detail::no_push_wait over_the_bound;
  target->enqueue(std::move(elem), nullptr);
}

void actor_system::launch_scheduled(scheduled_actor* self, spawn_options os) {
  list_actor(self);
  if (!has_option(os, hidden)) {
    self->registered_ = true;
    register_actor();
  }
  if (has_option(os, detached)) {
    launch_detached_(self);
    return;
  }
  if (has_option(os, hub))
    self->set_last_worker(resumable::new_hub);
  self->ref_resumable();
  scheduler_->schedule(self);
}

void actor_system::launch_on_thread(scheduled_actor* self) {
  self->set_detached(true);
  // The thread holds a strong reference only while the actor has work, as
  // a scheduler does: between its own resume calls it holds none, so an
  // idle detached actor without handles is cleaned up as unreachable.
  // A sender that unblocks the actor hands the thread a reference (it holds
  // one itself while it enqueues); the actor's destruction wakes the thread
  // with `gone` set, and the thread then no longer touches the actor.
  struct detached_state {
    detail::parker wakeup;
    std::atomic<bool> gone{false};
  };
  struct destruction_signal {
    // Clang 14 (the fuzz build) can't make_shared an aggregate.
    explicit destruction_signal(std::shared_ptr<detached_state> x) : state(std::move(x)) {}
    std::shared_ptr<detached_state> state;
    ~destruction_signal() {
      state->gone.store(true, std::memory_order_release);
      state->wakeup.unpark();
    }
  };
  auto state = std::make_shared<detached_state>();
  auto* ctrl = self->ctrl();
  // Read by senders only after they unblocked the actor, which happens
  // after this assignment (the mailbox's CAS orders the two). Destroyed
  // with the actor, which fires the signal.
  self->wake_detached = [ctrl, signal = std::make_shared<destruction_signal>(state)] {
    ctrl->strong_ref();
    signal->state->wakeup.unpark();
  };
  // The thread's reference for the first resume.
  self->ref_resumable();
  start_thread([this, self, ctrl, state] {
    outside_unit unit{*scheduler_};
    for (;;) {
      auto res = self->resume(&unit, max_throughput_);
      if (res == resumable::resume_result::resume_later)
        continue;
      // May be the last reference: then the actor is destroyed right here.
      ctrl->strong_deref();
      if (res == resumable::resume_result::done)
        return;
      state->wakeup.park();
      if (state->gone.load(std::memory_order_acquire))
        return;
    }
  });
}

void actor_system::launch_blocking(const strong_actor_ptr& ptr, spawn_options os,
                                   std::function<void()> body) {
  auto* self = static_cast<blocking_actor*>(ptr->get());
  list_actor(self);
  if (!has_option(os, hidden)) {
    self->registered_ = true;
    register_actor();
  }
  start_thread([ptr, self, body = std::move(body)] {
    error reason;
    try {
      body();
      if (self->quit_requested_)
        reason = self->quit_reason_;
      else
        reason = self->shut_down() ? exit_reason::system_shutdown : exit_reason::normal;
    } catch (...) {
      reason = reason_of(std::current_exception());
    }
    self->finish(std::move(reason));
  });
}

} // namespace troupe
