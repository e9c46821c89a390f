#pragma once

// What every actor running in this process has: a mailbox, the message it
// is handling now, and the operations to send, monitor, link and quit.
// Event-based actors (scheduled_actor) and blocking actors build on it.

#include "troupe/abstract_actor.hpp"
#include "troupe/detail/handle_traits.hpp"
#include "troupe/disposable.hpp"
#include "troupe/detail/mailbox_queue.hpp"
#include "troupe/detail/print_line.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/mailbox_overflow.hpp"
#include "troupe/message.hpp"
#include "troupe/response_promise.hpp"
#include "troupe/result.hpp"
#include "troupe/spawn_options.hpp"
#include "troupe/system_messages.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace troupe {

namespace detail {

/// The what() of the exception `eptr` holds; none if it is no
/// std::exception.
std::optional<std::string> exception_what(std::exception_ptr eptr);

/// The exit reason of an actor that let `eptr` escape:
/// exit_reason::unhandled_exception with the exception's what().
error exit_reason_of(std::exception_ptr eptr);

} // namespace detail

/// A request timeout that never fires.
inline constexpr timespan infinite = timespan::max();

class local_actor;

namespace detail {

struct bounded_mailbox;

/// The event-based actor this thread runs now, if it may be muted (set by
/// scheduled_actor::resume on scheduler workers); null elsewhere.
extern constinit thread_local local_actor* running_actor;

/// False while a thread must not wait for room in a muting mailbox (the
/// timer thread delivering a delayed message).
extern constinit thread_local bool push_may_wait;

/// While one lives, this thread's pushes into a full muting mailbox go in
/// over the bound instead of waiting for room (push_may_wait is false); the
/// previous setting comes back with its end.
class no_push_wait {
public:
  no_push_wait() noexcept : before_(std::exchange(push_may_wait, false)) {}
  ~no_push_wait() {
    push_may_wait = before_;
  }
  no_push_wait(const no_push_wait&) = delete;
  no_push_wait& operator=(const no_push_wait&) = delete;

private:
  bool before_;
};

/// Mutes the actor this thread runs (running_actor, not null) once its
/// handler returns, until `full` has room again: what a send to a full
/// bounded mailbox does, for senders to other full things (a network
/// connection's buffer).
void mute_running_actor(abstract_actor* full);

/// Runs `x` again, an actor that `full->add_muted(x)` kept muted; of
/// concurrent callers only one schedules it. Any thread.
void resume_muted(const strong_actor_ptr& x);

/// Throws std::invalid_argument, naming the limit, if `capacity` exceeds
/// defaults::mailbox::max_capacity.
void check_mailbox_capacity(size_t capacity);

} // namespace detail

class local_actor : public abstract_actor {
public:
  using mailbox_type = detail::mailbox_queue<mailbox_element>;

  /// Takes troupe.mailbox.capacity and troupe.mailbox.overflow from the
  /// system's config.
  explicit local_actor(actor_config& cfg);

  ~local_actor() override;

  // -- sending ------------------------------------------------------------------

  /// Sends `xs...` to `dest` (asynchronously, no response expected).
  template <message_priority P = message_priority::normal,
            detail::actor_handle Handle, class... Ts>
  void send(const Handle& dest, Ts&&... xs) {
    detail::check_message<Handle, Ts...>();
    if (detail::handle_ctrl(dest) == ctrl()) [[unlikely]]
      note_self_send();
    deliver(detail::handle_ctrl(dest),
            make_mailbox_element(self_ptr(), message_id::make(P),
                                 make_message(std::forward<Ts>(xs)...)));
  }

  /// Sends `xs...` to `dest` after `delay`; dispose() on the result cancels
  /// it.
  template <message_priority P = message_priority::normal,
            detail::actor_handle Handle, class... Ts>
  disposable delayed_send(const Handle& dest, timespan delay, Ts&&... xs) {
    detail::check_message<Handle, Ts...>();
    return delayed_deliver(strong_actor_ptr{detail::handle_ctrl(dest)}, delay,
                    make_mailbox_element(self_ptr(), message_id::make(P),
                                         make_message(std::forward<Ts>(xs)...)));
  }

  /// Asks `dest` to terminate with `reason` (an urgent exit_msg).
  template <detail::actor_handle Handle>
  void send_exit(const Handle& dest, error reason) {
    deliver(detail::handle_ctrl(dest),
            make_mailbox_element(nullptr, message_id::make_system(message_priority::urgent),
                                 make_message(exit_msg{address(), std::move(reason)})));
  }

  /// Forwards the current request to `dest`, which then answers the original
  /// requester directly. To a typed `dest` the result names what it answers
  /// (`delegated<int>`), so a typed handler may return it.
  template <detail::actor_handle Handle, class... Ts>
  auto delegate(const Handle& dest, Ts&&... xs) {
    forward_current(detail::handle_ctrl(dest), make_message(std::forward<Ts>(xs)...));
    return typename detail::delegated_for<detail::request_response_t<Handle, Ts...>>::type{};
  }

  /// Prints one line to stdout, as CAF's println: `{}` stands for the next
  /// argument, `{:spec}` formats it with a std::format spec such as "{:.2f}"
  /// or "{:>8}" (both checked at compile time); types with an inspect() print
  /// as deep_to_string does. Lines from different actors never mix.
  template <class... Ts>
  void println(detail::log_format_string<std::type_identity_t<Ts>...> fmt,
               const Ts&... xs) {
    detail::print_line(detail::format_line<Ts...>(fmt, xs...));
  }

  // -- spawning -----------------------------------------------------------------

  /// Spawns an actor in this actor's system, as system().spawn(...) does:
  /// `self->spawn<my_actor>(args...)`, `self->spawn(fn, args...)`,
  /// `self->spawn(actor_from_state<S>, args...)` (defined in
  /// actor_system.hpp).
  template <class T, spawn_options Os = no_spawn_options, class... Ts>
    requires std::is_base_of_v<local_actor, T>
  auto spawn(Ts&&... xs);

  template <spawn_options Os = no_spawn_options, class F, class... Ts>
    requires(!std::is_base_of_v<local_actor, F>)
  auto spawn(F fn, Ts&&... xs);

  // -- lifecycle ----------------------------------------------------------------

  template <detail::actor_handle Handle>
  void monitor(const Handle& other) {
    if (auto* ctrl = detail::handle_ctrl(other))
      ctrl->get()->add_monitor(address());
  }

  template <detail::actor_handle Handle>
  void demonitor(const Handle& other) {
    if (auto* ctrl = detail::handle_ctrl(other))
      ctrl->get()->remove_monitor(address());
  }

  template <detail::actor_handle Handle>
  void link_to(const Handle& other) {
    if (auto* ctrl = detail::handle_ctrl(other))
      abstract_actor::link_to(ctrl->get());
  }

  template <detail::actor_handle Handle>
  void unlink_from(const Handle& other) {
    if (auto* ctrl = detail::handle_ctrl(other))
      abstract_actor::unlink_from(ctrl->get());
  }

  /// Terminates this actor once the current message is handled.
  void quit(error reason = exit_reason::normal);

  /// When true, exit_msg from linked actors arrive as messages (or at the
  /// exit handler) instead of terminating this actor. `kill` is never trapped.
  void trap_exit(bool value) noexcept {
    trap_exit_ = value;
  }

  bool trap_exit() const noexcept {
    return trap_exit_;
  }

  // -- the current message --------------------------------------------------------

  /// The sender of the message being handled (may be null).
  const strong_actor_ptr& current_sender() const noexcept;

  /// The id of the message being handled: a request's or a plain send's.
  message_id current_message_id() const noexcept;

  /// The message being handled with its sender and id; null between
  /// messages.
  mailbox_element* current_mailbox_element() const noexcept {
    return current_element_;
  }

  /// Takes over answering the current request.
  response_promise make_response_promise();

  /// The same, typed: `make_response_promise<int>()` promises an int, as
  /// a typed actor's signature `result<int>(...)` says.
  template <class T, class... Ts>
  typed_response_promise<T, Ts...> make_response_promise() {
    return typed_response_promise<T, Ts...>{make_response_promise()};
  }

  // -- misc ---------------------------------------------------------------------

  /// A handle to this actor.
  actor self_handle() const noexcept {
    return actor{self_ptr()};
  }

  strong_actor_ptr self_ptr() const noexcept {
    return strong_actor_ptr{ctrl()};
  }

  execution_unit* context() const noexcept {
    return context_;
  }

  /// Approximate number of queued messages (any thread).
  size_t mailbox_size() const noexcept {
    return mailbox_.size();
  }

  mailbox_type& mailbox() noexcept {
    return mailbox_;
  }

  /// Bounds the mailbox to `capacity` messages (0: no bound); `overflow`
  /// says what a message that finds it full gets (see mailbox_overflow).
  /// Call from the actor's constructor, or give `mailbox_limit` to spawn;
  /// called later, it applies from the senders' next message on, and what
  /// arrived before stays queued. Responses and system messages are never
  /// refused. Throws std::invalid_argument if `capacity` exceeds
  /// defaults::mailbox::max_capacity (32768).
  void set_mailbox_capacity(size_t capacity,
                            mailbox_overflow overflow = mailbox_overflow::mute);

  /// The bound of the mailbox; 0 if it has none. Any thread.
  size_t mailbox_capacity() const noexcept;

  bool mailbox_full() const noexcept override;

  bool mailbox_drained() const noexcept override;

  /// What the actor waits on, for the shutdown report: queued messages,
  /// pending requests, a blocking receive, messages sent to itself. Any
  /// thread; the figures are a recent snapshot.
  std::string wait_report() const override;

  uint64_t messages_taken() const noexcept override {
    return taken_.load(std::memory_order_relaxed);
  }

  /// Queued messages, or not waiting for one (scheduled, or running).
  bool active() const noexcept override;

protected:
  /// Where a blocking actor's thread is, for active() and wait_report().
  enum class receive_wait : uint8_t {
    none,         // not in a receive: running its body (or not blocking)
    untimed,      // waiting for a message without a timeout
    timed,        // waiting for a message until a deadline
  };

  /// Enqueues into `dest` or counts a dead letter if `dest` is null.
  void deliver(actor_control_block* dest, mailbox_element_ptr elem);

  disposable delayed_deliver(strong_actor_ptr dest, timespan delay, mailbox_element_ptr elem);

  void forward_current(actor_control_block* dest, message msg);

  uint64_t next_request_number() noexcept {
    return ++last_request_number_;
  }

  /// Sends a handler's result `res` for `req`: the response to a request
  /// that still needs one, or a non-empty result back to a plain send's
  /// sender.
  void respond(mailbox_element& req, detail::handler_result& res);

  /// Sends `payload` for `req` to its sender, or counts it as a dead letter
  /// if there is none.
  void reply(mailbox_element& req, message payload);

  void on_cleanup(const error& reason, execution_unit* ctx) override;

  /// What a request to this actor gets once it terminated with `reason`.
  error down_error(const error& reason) const;

  /// Bounces every element of `xs` (this actor terminated with `reason`).
  void bounce_all(mailbox_type::list_type& xs, const error& reason, execution_unit* ctx);

  /// Pushes into the mailbox; true if the caller must wake or schedule us.
  bool push_to_mailbox(mailbox_element_ptr& elem, execution_unit* ctx);

  /// Called by the thread running the actor after it took a message: lets
  /// muted senders run again once the mailbox is below half its bound.
  void after_pop() {
    taken_.store(taken_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (auto* b = bounded_.load(std::memory_order_acquire)) [[unlikely]]
      release_muted_if_drained(*b);
  }

  /// Mutes this actor, which runs now on this thread, once its handler
  /// returns, until `full` has room again: its mailbox drained, or (a proxy)
  /// its connection's buffer (unless this actor can't be muted).
  virtual void request_mute(abstract_actor* full);

  /// Runs a muted actor again (schedules it).
  virtual void unmute();

  friend void detail::mute_running_actor(abstract_actor* full);
  friend void detail::resume_muted(const strong_actor_ptr& x);

  /// Runs this actor again if it is muted; any thread may call it, and of
  /// concurrent callers only one schedules it.
  void resume_muted() {
    if (muted_.exchange(false, std::memory_order_acq_rel))
      unmute();
  }

  /// Lets every actor muted on this one run again.
  void release_muted();

  /// Keeps `sender` muted until this mailbox drains below half its bound;
  /// false if it has drained already (or is unbounded or closed).
  bool add_muted(strong_actor_ptr sender) override;

  void note_self_send() noexcept {
    self_sends_.store(self_sends_.load(std::memory_order_relaxed) + 1,
                      std::memory_order_relaxed);
  }

  void note_pending_requests(size_t n) noexcept {
    pending_requests_.store(static_cast<uint32_t>(n), std::memory_order_relaxed);
  }

  // Set once by set_mailbox_capacity (or the config); freed with the actor.
  // Read by every sender: kept off the cache line of the consumer's counters
  // below (mailbox_ starts a line of its own).
  std::atomic<detail::bounded_mailbox*> bounded_{nullptr};
  mailbox_type mailbox_;
  // For wait_report: written only by the thread running the actor, read by
  // any (relaxed).
  std::atomic<uint64_t> self_sends_{0};
  // Messages taken from the mailbox: the shutdown's sign of life.
  std::atomic<uint64_t> taken_{0};
  std::atomic<uint32_t> pending_requests_{0};
  // Where a blocking actor's thread is: written by that thread, read by any
  // (relaxed).
  std::atomic<receive_wait> receive_wait_{receive_wait::none};
  // Set by the actor as it mutes itself; cleared by whoever runs it again.
  std::atomic<bool> muted_{false};
  mailbox_element* current_element_ = nullptr;
  execution_unit* context_ = nullptr;
  uint64_t last_request_number_ = 0;
  error quit_reason_;
  bool quit_requested_ = false;
  bool trap_exit_ = false;

  friend class actor_system;
  // A muted actor parks itself on the full mailbox's list (add_muted).
  friend class scheduled_actor;

private:
  /// Handles a full bounded mailbox before `elem` is pushed; false if the
  /// message was dropped (and bounced).
  bool make_room(detail::bounded_mailbox& b, mailbox_element_ptr& elem, execution_unit* ctx);

  /// Refuses `elem`, which found the mailbox of capacity `cap` full.
  void refuse(mailbox_element_ptr& elem, size_t cap, execution_unit* ctx);

  void release_muted_if_drained(detail::bounded_mailbox& b);

  /// After a push: a muted actor whose own mailbox reached half its bound
  /// runs again, so that actors muted on each other never all wait.
  void resume_if_pressed(detail::bounded_mailbox& b);
};

/// Sends from outside any actor (no sender).
template <message_priority P = message_priority::normal, detail::actor_handle Handle,
          class... Ts>
void anon_send(const Handle& dest, Ts&&... xs) {
  detail::check_message<Handle, Ts...>();
  if (auto* ctrl = detail::handle_ctrl(dest))
    ctrl->get()->enqueue(make_mailbox_element(nullptr, message_id::make(P),
                                              make_message(std::forward<Ts>(xs)...)),
                         nullptr);
}

namespace detail {

/// Delivers `elem` to `dest` once `delay` has passed (on the timer thread)
/// unless disposed; if the system shuts down first, it counts as a dead
/// letter.
disposable deliver_later(strong_actor_ptr dest, timespan delay, mailbox_element_ptr elem);

} // namespace detail

/// Sends from outside any actor once `delay` has passed; dispose() on the
/// result cancels it. An invalid `dest` gets nothing (the result refers to
/// nothing).
template <message_priority P = message_priority::normal, detail::actor_handle Handle,
          class... Ts>
disposable delayed_anon_send(const Handle& dest, timespan delay, Ts&&... xs) {
  detail::check_message<Handle, Ts...>();
  auto* ctrl = detail::handle_ctrl(dest);
  if (ctrl == nullptr)
    return {};
  return detail::deliver_later(strong_actor_ptr{ctrl}, delay,
                               make_mailbox_element(nullptr, message_id::make(P),
                                                    make_message(std::forward<Ts>(xs)...)));
}

/// Asks `dest` to terminate with `reason`, from outside any actor.
template <detail::actor_handle Handle>
void anon_send_exit(const Handle& dest, error reason) {
  if (auto* ctrl = detail::handle_ctrl(dest))
    ctrl->get()->enqueue(
      make_mailbox_element(nullptr, message_id::make_system(message_priority::urgent),
                           make_message(exit_msg{actor_addr{}, std::move(reason)})),
      nullptr);
}

} // namespace troupe
