#pragma once

// The steady clock as a number, for times kept in atomics (when a socket
// last took bytes, when an inline run began).

#include <chrono>
#include <cstdint>

namespace troupe::net::detail {

inline int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

} // namespace troupe::net::detail
