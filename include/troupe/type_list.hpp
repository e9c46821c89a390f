#pragma once

// A list of types, as CAF's: the signatures of a typed actor's trait
// (`using signatures = type_list<result<int>(add_atom, int, int)>;`), a
// handler's argument types.

#include <cstddef>

namespace troupe {

template <class... Ts>
struct type_list {
  static constexpr size_t size = sizeof...(Ts);
};

} // namespace troupe
