#pragma once

// The interface of a handle type as text, one entry per signature
// ("(add_atom, int32_t, int32_t) -> (int32_t)"): what a node announces for
// the actor it publishes and what remote_actor<Handle> checks it against.
// A dynamically typed `actor` has none.

#include "troupe/actor.hpp"
#include "troupe/typed_actor.hpp"

#include <string>
#include <type_traits>
#include <vector>

namespace troupe::net::detail {

template <class T>
std::string type_name_or_placeholder() {
  if constexpr (has_type_id_v<T>)
    return std::string{type_name_v<T>};
  else
    return "<a type without ID>";
}

template <class... Ts>
std::string type_names(troupe::detail::type_list<Ts...>) {
  std::string result;
  ((result += (result.empty() ? "" : ", ") + type_name_or_placeholder<Ts>()), ...);
  return result;
}

template <class Sig>
std::string signature_text() {
  using parts = troupe::detail::signature_parts<Sig>;
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

} // namespace troupe::net::detail
