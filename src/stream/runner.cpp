#include "troupe/stream/detail/runner.hpp"

#include "../detail/system_internals.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/stream/detail/graph_messages.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <utility>

namespace troupe::stream::detail {

namespace {

/// The worker running a runner now, if any: wake() queues a runner it wakes
/// there, where the data it is woken for is still in the cache.
thread_local execution_unit* current_unit = nullptr;

/// Tuples one resume works through before it yields the worker.
constexpr size_t resume_budget = 1024;

} // namespace

runner::runner(std::shared_ptr<graph_state> graph, std::string name)
  : graph_(std::move(graph)), name_(std::move(name)) {}

runner::~runner() = default;

resumable::resume_result runner::resume(execution_unit* ctx, size_t) {
  auto* previous = current_unit;
  current_unit = ctx;
  // An RMW: it reads the last waker's exchange, so what that waker
  // published before waking us is visible to run_some.
  state_.exchange(running, std::memory_order_acq_rel);
  resumes_.store(resumes_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  auto result = resume_result::awaiting_message;
  for (;;) {
    auto s = run_some(resume_budget);
    if (s == step::more) {
      // Busy for longer: the runners it woke wait in this worker's private
      // slot, where no idle worker can take them; hand them over (as an
      // actor whose sends back up a mailbox does), so replicas spread.
      if (ctx != nullptr)
        ctx->share_private_work();
      result = resume_result::resume_later;
      break;
    }
    if (s == step::finished) {
      finished_.store(true, std::memory_order_release);
      graph_->runner_finished();
      result = resume_result::done;
      break;
    }
    // Idle: park, unless a wake-up came while we ran (then look again).
    uint8_t expected = running;
    if (state_.compare_exchange_strong(expected, parked, std::memory_order_acq_rel))
      break;
    state_.exchange(running, std::memory_order_acq_rel);
  }
  current_unit = previous;
  return result;
}

void runner::wake() {
  if (state_.exchange(notified, std::memory_order_acq_rel) != parked)
    return; // running: it looks again before it parks
  if (graph_->own_threads()) {
    signal_.store(1, std::memory_order_release);
    signal_.notify_one();
    return;
  }
  ref_resumable();
  if (current_unit != nullptr)
    current_unit->exec_later(this);
  else
    graph_->system().scheduler().schedule(this);
}

void runner::start() {
  ref_resumable();
  if (!graph_->own_threads()) {
    graph_->system().scheduler().schedule(this);
    return;
  }
  troupe::detail::system_internals::start_thread(graph_->system(), [this] { run_thread(); });
}

void runner::run_thread() {
  // The reference start() added is this thread's.
  for (;;) {
    auto result = resume(nullptr, resume_budget);
    if (result == resume_result::done)
      break;
    if (result == resume_result::awaiting_message) {
      signal_.wait(0, std::memory_order_acquire);
      signal_.store(0, std::memory_order_relaxed);
    }
  }
  deref_resumable();
}

void runner::fail_with(std::exception_ptr e) {
  auto what = troupe::detail::exception_what(std::move(e))
                .value_or("an exception not derived from std::exception");
  graph_->fail(error{errc::unhandled_exception, "stream node " + name_ + ": " + what});
}

// -- graph_state ---------------------------------------------------------------------

void graph_state::add(runner* r) {
  r->ref_resumable();
  runners_.push_back(r);
}

void graph_state::add_external(waker* w) {
  std::lock_guard guard{mtx_};
  externals_.push_back(w);
}

void graph_state::add_member(waker* w, bool finishes) {
  add_external(w);
  members_.push_back(w);
  if (finishes)
    ++finishing_members_;
}

void graph_state::remove_external(waker* w) {
  std::vector<runner*> release;
  {
    std::lock_guard guard{mtx_};
    std::erase(externals_, w);
    if (externals_.empty() && finished_)
      release = std::move(runners_);
  }
  for (auto* r : release)
    r->deref_resumable();
}

void graph_state::start(strong_actor_ptr coordinator) {
  std::vector<runner*> all;
  {
    std::lock_guard guard{mtx_};
    coordinator_ = std::move(coordinator);
    live_.store(runners_.size() + finishing_members_, std::memory_order_release);
    // Our own references: the last runner may finish and release the
    // graph's before this loop ends.
    all = runners_;
    for (auto* r : all)
      r->ref_resumable();
  }
  for (auto* r : all) {
    r->start();
    r->deref_resumable();
  }
  // An actor member takes no message of the graph's before this one, so
  // it sees its rings wired.
  for (auto* w : members_)
    w->wake();
}

void graph_state::fail(error reason) {
  std::vector<runner*> all;
  {
    std::lock_guard guard{mtx_};
    if (failed_.load(std::memory_order_relaxed))
      return;
    reason_ = std::move(reason);
    failed_.store(true, std::memory_order_release);
    all = runners_;
    for (auto* r : all)
      r->ref_resumable();
    // Inputs unregister under the lock before they go away.
    for (auto* w : externals_)
      w->wake();
  }
  // wake() is an RMW the runner's next one reads: it sees failed_.
  for (auto* r : all) {
    r->wake();
    r->deref_resumable();
  }
}

error graph_state::reason() const {
  std::lock_guard guard{mtx_};
  return reason_;
}

bool graph_state::working() const {
  std::lock_guard guard{mtx_};
  return !finished_ && std::any_of(runners_.begin(), runners_.end(),
                                   [](const runner* r) { return r->working(); });
}

uint64_t graph_state::resumes() const {
  std::lock_guard guard{mtx_};
  uint64_t total = 0;
  for (auto* r : runners_)
    total += r->resumes();
  return total;
}

void graph_state::runner_finished() {
  if (live_.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  strong_actor_ptr coordinator;
  error reason;
  bool exited = false;
  std::vector<runner*> all;
  {
    std::lock_guard guard{mtx_};
    coordinator = std::move(coordinator_);
    reason = reason_;
    finished_ = true;
    exited = coordinator_exited_;
    // Every runner has finished; those still returning from resume hold a
    // reference of their own. Releasing ours breaks the runner -> graph ->
    // runner cycle, once no input can touch the rings (and through them
    // the runners) any more: else the last input to go releases them.
    if (externals_.empty())
      all = std::move(runners_);
  }
  if (coordinator && exited)
    coordinator->get()->release_exit_notice(nullptr);
  else if (coordinator)
    coordinator->get()->enqueue(make_mailbox_element(nullptr, message_id::make(),
                                                     make_message(graph_done_atom{},
                                                                  std::move(reason))),
                                nullptr);
  for (auto* r : all)
    r->deref_resumable();
}

bool graph_state::coordinator_exited(error reason) {
  {
    std::lock_guard guard{mtx_};
    if (finished_)
      return false;
    coordinator_exited_ = true;
  }
  fail(std::move(reason));
  return true;
}

} // namespace troupe::stream::detail
