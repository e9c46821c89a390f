#pragma once

// What a handle type accepts and answers. `actor` accepts anything and its
// responses are checked at run time; typed_actor.hpp specialises these for
// typed handles so that send and request are checked at compile time.

#include "troupe/actor.hpp"
#include "troupe/detail/callable_trait.hpp"
#include "troupe/message.hpp"

#include <concepts>
#include <type_traits>

namespace troupe::detail {

/// A handle (actor, typed_actor, ...) or a pointer to an actor: `self`
/// may stand where a handle is expected, as in CAF (`send(self, ...)`).
template <class T>
concept actor_handle = requires(const T& x) {
  { x.ctrl() } -> std::convertible_to<actor_control_block*>;
} || (std::is_pointer_v<T> && requires(const T& x) {
  { x->ctrl() } -> std::convertible_to<actor_control_block*>;
});

/// The control block behind a handle or actor pointer (nullptr if none).
template <actor_handle T>
actor_control_block* handle_ctrl(const T& x) noexcept {
  if constexpr (std::is_pointer_v<T>)
    return x != nullptr ? x->ctrl() : nullptr;
  else
    return x.ctrl();
}

/// True if `Handle` accepts a message of `Ts...`.
template <class Handle, class... Ts>
struct handle_accepts : std::true_type {};

/// The response types of `Handle` to a request of `Ts...`: `void` for a
/// dynamically typed handle (checked when the response arrives), otherwise a
/// type_list of the response's element types.
template <class Handle, class... Ts>
struct handle_response {
  using type = void;
};

/// The handle type of an actor class (`actor` for one that names none).
template <class T>
struct pointer_handle {
  using type = actor;
};

template <class T>
  requires requires { typename T::handle_type; }
struct pointer_handle<T> {
  using type = typename T::handle_type;
};

/// An actor pointer accepts and answers what its handle type does.
template <class T, class... Ts>
struct handle_accepts<T*, Ts...> : handle_accepts<typename pointer_handle<T>::type, Ts...> {};

template <class T, class... Ts>
struct handle_response<T*, Ts...> : handle_response<typename pointer_handle<T>::type, Ts...> {};

template <class Handle, class... Ts>
inline constexpr bool handle_accepts_v = handle_accepts<std::decay_t<Handle>, Ts...>::value;

template <class Handle, class... Ts>
using handle_response_t = typename handle_response<std::decay_t<Handle>, Ts...>::type;

/// Checks at compile time that `Handle` takes a message built from `Ts...`.
template <class Handle, class... Ts>
constexpr void check_message() {
  static_assert(sizeof...(Ts) > 0, "troupe: cannot send an empty message");
  static_assert(handle_accepts_v<Handle, message_element_t<Ts>...>,
                "troupe: the typed receiver has no handler for these arguments");
}

/// What `Handle` answers to a request built from `Ts...`.
template <class Handle, class... Ts>
using request_response_t = handle_response_t<Handle, message_element_t<Ts>...>;

/// Checks at compile time that a response handler `F` takes what a typed
/// receiver answers; dynamically typed responses are checked at run time.
template <class Response, class F>
void check_response_type() {
  if constexpr (!std::is_void_v<Response>) {
    using args = typename callable_trait_t<F>::decayed_arg_types;
    static_assert(std::is_same_v<args, Response>,
                  "troupe: the response handler's arguments do not match the "
                  "typed receiver's response type");
  }
}

} // namespace troupe::detail
