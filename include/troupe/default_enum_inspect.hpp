#pragma once

// CAF's inspect for an enum that names its values: by name in human-readable
// formats (JSON, deep_to_string), as its integer in binary. The enum's
// namespace provides, found by ADL,
//
//   std::string to_string(E);
//   bool from_string(std::string_view, E&);
//   bool from_integer(std::underlying_type_t<E>, E&);
//
// and its inspect overload returns default_enum_inspect(f, x). A name or an
// integer the enum rejects fails with errc::malformed_input.

#include "troupe/serialization/inspect.hpp"

#include <string>
#include <string_view>
#include <type_traits>

namespace troupe {

template <class Inspector, class E>
  requires std::is_enum_v<E>
bool default_enum_inspect(Inspector& f, E& x) {
  using integer = std::underlying_type_t<E>;
  if constexpr (Inspector::has_human_readable_format) {
    return detail::inspect_enum_name(f, x);
  } else if constexpr (Inspector::is_loading) {
    integer value{};
    if (!f.value(value))
      return false;
    if (!from_integer(value, x))
      return detail::fail(f, errc::malformed_input,
                          "no enumerator has the value " + std::to_string(+value));
    return true;
  } else {
    return f.value(static_cast<integer>(x));
  }
}

} // namespace troupe
