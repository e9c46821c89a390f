#pragma once

// Time points as text, as CAF's caf/chrono.hpp prints them: ISO 8601 in local
// time with the UTC offset, e.g. "2026-12-07T15:04:05.25+01:00".
//
//   troupe::chrono::to_string(system_clock::now());                 // ns, trimmed
//   troupe::chrono::to_string<std::chrono::milliseconds>(now);      // at most 3 digits
//   troupe::chrono::to_string<std::chrono::milliseconds, troupe::chrono::fixed>(now);
//
// The resolution (seconds, milliseconds, microseconds or nanoseconds) gives
// the most fractional digits; without `fixed` trailing zeros are left out,
// and the point too when no digit is left.

#include "troupe/type_id.hpp"

#include <chrono>
#include <ctime>
#include <string>
#include <type_traits>

namespace troupe::chrono {

/// Policy: always print as many fractional digits as the resolution has.
struct fixed {};

template <class Duration>
using sys_time = std::chrono::time_point<std::chrono::system_clock, Duration>;

namespace detail {

/// Fractional digits of a resolution.
template <class Resolution>
constexpr int precision_of() noexcept {
  if constexpr (std::is_same_v<Resolution, std::chrono::seconds>)
    return 0;
  else if constexpr (std::is_same_v<Resolution, std::chrono::milliseconds>)
    return 3;
  else if constexpr (std::is_same_v<Resolution, std::chrono::microseconds>)
    return 6;
  else {
    static_assert(std::is_same_v<Resolution, std::chrono::nanoseconds>,
                  "troupe::chrono: the resolution is seconds, milliseconds, "
                  "microseconds or nanoseconds");
    return 9;
  }
}

/// `secs` since the epoch and `nanos` into the second, as ISO 8601 text.
std::string format_local_time(std::time_t secs, long nanos, int precision, bool fixed);

} // namespace detail

template <class Resolution = std::chrono::nanoseconds, class Policy = unit_t, class Duration>
std::string to_string(sys_time<Duration> ts) {
  using namespace std::chrono;
  auto since_epoch = duration_cast<nanoseconds>(ts.time_since_epoch());
  auto secs = floor<seconds>(since_epoch);
  auto nanos = (since_epoch - secs).count();
  return detail::format_local_time(static_cast<std::time_t>(secs.count()), static_cast<long>(nanos),
                                   detail::precision_of<Resolution>(),
                                   std::is_same_v<Policy, fixed>);
}

} // namespace troupe::chrono
