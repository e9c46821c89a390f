#pragma once

// TROUPE_ASSERT(cond): checks an invariant in builds configured with
// TROUPE_ASSERTIONS (on by default in the debug and sanitizer presets) and
// costs nothing elsewhere. A failed check prints the condition and where it
// is, then aborts: the state is already wrong, and going on would hide where.

#ifdef TROUPE_ENABLE_ASSERTIONS

namespace troupe::detail {

[[noreturn]] void assertion_failed(const char* condition, const char* file, int line) noexcept;

} // namespace troupe::detail

#define TROUPE_ASSERT(condition)                                               \
  ((condition) ? static_cast<void>(0)                                          \
               : ::troupe::detail::assertion_failed(#condition, __FILE__, __LINE__))

#else

#define TROUPE_ASSERT(condition) static_cast<void>(0)

#endif
