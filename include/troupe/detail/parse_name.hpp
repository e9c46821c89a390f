#pragma once

// parse_name: the from_string of an enum whose names to_string gives.

#include <cstddef>
#include <string_view>

namespace troupe::detail {

/// Sets `x` to the value of `all` whose name (`name_of(value)`) is `str`;
/// false and `x` unchanged if none has it.
template <class Enum, size_t N, class NameOf>
constexpr bool parse_name(std::string_view str, const Enum (&all)[N], NameOf name_of,
                          Enum& x) noexcept {
  for (auto value : all) {
    if (name_of(value) == str) {
      x = value;
      return true;
    }
  }
  return false;
}

} // namespace troupe::detail
