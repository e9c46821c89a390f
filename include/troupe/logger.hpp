#pragma once

// A process-wide logger. The level check is one relaxed atomic load, so hot
// paths can afford a disabled TROUPE_LOG_DEBUG: the macros evaluate none of
// their arguments and format nothing unless the level is enabled.
//
//   TROUPE_LOG_WARNING("scheduler", "worker {} parked {} times", id, parks);
//
// writes the line "[troupe] warning scheduler: worker 3 parked 12 times".
// Format strings take `{}` placeholders only ("{{" and "}}" print a brace);
// a placeholder count that differs from the argument count does not compile.
// Arguments print as: strings as they are, bool as true/false, numbers in
// their shortest exact form, std::chrono durations as 10ms, anything else
// through a to_string(x) found by ADL (a message shows the fields of
// elements that have an inspect(); see deep_to_string).

#include "troupe/defaults.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ratio>
#include <string>
#include <string_view>
#include <type_traits>

namespace troupe {

/// How much the logger prints; each level includes the ones above it.
enum class log_level : uint8_t {
  /// Nothing at all.
  quiet,
  error,
  warning,
  info,
  debug,
  trace,
};

/// "quiet", "error", "warning", "info", "debug" or "trace".
std::string to_string(log_level x);

/// Parses the names to_string produces. Returns false and leaves `x` alone on
/// anything else.
constexpr bool from_string(std::string_view str, log_level& x) noexcept {
  constexpr std::string_view names[] = {"quiet", "error", "warning",
                                        "info",  "debug", "trace"};
  for (size_t i = 0; i < std::size(names); ++i) {
    if (names[i] == str) {
      x = static_cast<log_level>(i);
      return true;
    }
  }
  return false;
}

namespace detail {

consteval log_level parse_default_log_level() {
  log_level result = log_level::quiet;
  if (!from_string(defaults::logger::verbosity, result))
    throw "defaults::logger::verbosity names no log level";
  return result;
}

} // namespace detail

/// The level of troupe.logger.verbosity when nobody set it.
inline constexpr log_level default_log_level = detail::parse_default_log_level();

/// The process-wide logger. Every function may be called from any thread.
class logger {
public:
  /// Receives each enabled line, without a trailing newline.
  using sink_type = std::function<void(log_level level, std::string_view line)>;

  logger() = delete;

  static void set_level(log_level x) noexcept {
    level_.store(x, std::memory_order_relaxed);
  }

  static log_level level() noexcept {
    return level_.load(std::memory_order_relaxed);
  }

  /// True if a message of level `x` would be written. Relaxed: a thread may
  /// see a new level a little late, which costs a line at most.
  static bool enabled(log_level x) noexcept {
    return x != log_level::quiet && x <= level_.load(std::memory_order_relaxed);
  }

  /// Replaces the sink (stderr by default; an empty function restores it) and
  /// returns the previous one (empty for the default). Calls to the sink are
  /// serialised; a sink must not log itself.
  static sink_type set_sink(sink_type f);

  /// Writes "[troupe] <level> <component>: <msg>" if `x` is enabled. Never
  /// throws: a line that cannot be written is dropped.
  static void log(log_level x, std::string_view component, std::string_view msg) noexcept;

private:
  static inline std::atomic<log_level> level_{default_log_level};
};

// -- formatting for the TROUPE_LOG_* macros ----------------------------------------

namespace detail {

/// Deliberately neither constexpr nor defined: reaching it while checking a
/// format string at compile time is the compile error.
void troupe_log_format_has_a_lone_brace_or_wrong_placeholder_count();

/// The number of `{}` in `str`; "{{" and "}}" are escaped braces.
consteval size_t count_log_placeholders(std::string_view str) {
  size_t result = 0;
  for (size_t i = 0; i < str.size(); ++i) {
    if (str[i] != '{' && str[i] != '}')
      continue;
    char next = i + 1 < str.size() ? str[i + 1] : '\0';
    if (str[i] == '{' && next == '}')
      ++result;
    else if (next != str[i])
      troupe_log_format_has_a_lone_brace_or_wrong_placeholder_count();
    ++i;
  }
  return result;
}

/// A format string whose placeholders match the argument types `Ts`.
template <class... Ts>
class log_format_string {
public:
  template <class S>
    requires std::is_convertible_v<const S&, std::string_view>
  consteval log_format_string(const S& str) : str_(str) {
    if (count_log_placeholders(str_) != sizeof...(Ts))
      troupe_log_format_has_a_lone_brace_or_wrong_placeholder_count();
  }

  constexpr std::string_view get() const noexcept {
    return str_;
  }

private:
  std::string_view str_;
};

/// Appends the literal text of `fmt` from `pos` up to the next `{}`, with
/// escaped braces unescaped, and returns the position after that `{}` (or
/// fmt.size() when there is none).
size_t append_log_literal(std::string& out, std::string_view fmt, size_t pos);

void append_log_value(std::string& out, long long x);
void append_log_value(std::string& out, unsigned long long x);
void append_log_value(std::string& out, float x);
void append_log_value(std::string& out, double x);
void append_log_value(std::string& out, long double x);
void append_log_value(std::string& out, const void* x);

template <class T>
struct is_chrono_duration : std::false_type {};

template <class Rep, class Period>
struct is_chrono_duration<std::chrono::duration<Rep, Period>> : std::true_type {};

/// "ns", "us", "ms", "s", "min", "h", or empty for any other period.
template <class Period>
constexpr std::string_view duration_suffix() noexcept {
  if constexpr (std::is_same_v<Period, std::nano>)
    return "ns";
  else if constexpr (std::is_same_v<Period, std::micro>)
    return "us";
  else if constexpr (std::is_same_v<Period, std::milli>)
    return "ms";
  else if constexpr (std::is_same_v<Period, std::ratio<1>>)
    return "s";
  else if constexpr (std::is_same_v<Period, std::ratio<60>>)
    return "min";
  else if constexpr (std::is_same_v<Period, std::ratio<3600>>)
    return "h";
  else
    return {};
}

template <class>
inline constexpr bool always_false = false;

template <class T>
void append_log_arg(std::string& out, const T& x) {
  if constexpr (std::is_same_v<T, bool>) {
    out += x ? "true" : "false";
  } else if constexpr (std::is_same_v<T, char>) {
    out += x;
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    if constexpr (std::is_pointer_v<T>) {
      if (x == nullptr) {
        out += "(null)";
        return;
      }
    }
    out += std::string_view{x};
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    append_log_value(out, static_cast<long long>(x));
  } else if constexpr (std::is_integral_v<T>) {
    append_log_value(out, static_cast<unsigned long long>(x));
  } else if constexpr (std::is_floating_point_v<T>) {
    append_log_value(out, x);
  } else if constexpr (is_chrono_duration<T>::value) {
    using period = typename T::period;
    if constexpr (duration_suffix<period>().empty()) {
      append_log_arg(out, std::chrono::duration_cast<std::chrono::nanoseconds>(x));
    } else {
      append_log_arg(out, x.count());
      out += duration_suffix<period>();
    }
  } else if constexpr (requires { to_string(x); }) {
    out += to_string(x);
  } else if constexpr (std::is_enum_v<T>) {
    append_log_arg(out, static_cast<std::underlying_type_t<T>>(x));
  } else if constexpr (std::is_pointer_v<T>) {
    append_log_value(out, static_cast<const void*>(x));
  } else {
    static_assert(always_false<T>,
                  "troupe: TROUPE_LOG_* cannot print this type; give it a "
                  "to_string(const T&) that ADL finds");
  }
}

template <class... Ts>
std::string format_log(log_format_string<std::type_identity_t<Ts>...> fmt, const Ts&... xs) {
  std::string out;
  auto str = fmt.get();
  size_t pos = 0;
  ((pos = append_log_literal(out, str, pos), append_log_arg(out, xs)), ...);
  append_log_literal(out, str, pos);
  return out;
}

} // namespace detail

} // namespace troupe

/// Logs at `level` if it is enabled; evaluates nothing otherwise.
#define TROUPE_LOG(level, component, ...)                                      \
  do {                                                                         \
    if (::troupe::logger::enabled(level))                                      \
      ::troupe::logger::log(level, component,                                  \
                            ::troupe::detail::format_log(__VA_ARGS__));        \
  } while (false)

#define TROUPE_LOG_ERROR(component, ...)                                       \
  TROUPE_LOG(::troupe::log_level::error, component, __VA_ARGS__)
#define TROUPE_LOG_WARNING(component, ...)                                     \
  TROUPE_LOG(::troupe::log_level::warning, component, __VA_ARGS__)
#define TROUPE_LOG_INFO(component, ...)                                        \
  TROUPE_LOG(::troupe::log_level::info, component, __VA_ARGS__)
#define TROUPE_LOG_DEBUG(component, ...)                                       \
  TROUPE_LOG(::troupe::log_level::debug, component, __VA_ARGS__)
#define TROUPE_LOG_TRACE(component, ...)                                       \
  TROUPE_LOG(::troupe::log_level::trace, component, __VA_ARGS__)
