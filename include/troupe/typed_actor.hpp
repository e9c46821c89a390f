#pragma once

// Typed actors: the handle lists the messages the actor takes and what it
// answers, and the compiler checks sends, requests, response handlers and
// the actor's behavior against that list.
//
//   using calculator = typed_actor<result<int>(add_atom, int, int),
//                                  result<int>(sub_atom, int, int)>;
//
//   calculator::behavior_type calc() {
//     return {
//       [](add_atom, int x, int y) { return x + y; },
//       [](sub_atom, int x, int y) { return x - y; },
//     };
//   }


#include "troupe/actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/detail/handle_traits.hpp"
#include "troupe/stateful_actor.hpp"
#include "troupe/typed_behavior.hpp"

#include <concepts>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace troupe {

template <class... Sigs>
class typed_event_based_actor;

namespace detail {

template <class... Sigs, class... Ts>
struct handle_accepts<typed_actor<Sigs...>, Ts...>
  : std::bool_constant<accepts_input_v<type_list<Ts...>, Sigs...>> {};

template <class... Sigs, class... Ts>
struct handle_response<typed_actor<Sigs...>, Ts...> {
  using type = typename output_for<type_list<Ts...>, Sigs...>::type;
};

/// A struct naming its signatures, `using signatures = type_list<...>;`: the
/// interface of `typed_actor<Trait>` (CAF 1.x's trait form).
template <class T>
concept interface_trait = requires { typename T::signatures; };

template <class List>
struct typed_actor_of_list;

template <class... Sigs>
struct typed_actor_of_list<type_list<Sigs...>> {
  using type = typed_actor<Sigs...>;
};

template <interface_trait Trait>
using typed_actor_of_trait_t = typename typed_actor_of_list<typename Trait::signatures>::type;

template <interface_trait Trait, class... Ts>
struct handle_accepts<typed_actor<Trait>, Ts...>
  : handle_accepts<typed_actor_of_trait_t<Trait>, Ts...> {};

template <interface_trait Trait, class... Ts>
struct handle_response<typed_actor<Trait>, Ts...>
  : handle_response<typed_actor_of_trait_t<Trait>, Ts...> {};

} // namespace detail


template <class... Sigs>
class typed_actor {
public:
  using behavior_type = typed_behavior<Sigs...>;
  using base = typed_event_based_actor<Sigs...>;
  using pointer = base*;
  template <class State>
  using stateful_pointer = stateful_actor<State, base>*;

  typed_actor() noexcept = default;
  typed_actor(std::nullptr_t) noexcept {}

  /// Trusts that `hdl` runs a behavior of these signatures.
  explicit typed_actor(actor hdl) noexcept : hdl_(std::move(hdl)) {}

  /// A typed actor's own pointer where its handle goes (`self` as a message
  /// argument), as in CAF.
  template <class T>
    requires std::same_as<typename T::handle_type, typed_actor>
  typed_actor(T* self) noexcept
    : hdl_(self != nullptr ? actor{strong_actor_ptr{self->ctrl()}} : actor{}) {}

  explicit operator bool() const noexcept {
    return static_cast<bool>(hdl_);
  }

  actor_id id() const noexcept {
    return hdl_.id();
  }

  actor_addr address() const noexcept {
    return hdl_.address();
  }

  actor_control_block* ctrl() const noexcept {
    return hdl_.ctrl();
  }

  /// The actor itself, as CAF's `hdl->id()`; null for an invalid handle.
  abstract_actor* operator->() const noexcept {
    return hdl_.operator->();
  }

  /// The dynamically typed handle.
  const actor& untyped() const noexcept {
    return hdl_;
  }

  friend bool operator==(const typed_actor& x, const typed_actor& y) noexcept {
    return x.hdl_ == y.hdl_;
  }

  /// As in CAF: `self->current_sender() == hdl`.
  friend bool operator==(const typed_actor& x, const strong_actor_ptr& y) noexcept {
    return x.hdl_ == y;
  }

  friend std::string to_string(const typed_actor& x) {
    return to_string(x.hdl_);
  }

private:
  actor hdl_;
};


/// CAF 1.x's trait form: `typed_actor<calc_trait>` is the interface that
/// `calc_trait::signatures` lists; it converts to and from the handle
/// written with the signatures themselves.
template <detail::interface_trait Trait>
class typed_actor<Trait> : public detail::typed_actor_of_trait_t<Trait> {
public:
  using super = detail::typed_actor_of_trait_t<Trait>;

  using super::super;

  typed_actor() noexcept = default;

  typed_actor(super hdl) noexcept : super(std::move(hdl)) {}
};

} // namespace troupe

// The actor class behind the handle's `pointer`: last, since it names the
// handle type.
#include "troupe/typed_event_based_actor.hpp"
