#include "troupe/scheduled_actor.hpp"

#include "detail/system_internals.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/detail/assert.hpp"
#include "troupe/detail/deferred_flush.hpp"
#include "troupe/detail/hot.hpp"
#include "troupe/logger.hpp"

#include <algorithm>
#include <stdexcept>

namespace troupe {

// -- default handlers ----------------------------------------------------------

detail::handler_result print_and_drop(scheduled_actor* self, message& msg) {
  TROUPE_LOG_WARNING("actor", "actor#{} has no handler for {}", self->id(), to_string(msg));
  return drop(self, msg);
}

detail::handler_result drop(scheduled_actor* self, message& msg) {
  return detail::handler_result{
    detail::result_kind::error,
    {},
    error{errc::unexpected_message, "actor#" + std::to_string(self->id())
                                      + " has no handler for " + to_string(msg.types())}};
}

namespace {

detail::handler_result skip_handler(scheduled_actor*, message&) {
  return detail::handler_result{detail::result_kind::skip, {}, {}};
}

} // namespace

// -- construction --------------------------------------------------------------

scheduled_actor::scheduled_actor(actor_config& cfg)
  : local_actor(cfg), default_handler_(print_and_drop) {}

scheduled_actor::~scheduled_actor() = default;

void scheduled_actor::set_default_handler(skip_t) {
  default_handler_ = skip_handler;
}

behavior scheduled_actor::initial_behavior() {
  return {};
}

// -- enqueue and resume ----------------------------------------------------------

TROUPE_HOT void scheduled_actor::enqueue(mailbox_element_ptr elem, execution_unit* ctx) {
  if (!push_to_mailbox(elem, ctx))
    return;
  // We were blocked: this sender schedules us (with a reference for the
  // scheduler, dropped after the resume that blocks us again).
  if (detached_) {
    wake_detached();
    return;
  }
  if (ctx != nullptr) {
    ctx->exec_later_ref(this);
    return;
  }
  ref_resumable();
  system().scheduler().schedule(this);
}

namespace {

/// Names the actor a worker runs, for the mailboxes it sends to, and
/// holds back network writes until the actor yields (deferred_flush.hpp).
struct running_guard {
  explicit running_guard(local_actor* self) noexcept {
    detail::running_actor = self;
    detail::flushes_deferred = true;
  }
  ~running_guard() {
    detail::running_actor = nullptr;
    detail::flushes_deferred = false;
    if (detail::has_deferred_flushes) [[unlikely]]
      detail::run_deferred_flushes();
  }
};

} // namespace

TROUPE_HOT resumable::resume_result scheduled_actor::resume(execution_unit* ctx,
                                                      size_t max_throughput) {
  // A terminated actor's mailbox is closed: no push schedules it again.
  TROUPE_ASSERT(!terminated());
  context_ = ctx;
  // A detached actor has its thread to itself: it waits for room instead.
  running_guard running{detached_ ? nullptr : this};
  if (!initialized_) {
    initialized_ = true;
    initialize();
    if (terminated())
      return resume_result::done;
  }
  size_t handled = 0;
  while (handled < max_throughput) {
    auto* raw = mailbox_.pop();
    if (raw == nullptr) {
      if (mailbox_.try_block())
        return resume_result::awaiting_message;
      if (mailbox_.closed())
        return resume_result::done;
      continue;
    }
    mailbox_element_ptr elem{raw};
    after_pop();
    // Skipped (stashed) messages count too: one message per unit of
    // throughput is what lets a deterministic scheduler step one at a time.
    ++handled;
    consume(elem);
    if (terminated())
      return resume_result::done;
    // Muted: whoever drains the full mailbox schedules us again.
    if (mute_target_) [[unlikely]]
      if (try_mute())
        return resume_result::awaiting_message;
    // Jobs only this worker can run (its next slot, its later queue) must
    // not wait behind a mailbox that senders keep full: look every 64
    // messages and make room for them.
    if ((handled & 63) == 0 && ctx != nullptr && ctx->has_private_work())
      return resume_result::resume_later;
  }
  return resume_result::resume_later;
}

void scheduled_actor::initialize() {
  try {
    auto bhvr = initial_behavior();
    if (bhvr)
      become(std::move(bhvr));
  } catch (...) {
    on_exception(std::current_exception(), nullptr);
    return;
  }
  graveyard_.clear();
  finish_if_idle();
}

// -- back-pressure -------------------------------------------------------------------

void scheduled_actor::request_mute(abstract_actor* full) {
  if (detached_ || mute_target_)
    return;
  // Under pressure itself, it must keep draining its own mailbox: two full
  // actors sending to each other then never both wait.
  if (auto cap = mailbox_capacity(); cap != 0 && mailbox_.size() >= cap / 2)
    return;
  mute_target_ = strong_actor_ptr{full->ctrl()};
}

bool scheduled_actor::try_mute() {
  auto target = std::move(mute_target_);
  if (terminated())
    return false;
  // Release: whoever clears the flag and runs us sees all we did so far.
  // add_muted's fence orders the flag before our look at our own size.
  muted_.store(true, std::memory_order_release);
  // Whoever clears the flag runs us: if a sender did, we stop here.
  if (!target->get()->add_muted(self_ptr()))
    return !muted_.exchange(false, std::memory_order_acq_rel);
  // Our own mailbox filled up meanwhile: we must keep draining it, or two
  // actors muted on each other would both wait forever. Senders that push
  // past half from now on run us again (resume_if_pressed).
  if (auto cap = mailbox_capacity(); cap != 0 && mailbox_.size() >= cap / 2)
    return !muted_.exchange(false, std::memory_order_acq_rel);
  return true;
}

void scheduled_actor::unmute() {
  ref_resumable();
  system().scheduler().schedule(this);
}

// -- behavior ----------------------------------------------------------------------

void scheduled_actor::become(behavior bhvr) {
  if (!bhvr_stack_.empty()) {
    graveyard_.push_back(std::move(bhvr_stack_.back()));
    bhvr_stack_.pop_back();
  }
  if (bhvr)
    bhvr_stack_.push_back(std::move(bhvr));
  behavior_changed_ = true;
}

void scheduled_actor::become(keep_behavior_t, behavior bhvr) {
  if (bhvr)
    bhvr_stack_.push_back(std::move(bhvr));
  behavior_changed_ = true;
}

void scheduled_actor::unbecome() {
  if (!bhvr_stack_.empty()) {
    graveyard_.push_back(std::move(bhvr_stack_.back()));
    bhvr_stack_.pop_back();
  }
  behavior_changed_ = true;
}

void scheduled_actor::replay_stash(bool older_awaits) {
  behavior_changed_ = false;
  // A response to a request awaited before the last message may have been
  // deferred (skipped for the newer one on top): look at all of it once
  // more. Responses to awaits begun since cannot be among them.
  if (older_awaits && !awaited_.empty())
    mailbox_.reveal_deferred();
  if (!stash_.empty())
    mailbox_.prepend(std::move(stash_));
}

void scheduled_actor::finish_if_idle() {
  if (quit_requested_) {
    cleanup(std::move(quit_reason_), context_);
    return;
  }
  if (bhvr_stack_.empty() && pending_live_ == 0)
    cleanup(exit_reason::normal, context_);
}

// -- consuming messages --------------------------------------------------------------

TROUPE_HOT scheduled_actor::consume_result scheduled_actor::consume(mailbox_element_ptr& elem) {
  current_element_ = elem.get();
  if (idle_ != nullptr) [[unlikely]]
    if (!elem->mid.is_system() || !elem->payload.match_elements<detail::idle_timeout_msg>())
      idle_->last_activity = system().clock().now();
  auto awaits_before = awaited_.size();
  consume_result result;
  try {
    if (elem->mid.is_response())
      result = handle_response(elem);
    else if (elem->mid.is_system())
      result = handle_system_message(elem);
    else if (!awaited_.empty())
      result = consume_result::skipped;
    else
      result = invoke_behavior(elem);
  } catch (...) {
    current_element_ = nullptr;
    graveyard_.clear();
    on_exception(std::current_exception(), elem.get());
    mailbox_.hide_deferred(!awaited_.empty());
    // Kept alive by its exception handler: what the handler changed counts.
    if (!terminated() && behavior_changed_)
      replay_stash(awaits_before > 1);
    return consume_result::consumed;
  }
  current_element_ = nullptr;
  if (!graveyard_.empty())
    graveyard_.clear();
  if (result == consume_result::skipped) {
    // Skipped while awaiting: deferred, hidden until the await ends, so the
    // next await does not pop it again (a backlog would cost quadratic time).
    if (awaits_before > 0 && !awaited_.empty() && !elem->is_urgent())
      mailbox_.defer(elem.release());
    else
      stash_.push_back(elem.release());
  }
  // An await that began in this handler hides what was deferred before; one
  // that ended shows it (before replay_stash puts the stash in front of it).
  mailbox_.hide_deferred(!awaited_.empty());
  if (quit_requested_ || (bhvr_stack_.empty() && pending_live_ == 0))
    finish_if_idle();
  else if (behavior_changed_ && result == consume_result::consumed)
    replay_stash(awaits_before > 1);
  return result;
}

scheduled_actor::consume_result
scheduled_actor::handle_system_message(mailbox_element_ptr& elem) {
  auto& msg = elem->payload;
  if (msg.match_elements<exit_msg>())
    return handle_exit(msg.get_mutable_as<exit_msg>(0), elem);
  if (msg.match_elements<detail::request_timeout_msg>()) {
    auto number = msg.get_as<detail::request_timeout_msg>(0).request_number;
    // While an await suspends the behavior, only the awaited request may
    // time out; the timeouts of other requests wait like their responses.
    if (!awaited_.empty() && awaited_.back() != number && find_pending(number) != nullptr)
      return consume_result::skipped;
    handle_timeout(number);
    return consume_result::consumed;
  }
  if (msg.match_elements<detail::idle_timeout_msg>()) {
    handle_idle_timeout(msg.get_as<detail::idle_timeout_msg>(0).generation);
    return consume_result::consumed;
  }
  if (!awaited_.empty())
    return consume_result::skipped;
  if (down_handler_ && msg.match_elements<down_msg>()) {
    down_handler_(msg.get_mutable_as<down_msg>(0));
    return consume_result::consumed;
  }
  return invoke_behavior(elem);
}

TROUPE_HOT scheduled_actor::consume_result
scheduled_actor::invoke_behavior(mailbox_element_ptr& elem) {
  auto& msg = elem->payload;
  detail::handler_result res;
  if (bhvr_stack_.empty() || !bhvr_stack_.back().invoke(msg, res)) {
    if (elem->mid.is_system()) {
      // Exit and down messages nobody asked for are dropped quietly.
      return consume_result::consumed;
    }
    res = default_handler_(this, msg);
    if (res.kind == detail::result_kind::skip)
      return consume_result::skipped;
    // The default handler has logged it; an error sent back to a plain
    // sender could bounce between two actors that both lack a handler.
    if (!elem->mid.is_request())
      return consume_result::consumed;
  }
  if (res.kind == detail::result_kind::skip)
    return consume_result::skipped;
  respond(*elem, res);
  return consume_result::consumed;
}

scheduled_actor::consume_result scheduled_actor::handle_exit(exit_msg& msg,
                                                              mailbox_element_ptr& elem) {
  if (msg.reason == exit_reason::kill || msg.reason == exit_reason::system_shutdown) {
    quit(std::move(msg.reason));
    return consume_result::consumed;
  }
  if (!trap_exit_) {
    if (msg.reason)
      quit(msg.reason);
    return consume_result::consumed;
  }
  if (exit_handler_) {
    exit_handler_(msg);
    return consume_result::consumed;
  }
  return invoke_behavior(elem);
}

// -- requests and responses ----------------------------------------------------------

uint64_t scheduled_actor::send_request(actor_control_block* dest, uint64_t number,
                                       message_priority p, timespan timeout, message msg) {
  auto mid = message_id::make_request(number, p);
  uint64_t timer = detail::invalid_timer_id;
  if (timeout != infinite) {
    auto deadline = system().clock().now() + timeout;
    // A strong reference: the requester must live to see its timeout even
    // if nobody else holds a handle to it. Released when the timer fires or
    // is cancelled (response arrived, or the actor terminated).
    timer = system().clock().schedule(deadline, [self = self_ptr(), number] {
      auto& sys = self->system();
      detail::system_internals::deliver_due(
        sys, self,
        make_mailbox_element(nullptr, message_id::make_system(message_priority::urgent),
                             make_message(detail::request_timeout_msg{number})));
    });
  }
  // An invalid `dest` bounces the request back to us, so the error reaches
  // the handler given to then/await.
  deliver(dest, make_mailbox_element(self_ptr(), mid, std::move(msg)));
  return timer;
}

void scheduled_actor::add_response_handler(uint64_t number, detail::response_fn on_value,
                                           detail::response_error_fn on_error,
                                           uint64_t timer, bool awaited) {
  if (pending_.size() == pending_head_ || pending_.back().number < number) {
    pending_.emplace_back(number, std::move(on_value), std::move(on_error), timer, awaited);
  } else {
    // A handler set after that of a later request: keep the order.
    auto pos = std::upper_bound(pending_.begin() + static_cast<ptrdiff_t>(pending_head_),
                                pending_.end(), number,
                                [](uint64_t n, const pending_response& x) { return n < x.number; });
    pending_.emplace(pos, number, std::move(on_value), std::move(on_error), timer, awaited);
  }
  ++pending_live_;
  if (awaited)
    awaited_.push_back(number);
  note_pending_requests(pending_live_);
}

scheduled_actor::pending_response* scheduled_actor::find_pending(uint64_t number) noexcept {
  auto first = pending_.begin() + static_cast<ptrdiff_t>(pending_head_);
  auto i = std::lower_bound(first, pending_.end(), number,
                            [](const pending_response& x, uint64_t n) { return x.number < n; });
  if (i == pending_.end() || i->number != number || !i->live)
    return nullptr;
  return &*i;
}

scheduled_actor::pending_response scheduled_actor::take_pending(pending_response* entry) {
  auto result = std::move(*entry);
  entry->live = false;
  if (--pending_live_ == 0) {
    pending_.clear();
    pending_head_ = 0;
  } else {
    while (!pending_[pending_head_].live)
      ++pending_head_;
    // Drop the gone prefix once it is most of the vector: amortized O(1).
    if (pending_head_ >= 32 && pending_head_ * 2 >= pending_.size()) {
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<ptrdiff_t>(pending_head_));
      pending_head_ = 0;
    }
  }
  note_pending_requests(pending_live_);
  if (result.awaited) {
    // Usually the top of the stack; a timeout may hit one further down.
    std::erase(awaited_, result.number);
    behavior_changed_ = true;
  }
  return result;
}

scheduled_actor::consume_result scheduled_actor::handle_response(mailbox_element_ptr& elem) {
  auto number = elem->mid.request_number();
  auto* entry = find_pending(number);
  if (entry == nullptr) {
    TROUPE_LOG_DEBUG("actor", "actor#{} drops a response nobody waits for: {}", id(),
                     to_string(elem->payload));
    return consume_result::consumed;
  }
  if (!awaited_.empty() && awaited_.back() != number)
    return consume_result::skipped;
  auto handler = take_pending(entry);
  if (handler.timer != detail::invalid_timer_id)
    system().clock().cancel(handler.timer);
  auto& msg = elem->payload;
  if (msg.match_elements<error>()) {
    auto& err = msg.get_mutable_as<error>(0);
    // A handler that takes the error itself gets it; otherwise the error
    // handler does.
    if (!handler.on_value(msg))
      call_error_handler(handler.on_error, err);
    return consume_result::consumed;
  }
  if (!handler.on_value(msg)) {
    error err{errc::unexpected_response,
              "response " + to_string(msg) + " does not match the response handler"};
    call_error_handler(handler.on_error, err);
  }
  return consume_result::consumed;
}

void scheduled_actor::handle_timeout(uint64_t number) {
  auto* entry = find_pending(number);
  if (entry == nullptr)
    return; // answered in time
  auto handler = take_pending(entry);
  error err{errc::request_timeout, "no response before the timeout"};
  call_error_handler(handler.on_error, err);
}

void scheduled_actor::call_error_handler(detail::response_error_fn& handler, error& err) {
  if (handler) {
    handler(err);
    return;
  }
  if (error_handler_) {
    error_handler_(err);
    return;
  }
  // No handler anywhere: the failure terminates the actor, as an
  // unhandled error should.
  TROUPE_LOG_WARNING("actor", "actor#{} terminates on an unhandled request error: {}", id(),
                     to_string(err));
  quit(err);
}

void scheduled_actor::on_exception(std::exception_ptr eptr, mailbox_element* elem) {
  error reason = exception_handler_ ? exception_handler_(eptr) : detail::exit_reason_of(eptr);
  if (elem != nullptr && elem->mid.is_request()) {
    // The request is owed an error even if the handler keeps us alive.
    detail::handler_result res{detail::result_kind::error, {},
                               reason ? reason : detail::exit_reason_of(eptr)};
    respond(*elem, res);
  }
  if (reason) {
    TROUPE_LOG_WARNING("actor", "actor#{} terminates: {}", id(), to_string(reason));
    cleanup(std::move(reason), context_);
  }
}

// -- idle handler ------------------------------------------------------------------

void scheduled_actor::set_idle_handler_impl(timespan delay, bool strong, bool repeat,
                                            detail::unique_fn<void()> fn) {
  if (delay <= timespan::zero() || delay == infinite)
    throw std::invalid_argument("troupe: set_idle_handler needs a positive, finite delay");
  if (idle_ == nullptr)
    idle_ = std::make_unique<idle_state>();
  else if (idle_->timer != detail::invalid_timer_id)
    system().clock().cancel(idle_->timer);
  idle_->delay = delay;
  idle_->handler = std::move(fn);
  idle_->strong = strong;
  idle_->repeat = repeat;
  ++idle_->generation;
  idle_->last_activity = system().clock().now();
  arm_idle_timer(idle_->last_activity + delay);
}

void scheduled_actor::arm_idle_timer(actor_clock::time_point deadline) {
  auto deliver = [generation = idle_->generation](const strong_actor_ptr& self) {
    auto& sys = self->system();
    detail::system_internals::deliver_due(
      sys, self,
      make_mailbox_element(nullptr, message_id::make_system(message_priority::normal),
                           make_message(detail::idle_timeout_msg{generation})));
  };
  auto& clock = system().clock();
  // A strong handler's timer holds a reference, released when it fires or
  // when the actor terminates (on_cleanup cancels it).
  if (idle_->strong)
    idle_->timer = clock.schedule(deadline, [self = self_ptr(), deliver] { deliver(self); });
  else
    idle_->timer = clock.schedule(deadline, [self = weak_actor_ptr{self_ptr()}, deliver] {
      if (auto strong = self.lock())
        deliver(strong);
    });
}

void scheduled_actor::handle_idle_timeout(uint64_t generation) {
  if (idle_ == nullptr || generation != idle_->generation || !idle_->handler)
    return; // replaced, or a once handler that ran
  idle_->timer = detail::invalid_timer_id;
  auto now = system().clock().now();
  if (!awaited_.empty()) {
    arm_idle_timer(now + idle_->delay);
    return;
  }
  if (now - idle_->last_activity < idle_->delay) {
    arm_idle_timer(idle_->last_activity + idle_->delay);
    return;
  }
  // The handler may set another one (or quit): it runs out of idle_.
  auto fn = std::move(idle_->handler);
  auto restore = [this, &fn, generation] {
    if (idle_ != nullptr && idle_->generation == generation && idle_->repeat) {
      idle_->handler = std::move(fn);
      idle_->last_activity = system().clock().now();
      arm_idle_timer(idle_->last_activity + idle_->delay);
    }
  };
  try {
    fn();
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

// -- termination -----------------------------------------------------------------

void scheduled_actor::on_cleanup(const error& reason, execution_unit* ctx) {
  local_actor::on_cleanup(reason, ctx);
  mute_target_ = nullptr;
  if (idle_ != nullptr) {
    if (idle_->timer != detail::invalid_timer_id)
      system().clock().cancel(idle_->timer);
    idle_.reset();
  }
  // Bounce skipped messages too, and drop behaviors and pending handlers so
  // that handles they captured die with the actor.
  bounce_all(stash_, reason, ctx);
  for (auto& x : pending_)
    if (x.live && x.timer != detail::invalid_timer_id)
      system().clock().cancel(x.timer);
  pending_.clear();
  pending_head_ = 0;
  pending_live_ = 0;
  note_pending_requests(0);
  awaited_.clear();
  for (auto& x : bhvr_stack_)
    graveyard_.push_back(std::move(x));
  bhvr_stack_.clear();
  if (current_element_ == nullptr)
    graveyard_.clear();
}

} // namespace troupe
