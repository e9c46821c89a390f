#pragma once

// RapidCheck generators for the types of serialization_types.hpp and for
// the standard wrappers they use, shared by the property tests.

#include "serialization_types.hpp"

#include <rapidcheck.h>

#include <optional>
#include <utility>
#include <variant>

namespace rc {

template <>
struct Arbitrary<serialization_types::foo> {
  static Gen<serialization_types::foo> arbitrary() {
    using serialization_types::foo;
    return gen::build<foo>(gen::set(&foo::a), gen::set(&foo::b));
  }
};

template <>
struct Arbitrary<serialization_types::bar> {
  static Gen<serialization_types::bar> arbitrary() {
    using serialization_types::bar;
    return gen::build<bar>(gen::set(&bar::a), gen::set(&bar::b));
  }
};

template <>
struct Arbitrary<serialization_types::with_optionals> {
  static Gen<serialization_types::with_optionals> arbitrary() {
    using serialization_types::with_optionals;
    return gen::build<with_optionals>(gen::set(&with_optionals::label),
                                      gen::set(&with_optionals::count));
  }
};

template <class T>
struct Arbitrary<std::optional<T>> {
  static Gen<std::optional<T>> arbitrary() {
    return gen::oneOf(gen::just(std::optional<T>{}),
                      gen::map(gen::arbitrary<T>(), [](T x) { return std::optional<T>{x}; }));
  }
};

template <class... Ts>
struct Arbitrary<std::variant<Ts...>> {
  static Gen<std::variant<Ts...>> arbitrary() {
    return gen::oneOf(
      gen::map(gen::arbitrary<Ts>(), [](Ts x) { return std::variant<Ts...>{std::move(x)}; })...);
  }
};

} // namespace rc
