#pragma once

// A typed actor's behavior: its handlers checked at compile time against the
// signatures of its interface, `result<Out...>(In...)` each (see
// troupe/typed_actor.hpp).

#include "troupe/behavior.hpp"
#include "troupe/detail/handle_traits.hpp"
#include "troupe/response_promise.hpp"

#include <tuple>
#include <type_traits>
#include <utility>

namespace troupe {

template <class... Sigs>
class typed_actor;

template <class... Sigs>
class typed_behavior;

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

} // namespace troupe
