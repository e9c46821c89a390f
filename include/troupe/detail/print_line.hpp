#pragma once

// The text behind `self->println(...)` and `sys.println(...)`: the format
// rules of the TROUPE_LOG_* macros (`{}` and `{:spec}` placeholders, checked
// when the program compiles), with any other type printed as deep_to_string
// does (and under a spec formatted as that string).

#include "troupe/logger.hpp"
#include "troupe/deep_to_string.hpp"

#include <string>
#include <string_view>
#include <type_traits>

namespace troupe::detail {

template <class T>
void append_print_arg(std::string& out, const T& x) {
  if constexpr (std::is_arithmetic_v<T> || std::is_convertible_v<const T&, std::string_view>
                || is_chrono_duration<T>::value)
    append_log_arg(out, x);
  else
    append_deep_to_string(out, x);
}

template <class... Ts>
std::string format_line(log_format_string<std::type_identity_t<Ts>...> fmt, const Ts&... xs) {
  return format_placeholders(
    fmt.get(), [](std::string& out, const auto& x) { append_print_arg(out, x); }, xs...);
}

/// Writes `line` and a newline to stdout as one piece (lines printed by
/// different threads never mix) and flushes it.
void print_line(std::string_view line);

} // namespace troupe::detail
