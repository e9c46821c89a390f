#pragma once

// CAF's CAF_RAISE_ERROR: logs `msg` at error level (component "app") and
// throws, a std::runtime_error or the exception type given first.
//
//   TROUPE_RAISE_ERROR("failed to serialize shape!");
//   TROUPE_RAISE_ERROR(std::logic_error, "unreachable");
//
// In a handler the exception ends the actor as any other would (see the
// README's "Errors").

#include "troupe/detail/pp.hpp"
#include "troupe/logger.hpp"

#include <concepts>
#include <stdexcept>

namespace troupe::detail {

template <class Exception>
[[noreturn]] void raise_error(const char* msg) {
  TROUPE_LOG_ERROR("app", "{}", msg);
  if constexpr (std::constructible_from<Exception, const char*>)
    throw Exception{msg};
  else
    throw Exception{};
}

} // namespace troupe::detail

#define TROUPE_RAISE_ERROR_1(msg) ::troupe::detail::raise_error<std::runtime_error>(msg)
#define TROUPE_RAISE_ERROR_2(exception_type, msg)                              \
  ::troupe::detail::raise_error<exception_type>(msg)
#define TROUPE_RAISE_ERROR(...)                                                \
  TROUPE_PP_ARG_3(__VA_ARGS__, TROUPE_RAISE_ERROR_2, TROUPE_RAISE_ERROR_1, none)(__VA_ARGS__)
