#include "troupe/detail/allocator.hpp"

#include <cstdlib>
#include <mutex>

#if TROUPE_MIMALLOC
#include <mimalloc.h>
#endif

namespace troupe::detail {

bool allocator_is_mimalloc() noexcept {
#if TROUPE_MIMALLOC
  return true;
#else
  return false;
#endif
}

void configure_allocator() noexcept {
#if TROUPE_MIMALLOC
  static std::once_flag once;
  std::call_once(once, [] {
    // mimalloc reads its options from the environment when the process
    // starts, so a default set now would not apply: set it unless the user
    // chose a value. The core study measured no cost in time (actor
    // creation, ping-pong, mixed case: ratios 0.99 to 1.02).
    if (std::getenv("MIMALLOC_DECOMMIT_DELAY") == nullptr)
      mi_option_set(mi_option_decommit_delay, 0);
  });
#endif
}

} // namespace troupe::detail
