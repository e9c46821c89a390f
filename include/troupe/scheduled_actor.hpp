#pragma once

// The engine of event-based actors: a behavior stack, pending responses, a
// stash of skipped messages, and `resume`, which a scheduler worker (or the
// actor's own thread, if detached) calls to handle up to `max_throughput`
// messages. What an await skips stays in the mailbox, deferred and hidden
// until the await ends (mailbox_queue::defer), so a backlog behind a chain
// of awaits is looked at once per message, not once per await.

#include "troupe/actor_clock.hpp"
#include "troupe/behavior.hpp"
#include "troupe/detail/unique_fn.hpp"
#include "troupe/fan_out_request.hpp"
#include "troupe/idle_handler.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/mail.hpp"
#include "troupe/resumable.hpp"

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <vector>

namespace troupe {

class scheduled_actor;

/// Called for a message no handler matched. The result decides: `skip`
/// keeps it for a later behavior, an error answers a request with it.
using default_handler = std::function<detail::handler_result(scheduled_actor*, message&)>;

/// The default: log the message and answer a request with
/// errc::unexpected_message.
detail::handler_result print_and_drop(scheduled_actor* self, message& msg);

/// Discard the message silently (a request still gets unexpected_message).
detail::handler_result drop(scheduled_actor* self, message& msg);

using error_handler = std::function<void(error&)>;
using down_handler = std::function<void(down_msg&)>;
using exit_handler = std::function<void(exit_msg&)>;
using exception_handler = std::function<error(std::exception_ptr&)>;

namespace detail {

using response_fn = unique_fn<bool(message&)>;
using response_error_fn = unique_fn<void(error&)>;

/// Wraps a response handler: true if the response matched its arguments.
template <class F>
response_fn make_response_fn(F f) {
  return [f = std::move(f)](message& msg) mutable {
    handler_result ignored;
    return invoke_handler(f, msg, ignored, typename callable_trait_t<F>::arg_types{});
  };
}

template <class F>
response_error_fn make_error_handler(F f) {
  return [f = std::move(f)](error& err) mutable { f(err); };
}

} // namespace detail

/// What `request` returns in an event-based actor: say what to do with the
/// response. `then` handles responses in any order with other messages;
/// `await` suspends the behavior until this response (or its error) arrives.
template <class Self, class Response>
class response_handle {
public:
  response_handle(Self* self, uint64_t number, uint64_t timer) noexcept
    : self_(self), number_(number), timer_(timer) {}

  template <class F>
  void then(F f) {
    detail::check_response_type<Response, F>();
    self_->add_response_handler(number_, detail::make_response_fn(std::move(f)), nullptr,
                                timer_, false);
  }

  template <class F, class OnError>
  void then(F f, OnError on_error) {
    detail::check_response_type<Response, F>();
    self_->add_response_handler(number_, detail::make_response_fn(std::move(f)),
                                detail::make_error_handler(std::move(on_error)), timer_,
                                false);
  }

  template <class F>
  void await(F f) {
    detail::check_response_type<Response, F>();
    self_->add_response_handler(number_, detail::make_response_fn(std::move(f)), nullptr,
                                timer_, true);
  }

  template <class F, class OnError>
  void await(F f, OnError on_error) {
    detail::check_response_type<Response, F>();
    self_->add_response_handler(number_, detail::make_response_fn(std::move(f)),
                                detail::make_error_handler(std::move(on_error)), timer_,
                                true);
  }

  uint64_t request_number() const noexcept {
    return number_;
  }

private:
  Self* self_;
  uint64_t number_;
  uint64_t timer_;
};

class scheduled_actor : public local_actor, public resumable {
public:
  explicit scheduled_actor(actor_config& cfg);

  ~scheduled_actor() override;

  const char* name() const noexcept override {
    return "event-based actor";
  }

  bool runs_on_workers() const noexcept override {
    return !detached_;
  }

  // -- resumable ------------------------------------------------------------------

  resume_result resume(execution_unit* ctx, size_t max_throughput) override;

  void ref_resumable() const noexcept override {
    ctrl()->strong_ref();
  }

  void deref_resumable() const noexcept override {
    ctrl()->strong_deref();
  }

  void enqueue(mailbox_element_ptr elem, execution_unit* ctx) override;

  // -- behavior -------------------------------------------------------------------

  /// Replaces the current behavior.
  void become(behavior bhvr);

  /// Pushes `bhvr` on top of the current behavior.
  void become(keep_behavior_t, behavior bhvr);

  template <detail::message_handler F, detail::message_handler... Fs>
  void become(F f, Fs... fs) {
    become(behavior{std::move(f), std::move(fs)...});
  }

  template <detail::message_handler F, detail::message_handler... Fs>
  void become(keep_behavior_t, F f, Fs... fs) {
    become(keep_behavior, behavior{std::move(f), std::move(fs)...});
  }

  /// Returns to the behavior below the current one.
  void unbecome();

  bool has_behavior() const noexcept {
    return !bhvr_stack_.empty();
  }

  // -- handlers -------------------------------------------------------------------

  void set_default_handler(default_handler fn) {
    default_handler_ = std::move(fn);
  }

  /// Keep unmatched messages until the behavior changes.
  void set_default_handler(skip_t);

  /// Errors of requests without their own error handler.
  template <class F>
  void set_error_handler(F fn) {
    error_handler_ = [fn = std::move(fn)](error& err) mutable { fn(err); };
  }

  template <class F>
  void set_down_handler(F fn) {
    down_handler_ = [fn = std::move(fn)](down_msg& x) mutable { fn(x); };
  }

  /// Handles exit_msg from linked actors; implies trap_exit(true).
  template <class F>
  void set_exit_handler(F fn) {
    exit_handler_ = [fn = std::move(fn)](exit_msg& x) mutable { fn(x); };
    trap_exit(true);
  }

  template <class F>
  void set_exception_handler(F fn) {
    exception_handler_ = std::move(fn);
  }

  /// Runs `fn` once this actor has handled no message for `delay`, as CAF's
  /// set_idle_handler: `ref` is strong_ref or weak_ref, `mode` once or
  /// repeat (see idle_handler.hpp). Replaces the idle handler set before.
  /// While an await suspends the behavior the actor is not idle. Throws
  /// std::invalid_argument if `delay` is not positive, or infinite.
  template <class RefType, class RepeatType, class F>
  void set_idle_handler(timespan delay, RefType ref, RepeatType mode, F fn) {
    static_assert(std::is_same_v<RefType, strong_ref_t> || std::is_same_v<RefType, weak_ref_t>,
                  "troupe: set_idle_handler takes strong_ref or weak_ref");
    static_assert(std::is_same_v<RepeatType, once_t> || std::is_same_v<RepeatType, repeat_t>,
                  "troupe: set_idle_handler takes once or repeat");
    static_assert(std::is_invocable_v<F&>, "troupe: an idle handler takes no arguments");
    (void) ref;
    (void) mode;
    set_idle_handler_impl(delay, std::is_same_v<RefType, strong_ref_t>,
                          std::is_same_v<RepeatType, repeat_t>,
                          [fn = std::move(fn)]() mutable { fn(); });
  }

  // -- requests -------------------------------------------------------------------

  /// Sends the same request to every actor in `hdls` and hands one result
  /// to `.then(f, on_error)`: all answers (policy::select_all_tag) or the
  /// first (policy::select_any_tag); see fan_out_request.hpp.
  template <message_priority P = message_priority::normal, detail::actor_handle Handle,
            class Policy, class... Ts>
  auto fan_out_request(std::vector<Handle> hdls, timespan timeout, Policy, Ts&&... xs) {
    detail::check_message<Handle, Ts...>();
    return fan_out_handle<scheduled_actor, Policy, Handle, detail::message_element_t<Ts>...>{
      this, P, std::move(hdls), timeout,
      std::tuple<detail::message_element_t<Ts>...>{std::forward<Ts>(xs)...}};
  }

  /// CAF 1.x's mail API (mail.hpp): `mail(xs...)` then `.send(dest)`,
  /// `.delay(d).send(dest)`, `.request(dest, timeout).then(...)`,
  /// `.delegate(dest)`, optionally after `.urgent()`.
  template <class... Ts>
  auto mail(Ts&&... xs) {
    return mail_builder<scheduled_actor, detail::message_element_t<Ts>...>{
      this, detail::message_element_t<Ts>(std::forward<Ts>(xs))...};
  }

  /// Sends a request; say what to do with the response with `.then` or
  /// `.await` on the result. `timeout` may be `infinite`.
  template <message_priority P = message_priority::normal,
            detail::actor_handle Handle, class... Ts>
  auto request(const Handle& dest, timespan timeout, Ts&&... xs) {
    detail::check_message<Handle, Ts...>();
    using response_type = detail::request_response_t<Handle, Ts...>;
    auto number = next_request_number();
    auto timer = send_request(detail::handle_ctrl(dest), number, P, timeout,
                              make_message(std::forward<Ts>(xs)...));
    return response_handle<scheduled_actor, response_type>{this, number, timer};
  }

  /// Sends the elements of `msg` as a request, for code that forwards
  /// messages whose types it does not know (the response is dynamically
  /// typed). `timeout` may be `infinite`.
  template <detail::actor_handle Handle>
  response_handle<scheduled_actor, void> request_message(const Handle& dest, timespan timeout,
                                                          message msg) {
    auto number = next_request_number();
    auto timer = send_request(detail::handle_ctrl(dest), number, message_priority::normal,
                              timeout, std::move(msg));
    return {this, number, timer};
  }

  /// Used by response_handle.
  void add_response_handler(uint64_t number, detail::response_fn on_value,
                            detail::response_error_fn on_error, uint64_t timer, bool awaited);

  // -- for the actor system ---------------------------------------------------------

  /// Runs this actor on a thread of its own instead of a scheduler.
  void set_detached(bool value) noexcept {
    detached_ = value;
  }

  /// For detached actors: wakes the actor's thread.
  std::function<void()> wake_detached;

protected:
  void request_mute(abstract_actor* full) override;

  void unmute() override;

  /// The behavior an actor starts with (event_based_actor forwards to
  /// make_behavior); an empty one with no pending request terminates it.
  virtual behavior initial_behavior();

  void on_cleanup(const error& reason, execution_unit* ctx) override;

private:
  enum class consume_result { consumed, skipped };

  struct pending_response {
    // A constructor, not an aggregate: GCC zero-fills a braced aggregate
    // temporary before moving the handlers in.
    pending_response(uint64_t number, detail::response_fn on_value,
                     detail::response_error_fn on_error, uint64_t timer, bool awaited) noexcept
      : number(number), on_value(std::move(on_value)), on_error(std::move(on_error)),
        timer(timer), awaited(awaited) {}

    uint64_t number;
    detail::response_fn on_value;
    detail::response_error_fn on_error;
    uint64_t timer;
    bool awaited;
    bool live = true; // false: taken, a hole until the head passes it
  };

  uint64_t send_request(actor_control_block* dest, uint64_t number, message_priority p,
                        timespan timeout, message msg);

  void initialize();
  consume_result consume(mailbox_element_ptr& elem);
  consume_result handle_response(mailbox_element_ptr& elem);
  consume_result handle_system_message(mailbox_element_ptr& elem);
  consume_result handle_exit(exit_msg& msg, mailbox_element_ptr& elem);
  consume_result invoke_behavior(mailbox_element_ptr& elem);
  void handle_timeout(uint64_t number);
  void call_error_handler(detail::response_error_fn& handler, error& err);
  void on_exception(std::exception_ptr eptr, mailbox_element* elem);
  void finish_if_idle();
  /// Puts the stash back, in front of what the mailbox shows (the caller has
  /// hidden or shown the deferred messages); `older_awaits`: more than one
  /// request was awaited before the message that changed the behavior.
  void replay_stash(bool older_awaits);
  pending_response* find_pending(uint64_t number) noexcept;
  /// Removes `entry` from the pending (and awaited) requests.
  pending_response take_pending(pending_response* entry);

  void set_idle_handler_impl(timespan delay, bool strong, bool repeat,
                             detail::unique_fn<void()> fn);
  void arm_idle_timer(actor_clock::time_point deadline);
  void handle_idle_timeout(uint64_t generation);

  /// Parks this actor on mute_target_'s list; true if it must stop now,
  /// false if it runs on (that mailbox drained, or its own filled up).
  bool try_mute();

  // Set by set_idle_handler; most actors never have one. One timer at most is
  // pending; when it fires early (a message came since), it is armed again
  // for the rest of the delay instead of per message.
  struct idle_state {
    timespan delay{};
    detail::unique_fn<void()> handler;
    actor_clock::time_point last_activity;
    uint64_t timer = 0;
    // Counts set_idle_handler calls: a timer of a replaced handler is stale.
    uint64_t generation = 0;
    bool strong = false;
    bool repeat = false;
  };

  std::vector<behavior> bhvr_stack_;
  std::unique_ptr<idle_state> idle_;
  // A full mailbox this actor sent to in its current handler; it pauses
  // once the handler returns.
  strong_actor_ptr mute_target_;
  // Behaviors replaced while one of their handlers runs; freed afterwards.
  std::vector<behavior> graveyard_;
  // The requests awaiting a response, sorted by number (requests mostly
  // register in number order: an append). Taking one leaves a hole that the
  // head skips once it reaches it, so finding (binary search) and taking
  // cost no shifting of the entries, however many are pending.
  std::vector<pending_response> pending_;
  size_t pending_head_ = 0; // entries before it are gone
  size_t pending_live_ = 0; // entries still waiting
  std::vector<uint64_t> awaited_;
  mailbox_type::list_type stash_;
  default_handler default_handler_;
  error_handler error_handler_;
  down_handler down_handler_;
  exit_handler exit_handler_;
  exception_handler exception_handler_;
  bool initialized_ = false;
  bool behavior_changed_ = false;
  bool detached_ = false;
};

} // namespace troupe
