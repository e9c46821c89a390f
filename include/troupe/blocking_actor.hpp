#pragma once

// Blocking actors own a thread (or borrow the caller's, as scoped_actor does)
// and pull messages with `receive`. Messages `receive` does not match stay in
// the mailbox for a later `receive`.
//
//   self->receive(
//     [](int x) { ... },
//     after(std::chrono::seconds(1)) >> [] { ... });

#include "troupe/behavior.hpp"
#include "troupe/detail/parker.hpp"
#include "troupe/expected.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/mail.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace troupe {

/// A timeout for `receive`: `after(duration) >> handler`.
template <class F>
struct timeout_definition {
  timespan timeout;
  F handler;
};

struct timeout_builder {
  timespan timeout;

  template <class F>
  timeout_definition<F> operator>>(F f) const {
    return {timeout, std::move(f)};
  }
};

template <class Rep, class Period>
timeout_builder after(std::chrono::duration<Rep, Period> d) {
  return {std::chrono::duration_cast<timespan>(d)};
}

/// Thrown out of `receive` when a linked actor's exit terminates this
/// blocking actor (trap_exit off), or when the system shuts down and the
/// receive has no handler for `error`; the actor's thread catches it.
class actor_exited : public std::exception {
public:
  explicit actor_exited(error reason);
  const char* what() const noexcept override;
  const error& reason() const noexcept {
    return reason_;
  }

private:
  error reason_;
  std::string what_;
};

class blocking_actor;

namespace detail {

template <class T>
struct is_timeout_definition : std::false_type {};

template <class F>
struct is_timeout_definition<timeout_definition<F>> : std::true_type {};

} // namespace detail

/// What `request` returns in a blocking actor: `receive` waits for the
/// response (other messages stay queued).
template <class Response>
class blocking_response_handle {
public:
  blocking_response_handle(blocking_actor* self, uint64_t number,
                           std::chrono::steady_clock::time_point deadline) noexcept
    : self_(self), number_(number), deadline_(deadline) {}

  template <class F, class OnError>
  void receive(F on_value, OnError on_error);

  /// Waits for the response and returns it, or the error: `receive()` for
  /// a typed receiver, `receive<T...>()` naming the response's types for a
  /// dynamically typed one. Several values come as a std::tuple, none as
  /// unit_t.
  template <class... Ts>
  auto receive();

private:
  blocking_actor* self_;
  uint64_t number_;
  std::chrono::steady_clock::time_point deadline_;
};

class blocking_actor : public local_actor {
public:
  using handle_type = actor;
  using clock = std::chrono::steady_clock;

  explicit blocking_actor(actor_config& cfg);

  ~blocking_actor() override;

  void enqueue(mailbox_element_ptr elem, execution_unit* ctx) override;

  /// Class-based blocking actors do their work here.
  virtual void act();

  const char* name() const noexcept override {
    return "blocking actor";
  }

  /// Running its body, waiting in a receive with a timeout, or a message
  /// arrived. A scoped actor never: its thread is the caller's, outside the
  /// system.
  bool active() const noexcept override;

  /// Handles one message with the first matching handler; the last argument
  /// may be `after(timeout) >> f`, called if nothing matched in time. Once
  /// the system shuts down, a handler for `error` gets errc::system_shutdown
  /// at once (then and at every later receive); without one, receive throws
  /// actor_exited.
  template <class... Fs>
  void receive(Fs... fs) {
    receive_impl(std::move(fs)...);
  }

  /// Blocks until every actor in `hdls...` has terminated, as CAF's
  /// wait_for; returns early once the system shuts down. Other messages
  /// stay queued for later receives.
  template <detail::actor_handle... Handles>
  void wait_for(const Handles&... hdls) {
    std::vector<actor_addr> waiting;
    auto watch = [&](const auto& hdl) {
      auto* ctrl = detail::handle_ctrl(hdl);
      if (ctrl == nullptr)
        return;
      waiting.push_back(ctrl->get()->address());
      monitor(hdl);
    };
    (watch(hdls), ...);
    while (!waiting.empty() && !shut_down_) {
      receive(
        [&](down_msg& dm) -> result<void> {
          auto i = std::find(waiting.begin(), waiting.end(), dm.source);
          if (i == waiting.end())
            return skip; // someone else's monitor: a later receive's
          waiting.erase(i);
          return {};
        },
        [&](error& err) -> result<void> {
          if (err == errc::system_shutdown)
            return {};
          return skip;
        });
    }
  }

  /// CAF 1.x's mail API (mail.hpp): `mail(xs...)` then `.send(dest)`,
  /// `.delay(d).send(dest)` or `.request(dest, timeout).receive(...)`.
  template <class... Ts>
  auto mail(Ts&&... xs) {
    return mail_builder<blocking_actor, detail::message_element_t<Ts>...>{
      this, detail::message_element_t<Ts>(std::forward<Ts>(xs))...};
  }

  /// Sends a request; wait for its response with `.receive`.
  template <message_priority P = message_priority::normal,
            detail::actor_handle Handle, class... Ts>
  auto request(const Handle& dest, timespan timeout, Ts&&... xs) {
    detail::check_message<Handle, Ts...>();
    using response_type = detail::request_response_t<Handle, Ts...>;
    auto number = next_request_number();
    auto deadline = timeout == infinite ? clock::time_point::max() : clock::now() + timeout;
    auto mid = message_id::make_request(number, P);
    deliver(detail::handle_ctrl(dest),
            make_mailbox_element(self_ptr(), mid, make_message(std::forward<Ts>(xs)...)));
    return blocking_response_handle<response_type>{this, number, deadline};
  }

  /// Waits for the response to request `number`; nullptr on timeout or
  /// shutdown.
  /// Used by blocking_response_handle.
  mailbox_element_ptr await_response(uint64_t number, clock::time_point deadline);

  /// Runs `f` with `elem` as the current message (current_sender() names
  /// its sender), restoring the previous one even if `f` throws. Used by
  /// receive and blocking_response_handle.
  template <class F>
  void with_current_message(mailbox_element& elem, F&& f) {
    struct restore {
      blocking_actor* self;
      mailbox_element* prev;
      ~restore() {
        self->current_element_ = prev;
      }
    } guard{this, std::exchange(current_element_, &elem)};
    f();
  }

  /// Terminates this actor (used by the actor system after act()).
  void finish(error reason);

  /// True once actor_system::shutdown reached this actor. Its thread only.
  bool shut_down() const noexcept {
    return shut_down_;
  }

protected:
  void on_cleanup(const error& reason, execution_unit* ctx) override;

private:
  friend class scoped_actor;

  template <class... Fs>
  void receive_impl(Fs... fs) {
    constexpr bool has_timeout
      = (detail::is_timeout_definition<Fs>::value || ...);
    if constexpr (has_timeout) {
      auto all = std::forward_as_tuple(fs...);
      auto& last = std::get<sizeof...(Fs) - 1>(all);
      static_assert(detail::is_timeout_definition<std::decay_t<decltype(last)>>::value,
                    "troupe: after(...) >> f must be the last argument of receive");
      auto bhvr = [&]<size_t... Is>(std::index_sequence<Is...>) {
        return behavior{std::get<Is>(all)...};
      }(std::make_index_sequence<sizeof...(Fs) - 1>{});
      auto deadline = last.timeout == infinite ? clock::time_point::max()
                                                : clock::now() + last.timeout;
      switch (receive_one(bhvr, deadline)) {
        case receive_status::handled:
          break;
        case receive_status::timed_out:
          last.handler();
          break;
        case receive_status::shut_down:
          receive_shutdown(bhvr);
          break;
      }
    } else {
      behavior bhvr{std::move(fs)...};
      if (receive_one(bhvr, clock::time_point::max()) == receive_status::shut_down)
        receive_shutdown(bhvr);
    }
  }

  enum class receive_status { handled, timed_out, shut_down };

  /// Handles one message matching `bhvr`, unless the deadline passes or the
  /// system shuts down first.
  receive_status receive_one(behavior& bhvr, clock::time_point deadline);

  /// Gives `bhvr` errc::system_shutdown, or throws actor_exited if it takes
  /// no error.
  void receive_shutdown(behavior& bhvr);

  /// The next message from the mailbox, waiting until `deadline`.
  mailbox_element_ptr dequeue(clock::time_point deadline);

  /// Handles exit and system messages; true if `elem` was consumed.
  bool handle_system_message(mailbox_element_ptr& elem);

  /// True if `elem` answers a request that timed out (and forgets that
  /// request): nobody waits for it any more.
  bool is_stale_response(const mailbox_element& elem);

  detail::parker wakeup_;
  mailbox_type::list_type stash_;
  // Set by the exit that actor_system::shutdown sends; the actor's thread only.
  bool shut_down_ = false;
  // A scoped actor's: set once by scoped_actor before anyone sees the actor.
  bool borrows_thread_ = false;
  // Requests that timed out before their response came. Their responses
  // are dropped; kept in the stash, they would pile up until the actor
  // terminates (a scoped_actor in a loop of timed-out requests).
  std::vector<uint64_t> timed_out_;
};

template <class Response>
template <class F, class OnError>
void blocking_response_handle<Response>::receive(F on_value, OnError on_error) {
  detail::check_response_type<Response, F>();
  auto elem = self_->await_response(number_, deadline_);
  if (!elem) {
    error err = self_->shut_down()
                  ? error{errc::system_shutdown, "the actor system shut down"}
                  : error{errc::request_timeout, "no response before the timeout"};
    on_error(err);
    return;
  }
  auto& msg = elem->payload;
  self_->with_current_message(*elem, [&] {
    if (msg.match_elements<error>()) {
      auto err = msg.get_as<error>(0);
      on_error(err);
      return;
    }
    behavior bhvr{std::move(on_value)};
    detail::handler_result ignored;
    if (!bhvr.invoke(msg, ignored)) {
      error err{errc::unexpected_response, "response " + to_string(msg)
                                             + " does not match the handler"};
      on_error(err);
    }
  });
}

namespace detail {

/// What blocking_response_handle::receive<Ts...>() returns for the response
/// types `List`, and the handler that stores it.
template <class List>
struct expected_response;

template <>
struct expected_response<type_list<>> {
  using type = unit_t;
  static auto handler(expected<type>& out) {
    return [&out] { out = unit; };
  }
};

template <class T>
struct expected_response<type_list<T>> {
  using type = T;
  static auto handler(expected<type>& out) {
    return [&out](T& x) { out = std::move(x); };
  }
};

template <class T1, class T2, class... Ts>
struct expected_response<type_list<T1, T2, Ts...>> {
  using type = std::tuple<T1, T2, Ts...>;
  static auto handler(expected<type>& out) {
    return [&out](T1& x1, T2& x2, Ts&... xs) {
      out = type{std::move(x1), std::move(x2), std::move(xs)...};
    };
  }
};

} // namespace detail

template <class Response>
template <class... Ts>
auto blocking_response_handle<Response>::receive() {
  static_assert(sizeof...(Ts) > 0 || !std::is_void_v<Response>,
                "troupe: name the response's types, receive<T...>(), for a "
                "dynamically typed receiver");
  using list = std::conditional_t<sizeof...(Ts) == 0, Response, detail::type_list<Ts...>>;
  using traits = detail::expected_response<list>;
  expected<typename traits::type> result{error{errc::runtime_error, "no response"}};
  receive(traits::handler(result), [&](error& err) { result = std::move(err); });
  return result;
}

} // namespace troupe
