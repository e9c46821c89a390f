#pragma once

// The mail API of CAF 1.x: a message first, then what to do with it.
//
//   self->mail(add_atom_v, 1, 2).request(calc, 1s).then([](int sum) { ... });
//   self->mail(tick_atom_v).delay(100ms).send(self);
//   self->mail(x).urgent().send(dest);
//   self->mail(x).delegate(worker);
//   self->mail(x).fan_out_request(workers, 1s, policy::select_all_tag).then(...);
//
// Each is the same as the call it names: send, delayed_send, request,
// delegate; from outside any actor, anon_mail (troupe/anon_mail.hpp). A
// builder is used once, as an rvalue. A delayed send returns a disposable
// (troupe/disposable.hpp) that cancels it.

#include "troupe/local_actor.hpp"

#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe {

namespace detail {

/// The message and priority every builder carries.
template <class... Ts>
struct mail_contents {
  std::tuple<Ts...> xs;
  bool urgent = false;

  /// Calls `f(priority_constant, xs...)` with the elements moved out.
  template <class F>
  decltype(auto) apply(F&& f) {
    auto call = [&](auto p) -> decltype(auto) {
      return std::apply([&](Ts&... xs) -> decltype(auto) { return f(p, std::move(xs)...); },
                        xs);
    };
    if (urgent)
      return call(std::integral_constant<message_priority, message_priority::urgent>{});
    return call(std::integral_constant<message_priority, message_priority::normal>{});
  }
};

} // namespace detail

/// `mail(xs...).delay(d)`: sends once `d` has passed. Self is void for
/// anon_mail (no sender).
template <class Self, class... Ts>
class [[nodiscard]] delayed_mail {
public:
  delayed_mail(Self* self, detail::mail_contents<Ts...> contents, timespan delay)
    : self_(self), contents_(std::move(contents)), delay_(delay) {}

  /// dispose() on the result cancels the message until it leaves.
  template <detail::actor_handle Handle>
  disposable send(const Handle& dest) && {
    return contents_.apply([&](auto p, Ts&&... xs) {
      if constexpr (std::is_void_v<Self>)
        return delayed_anon_send<decltype(p)::value>(dest, delay_, std::move(xs)...);
      else
        return self_->template delayed_send<decltype(p)::value>(dest, delay_, std::move(xs)...);
    });
  }

private:
  Self* self_;
  detail::mail_contents<Ts...> contents_;
  timespan delay_;
};

/// What `self->mail(xs...)` returns: says how `xs...` leaves.
template <class Self, class... Ts>
class [[nodiscard]] mail_builder {
public:
  mail_builder(Self* self, Ts... xs) : self_(self), contents_{{std::move(xs)...}} {}

  /// Ahead of every normal message in the receiver's mailbox.
  mail_builder&& urgent() && {
    contents_.urgent = true;
    return std::move(*this);
  }

  /// Sends asynchronously; the receiver's result comes back as a message.
  template <detail::actor_handle Handle>
  void send(const Handle& dest) && {
    contents_.apply([&](auto p, Ts&&... xs) {
      self_->template send<decltype(p)::value>(dest, std::move(xs)...);
    });
  }

  /// Sends once `delay` has passed (`.delay(d).send(dest)`).
  delayed_mail<Self, Ts...> delay(timespan delay) && {
    return {self_, std::move(contents_), delay};
  }

  /// Sends a request: `.then`/`.await` in event-based actors, `.receive` in
  /// blocking ones. `timeout` may be `infinite`.
  template <detail::actor_handle Handle>
  auto request(const Handle& dest, timespan timeout) && {
    return contents_.apply([&](auto p, Ts&&... xs) {
      return self_->template request<decltype(p)::value>(dest, timeout, std::move(xs)...);
    });
  }

  /// Sends the request to every actor in `hdls` (event-based actors): see
  /// fan_out_request.hpp for the policies.
  template <detail::actor_handle Handle, class Policy>
  auto fan_out_request(std::vector<Handle> hdls, timespan timeout, Policy policy) && {
    return contents_.apply([&](auto p, Ts&&... xs) {
      return self_->template fan_out_request<decltype(p)::value>(std::move(hdls), timeout,
                                                                 policy, std::move(xs)...);
    });
  }

  /// Hands the current request to `dest` with this message; `dest` answers
  /// the original requester.
  template <detail::actor_handle Handle>
  auto delegate(const Handle& dest) && {
    return std::apply(
      [&](Ts&... xs) { return self_->delegate(dest, std::move(xs)...); }, contents_.xs);
  }

private:
  Self* self_;
  detail::mail_contents<Ts...> contents_;
};

} // namespace troupe
