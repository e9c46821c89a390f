#include "troupe/detail/assert.hpp"

#include <cstdio>
#include <cstdlib>

namespace troupe::detail {

// Defined in every build, so that objects built with and without assertions
// link together.
[[noreturn]] void assertion_failed(const char* condition, const char* file, int line) noexcept {
  std::fprintf(stderr, "[troupe] assertion failed: %s (%s:%d)\n", condition, file, line);
  std::fflush(stderr);
  std::abort();
}

} // namespace troupe::detail
