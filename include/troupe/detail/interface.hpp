#pragma once

// The interface of a handle type as text, one entry per signature
// ("(troupe::add_atom, int32_t, int32_t) -> (int32_t)"): what the registry
// keeps with a named actor, what a node announces for the actor it
// publishes, and what a typed lookup checks it against. A dynamically typed
// `actor` has none.

#include "troupe/actor.hpp"
#include "troupe/detail/callable_trait.hpp"
#include "troupe/type_id.hpp"

#include <string>
#include <type_traits>
#include <vector>

namespace troupe {

// Declared here, defined in typed_actor.hpp: a typed handle's interface is
// asked for where its type is complete.
template <class... Sigs>
class typed_actor;

} // namespace troupe

namespace troupe::detail {

template <class Sig>
struct signature_parts;

template <class T>
std::string type_name_or_placeholder() {
  if constexpr (has_type_id_v<T>)
    return std::string{type_name_v<T>};
  else
    return "<a type without ID>";
}

template <class... Ts>
std::string type_names(type_list<Ts...>) {
  std::string result;
  ((result += (result.empty() ? "" : ", ") + type_name_or_placeholder<Ts>()), ...);
  return result;
}

template <class Sig>
std::string signature_text() {
  using parts = signature_parts<Sig>;
  return "(" + type_names(typename parts::input{}) + ") -> ("
         + type_names(typename parts::output{}) + ")";
}

template <class... Sigs>
std::vector<std::string> interface_of(const typed_actor<Sigs...>*) {
  return {signature_text<Sigs>()...};
}

inline std::vector<std::string> interface_of(const actor*) {
  return {};
}

/// The interface of handle type `Handle`.
template <class Handle>
std::vector<std::string> interface_of() {
  return interface_of(static_cast<const Handle*>(nullptr));
}

} // namespace troupe::detail

namespace troupe::detail {

/// True if an actor offering `offered` takes every signature of `expected`
/// (a dynamically typed handle expects none).
inline bool offers_interface(const std::vector<std::string>& offered,
                             const std::vector<std::string>& expected) {
  for (auto& sig : expected) {
    bool found = false;
    for (auto& x : offered)
      found = found || x == sig;
    if (!found)
      return false;
  }
  return true;
}

} // namespace troupe::detail
