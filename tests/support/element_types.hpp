#pragma once

// Message element types for the tests of message and message_builder that
// check what happens when copying an element throws and that no message data
// leaks. They carry their own type-ID block, so that both test files can
// include this header and still never clash if linked together.

#include "troupe/detail/thread_cache.hpp"
#include "troupe/type_id.hpp"

#include <stdexcept>

namespace troupe::test {

// A type whose copy constructor throws while `fail` is set.
struct fragile {
  static inline int live = 0;
  static inline bool fail = false;

  fragile() {
    ++live;
  }
  fragile(const fragile&) {
    if (fail)
      throw std::runtime_error("fragile: copy failed");
    ++live;
  }
  fragile(fragile&&) noexcept {
    ++live;
  }
  ~fragile() {
    --live;
  }
};

// Big enough that a message holding it bypasses the thread cache, so leaked
// message data shows in allocations::large_live() (support/allocations.hpp).
struct blob {
  char bytes[detail::thread_cache_max_block + 1] = {};
};

} // namespace troupe::test

TROUPE_BEGIN_TYPE_ID_BLOCK(test_element_types, 1800)
  TROUPE_ADD_TYPE_ID(test_element_types, (troupe::test::fragile))
  TROUPE_ADD_TYPE_ID(test_element_types, (troupe::test::blob))
TROUPE_END_TYPE_ID_BLOCK(test_element_types)
