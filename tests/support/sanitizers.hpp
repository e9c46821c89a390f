#pragma once

// Whether this build runs under ASan or TSan, for tests that shrink their
// workload there: a sanitizer runs the code 5-20x slower, and each test file
// must stay within about a minute under it.

namespace troupe::test {

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool sanitized = true;
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
inline constexpr bool sanitized = true;
#  else
inline constexpr bool sanitized = false;
#  endif
#else
inline constexpr bool sanitized = false;
#endif

/// `full` in an optimised build, `small` under a sanitizer.
template <class T>
constexpr T scaled(T full, T small) noexcept {
  return sanitized ? small : full;
}

} // namespace troupe::test
