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
#include "troupe/behavior.hpp"
#include "troupe/detail/handle_traits.hpp"
#include "troupe/response_promise.hpp"
#include "troupe/scheduled_actor.hpp"
#include "troupe/stateful_actor.hpp"

#include <type_traits>
#include <utility>

namespace troupe {

template <class... Sigs>
class typed_actor;

template <class... Sigs>
class typed_behavior;

template <class... Sigs>
class typed_event_based_actor;

namespace detail {

/// Input and output types of a signature `result<Rs...>(Args...)`.
template <class Sig>
struct signature_parts;

template <class... Rs, class... Args>
struct signature_parts<result<Rs...>(Args...)> {
  using input = type_list<std::decay_t<Args>...>;
  using output = type_list<Rs...>;
};

template <class... Args>
struct signature_parts<result<void>(Args...)> {
  using input = type_list<std::decay_t<Args>...>;
  using output = type_list<>;
};

/// The response types a handler returning `R` produces.
template <class R>
struct handler_output {
  using type = type_list<std::decay_t<R>>;
};

template <>
struct handler_output<void> {
  using type = type_list<>;
};

template <class... Ts>
struct handler_output<result<Ts...>> {
  using type = type_list<Ts...>;
};

template <>
struct handler_output<result<void>> {
  using type = type_list<>;
};

template <class... Ts>
struct handler_output<delegated<Ts...>> {
  using type = type_list<Ts...>;
};

template <class... Ts>
struct handler_output<typed_response_promise<Ts...>> {
  using type = type_list<Ts...>;
};

template <class T>
struct handler_output<expected<T>> {
  using type = type_list<T>;
};

template <>
struct handler_output<expected<void>> {
  using type = type_list<>;
};

template <class... Ts>
struct handler_output<std::tuple<Ts...>> {
  using type = type_list<Ts...>;
};

template <class F>
struct handler_signature {
  using trait = callable_trait_t<F>;
  using input = typename trait::decayed_arg_types;
  using output = typename handler_output<std::decay_t<typename trait::result_type>>::type;
};

/// True if some signature in `Sigs...` takes `Input`.
template <class Input, class... Sigs>
inline constexpr bool accepts_input_v
  = (std::is_same_v<typename signature_parts<Sigs>::input, Input> || ...);

template <class Input, class... Sigs>
struct output_for {
  using type = void;
};

template <class Input, class Sig, class... Sigs>
struct output_for<Input, Sig, Sigs...> {
  using type = std::conditional_t<
    std::is_same_v<typename signature_parts<Sig>::input, Input>,
    typename signature_parts<Sig>::output, typename output_for<Input, Sigs...>::type>;
};

/// True if a handler in `Fs...` implements `Sig` exactly.
template <class Sig, class... Fs>
inline constexpr bool implemented_v
  = ((std::is_same_v<typename handler_signature<Fs>::input,
                     typename signature_parts<Sig>::input>
      && std::is_same_v<typename handler_signature<Fs>::output,
                        typename signature_parts<Sig>::output>)
     || ...);

/// True if handler `F` implements one of `Sigs...`.
template <class F, class... Sigs>
inline constexpr bool declared_v
  = ((std::is_same_v<typename handler_signature<F>::input,
                     typename signature_parts<Sigs>::input>
      && std::is_same_v<typename handler_signature<F>::output,
                        typename signature_parts<Sigs>::output>)
     || ...);

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

template <class... Sigs>
struct behavior_actor<typed_behavior<Sigs...>> {
  using type = typed_event_based_actor<Sigs...>;
};

} // namespace detail

/// A behavior checked against the signatures `Sigs...`: every signature has
/// exactly one handler and every handler implements a signature.
template <class... Sigs>
class typed_behavior {
public:
  typed_behavior() = default;

  template <detail::message_handler... Fs>
    requires(sizeof...(Fs) > 0)
  typed_behavior(Fs... fs) : impl_(std::move(fs)...) {
    static_assert((detail::implemented_v<Sigs, Fs...> && ...),
                  "troupe: a signature of the typed actor has no handler with "
                  "matching argument and result types");
    static_assert((detail::declared_v<Fs, Sigs...> && ...),
                  "troupe: a handler implements no signature of the typed actor");
  }

  const behavior& unbox() const& noexcept {
    return impl_;
  }

  behavior unbox() && noexcept {
    return std::move(impl_);
  }

  explicit operator bool() const noexcept {
    return static_cast<bool>(impl_);
  }

private:
  behavior impl_;
};

template <class... Sigs>
behavior unbox_behavior(typed_behavior<Sigs...> x) noexcept {
  return std::move(x).unbox();
}

/// The class-based typed actor: override make_behavior.
template <class... Sigs>
class typed_event_based_actor : public scheduled_actor {
public:
  using behavior_type = typed_behavior<Sigs...>;
  using handle_type = typed_actor<Sigs...>;

  using scheduled_actor::scheduled_actor;

  void become(behavior_type bhvr) {
    scheduled_actor::become(std::move(bhvr).unbox());
  }

  void become(keep_behavior_t, behavior_type bhvr) {
    scheduled_actor::become(keep_behavior, std::move(bhvr).unbox());
  }

protected:
  virtual behavior_type make_behavior() {
    return {};
  }

  behavior initial_behavior() override {
    return make_behavior().unbox();
  }
};

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

  /// The dynamically typed handle.
  const actor& untyped() const noexcept {
    return hdl_;
  }

  friend bool operator==(const typed_actor& x, const typed_actor& y) noexcept {
    return x.hdl_ == y.hdl_;
  }

  friend std::string to_string(const typed_actor& x) {
    return to_string(x.hdl_);
  }

private:
  actor hdl_;
};

/// The signatures of a typed actor, for a trait: `using signatures =
/// type_list<result<int>(add_atom, int, int), ...>;`.
using detail::type_list;

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
