#pragma once

// Signature of a callable: its result type and argument types.

#include "troupe/type_list.hpp"

#include <cstddef>
#include <functional>
#include <tuple>
#include <type_traits>

namespace troupe::detail {

using troupe::type_list;

template <class Signature>
struct signature_trait;

template <class R, class... Ts>
struct signature_trait<R(Ts...)> {
  using result_type = R;
  using arg_types = type_list<Ts...>;
  using decayed_arg_types = type_list<std::decay_t<Ts>...>;
  static constexpr size_t num_args = sizeof...(Ts);
};

template <class F, class = void>
struct callable_trait;

template <class R, class... Ts>
struct callable_trait<R (*)(Ts...)> : signature_trait<R(Ts...)> {};

template <class R, class... Ts>
struct callable_trait<R(Ts...)> : signature_trait<R(Ts...)> {};

template <class C, class R, class... Ts>
struct callable_trait<R (C::*)(Ts...)> : signature_trait<R(Ts...)> {};

template <class C, class R, class... Ts>
struct callable_trait<R (C::*)(Ts...) const> : signature_trait<R(Ts...)> {};

template <class C, class R, class... Ts>
struct callable_trait<R (C::*)(Ts...) noexcept> : signature_trait<R(Ts...)> {};

template <class C, class R, class... Ts>
struct callable_trait<R (C::*)(Ts...) const noexcept> : signature_trait<R(Ts...)> {};

template <class R, class... Ts>
struct callable_trait<R (*)(Ts...) noexcept> : signature_trait<R(Ts...)> {};

template <class F>
struct callable_trait<F, std::void_t<decltype(&F::operator())>>
  : callable_trait<decltype(&F::operator())> {};

template <class F>
using callable_trait_t = callable_trait<std::decay_t<F>>;

template <class List>
struct type_list_head;

template <class T, class... Ts>
struct type_list_head<type_list<T, Ts...>> {
  using type = T;
};

template <class List>
struct type_list_tail;

template <class T, class... Ts>
struct type_list_tail<type_list<T, Ts...>> {
  using type = type_list<Ts...>;
};

} // namespace troupe::detail
