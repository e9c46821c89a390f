#pragma once

// The text behind `self->println(...)` and `sys.println(...)`: the format
// rules of the TROUPE_LOG_* macros (`{}` and `{:spec}` placeholders, checked
// when the program compiles), with any other type printed as deep_to_string
// does (and under a spec formatted as that string).

#include "troupe/logger.hpp"
#include "troupe/serialization/stringification_inspector.hpp"

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

template <class T>
void append_print_arg_with_spec(std::string& out, std::string_view spec, const T& x) {
  if constexpr (log_arg_kind_of<T>() == log_arg_kind::text) {
    std::string text;
    append_print_arg(text, x);
    append_log_text(out, spec, text);
  } else {
    append_log_number(out, spec, x);
  }
}

template <class... Ts>
std::string format_line(log_format_string<std::type_identity_t<Ts>...> fmt, const Ts&... xs) {
  std::string out;
  auto str = fmt.get();
  size_t pos = 0;
  std::string_view spec;
  [[maybe_unused]] auto append = [&](const auto& x) {
    pos = append_log_literal(out, str, pos, spec);
    if (spec.empty())
      append_print_arg(out, x);
    else
      append_print_arg_with_spec(out, spec, x);
  };
  (append(xs), ...);
  append_log_literal(out, str, pos, spec);
  return out;
}

/// Writes `line` and a newline to stdout as one piece (lines printed by
/// different threads never mix) and flushes it.
void print_line(std::string_view line);

} // namespace troupe::detail
