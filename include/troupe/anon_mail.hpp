#pragma once

// CAF 1.x's mail API from outside any actor: a message without a sender.
//
//   anon_mail(x).send(dest);
//   anon_mail(x).urgent().send(dest);
//   anon_mail(tick_atom_v).delay(1s).send(dest);  // returns a disposable
//
// The same as anon_send and delayed_anon_send; a builder is used once, as an
// rvalue.

#include "troupe/mail.hpp"

#include <utility>

namespace troupe {

/// What `anon_mail(xs...)` returns: a message without a sender.
template <class... Ts>
class [[nodiscard]] anon_mail_builder {
public:
  explicit anon_mail_builder(Ts... xs) : contents_{{std::move(xs)...}} {}

  anon_mail_builder&& urgent() && {
    contents_.urgent = true;
    return std::move(*this);
  }

  template <detail::actor_handle Handle>
  void send(const Handle& dest) && {
    contents_.apply([&](auto p, Ts&&... xs) {
      anon_send<decltype(p)::value>(dest, std::move(xs)...);
    });
  }

  /// `.delay(d).send(dest)`.
  delayed_mail<void, Ts...> delay(timespan delay) && {
    return {nullptr, std::move(contents_), delay};
  }

private:
  detail::mail_contents<Ts...> contents_;
};

/// A message from outside any actor: `anon_mail(xs...).send(dest)`.
template <class... Ts>
auto anon_mail(Ts&&... xs) {
  return anon_mail_builder<detail::message_element_t<Ts>...>{
    detail::message_element_t<Ts>(std::forward<Ts>(xs))...};
}

} // namespace troupe
