#pragma once

// A process-wide logger. The level check is one relaxed atomic load, so hot
// paths can afford a disabled TROUPE_LOG_DEBUG: the macros evaluate none of
// their arguments and format nothing unless the level is enabled.
//
//   TROUPE_LOG_WARNING("scheduler", "worker {} parked {} times", id, parks);
//
// writes the line "[troupe] warning scheduler: worker 3 parked 12 times".
// Format strings take `{}` placeholders and `{:spec}` with a std::format
// spec, as in "{:>8}" or "{:.2f}" ("{{" and "}}" print a brace). What does not
// compile: a placeholder count that differs from the argument count, an
// argument id ("{0}"), and a spec that does not fit its argument's type.
// Arguments print as: strings as they are, bool as true/false, numbers in
// their shortest exact form, std::chrono durations as 10ms, anything else
// through a to_string(x) found by ADL (a message shows the fields of
// elements that have an inspect(); see deep_to_string). A spec formats
// numbers, bools and chars as std::format does; any other argument is
// printed as above and then padded or cut as a string ("{:>8}", "{:.3}").

#include "troupe/defaults.hpp"

#include <atomic>
#include <chrono>
#include <climits>
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

// Deliberately neither constexpr nor defined: reaching one of these while
// checking a format string at compile time is the compile error, and its name
// is the message.
void troupe_log_format_has_a_lone_brace_or_wrong_placeholder_count();
void troupe_log_format_has_an_unclosed_placeholder();
void troupe_log_format_placeholders_take_no_argument_id();
void troupe_log_format_spec_takes_no_nested_placeholder();
void troupe_log_format_spec_is_malformed();
void troupe_log_format_spec_does_not_fit_its_argument();

/// How an argument takes a format spec: the numeric kinds as std::format
/// formats that type, `text` as a string (what `{}` prints for it).
enum class log_arg_kind : uint8_t {
  integer,
  floating_point,
  boolean,
  character,
  text,
};

template <class T>
constexpr log_arg_kind log_arg_kind_of() noexcept {
  if constexpr (std::is_same_v<T, bool>)
    return log_arg_kind::boolean;
  else if constexpr (std::is_same_v<T, char>)
    return log_arg_kind::character;
  else if constexpr (std::is_integral_v<T>)
    return log_arg_kind::integer;
  else if constexpr (std::is_floating_point_v<T>)
    return log_arg_kind::floating_point;
  else
    return log_arg_kind::text;
}

/// The parts of a std-format-spec that decide which arguments it fits.
struct log_format_spec {
  bool sign = false;
  bool alternate = false;
  bool zero_pad = false;
  bool precision = false;
  bool localized = false;
  /// The presentation type, '\0' for none.
  char type = '\0';
};

/// Skips the digits of a width or precision at `spec[i]`: at least one, and a
/// value that fits the formatter's int.
consteval void skip_log_format_number(std::string_view spec, size_t& i) {
  long long value = 0;
  size_t first = i;
  for (; i < spec.size() && spec[i] >= '0' && spec[i] <= '9'; ++i) {
    value = value * 10 + (spec[i] - '0');
    if (value > INT_MAX)
      troupe_log_format_spec_is_malformed();
  }
  if (i == first)
    troupe_log_format_spec_is_malformed();
}

/// Where the [[fill]align] at the start of a format spec ends: 0 if it has
/// none. The fill is one code point, up to four bytes of UTF-8.
constexpr size_t log_format_align_end(std::string_view spec) noexcept {
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^'; };
  auto lead = static_cast<unsigned char>(spec.empty() ? '\0' : spec[0]);
  size_t fill_size = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (fill_size < spec.size() && is_align(spec[fill_size]))
    return fill_size + 1;
  if (!spec.empty() && is_align(spec[0]))
    return 1;
  return 0;
}

/// Parses `spec`, the text between ':' and '}':
/// [[fill]align][sign]['#']['0'][width]['.'precision]['L'][type].
consteval log_format_spec parse_log_format_spec(std::string_view spec) {
  log_format_spec result;
  size_t i = log_format_align_end(spec);
  if (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ')) {
    result.sign = true;
    ++i;
  }
  if (i < spec.size() && spec[i] == '#') {
    result.alternate = true;
    ++i;
  }
  if (i < spec.size() && spec[i] == '0') {
    result.zero_pad = true;
    ++i;
  }
  if (i < spec.size() && spec[i] >= '1' && spec[i] <= '9')
    skip_log_format_number(spec, i);
  if (i < spec.size() && spec[i] == '.') {
    result.precision = true;
    skip_log_format_number(spec, ++i);
  }
  if (i < spec.size() && spec[i] == 'L') {
    result.localized = true;
    ++i;
  }
  constexpr std::string_view types = "aAbBcdeEfFgGopsxX";
  if (i < spec.size() && types.find(spec[i]) != std::string_view::npos)
    result.type = spec[i++];
  if (i != spec.size())
    troupe_log_format_spec_is_malformed();
  return result;
}

/// True if std::format takes `spec` for an argument of kind `kind`.
consteval bool log_format_spec_fits(const log_format_spec& spec, log_arg_kind kind) {
  auto type_in = [&spec](std::string_view types) {
    return spec.type != '\0' && types.find(spec.type) != std::string_view::npos;
  };
  bool numeric_flags = spec.sign || spec.alternate || spec.zero_pad;
  switch (kind) {
    case log_arg_kind::integer:
      if (spec.type == 'c')
        return !numeric_flags && !spec.precision;
      return !spec.precision && (spec.type == '\0' || type_in("bBdoxX"));
    case log_arg_kind::floating_point:
      return spec.type == '\0' || type_in("aAeEfFgG");
    case log_arg_kind::boolean:
      if (spec.type == '\0' || spec.type == 's')
        return !numeric_flags && !spec.precision;
      return !spec.precision && type_in("bBdoxX");
    case log_arg_kind::character:
      if (spec.type == '\0' || spec.type == 'c')
        return !numeric_flags && !spec.precision;
      return !spec.precision && type_in("bBdoxX");
    case log_arg_kind::text:
      return !numeric_flags && !spec.localized && (spec.type == '\0' || spec.type == 's');
  }
  return false;
}

/// Checks the format string `str` and returns its number of placeholders
/// (`{}` or `{:spec}`; "{{" and "}}" are escaped braces). The spec of
/// placeholder i must fit `kinds[i]` when i < num_kinds.
consteval size_t check_log_format(std::string_view str, const log_arg_kind* kinds,
                                  size_t num_kinds) {
  size_t result = 0;
  for (size_t i = 0; i < str.size(); ++i) {
    if (str[i] != '{' && str[i] != '}')
      continue;
    char next = i + 1 < str.size() ? str[i + 1] : '\0';
    if (str[i] == '{' && next == '}') {
      ++result;
    } else if (str[i] == '{' && next == ':') {
      auto close = str.find('}', i + 2);
      if (close == std::string_view::npos)
        troupe_log_format_has_an_unclosed_placeholder();
      auto spec = str.substr(i + 2, close - i - 2);
      if (spec.find('{') != std::string_view::npos)
        troupe_log_format_spec_takes_no_nested_placeholder();
      auto parsed = parse_log_format_spec(spec);
      if (result < num_kinds && !log_format_spec_fits(parsed, kinds[result]))
        troupe_log_format_spec_does_not_fit_its_argument();
      ++result;
      i = close;
      continue;
    } else if (str[i] == '{' && ((next >= '0' && next <= '9') || (next >= 'a' && next <= 'z')
                                 || (next >= 'A' && next <= 'Z') || next == '_')) {
      troupe_log_format_placeholders_take_no_argument_id();
    } else if (next != str[i]) {
      troupe_log_format_has_a_lone_brace_or_wrong_placeholder_count();
    }
    ++i;
  }
  return result;
}

/// The number of placeholders in `str`.
consteval size_t count_log_placeholders(std::string_view str) {
  return check_log_format(str, nullptr, 0);
}

/// A format string whose placeholders match the argument types `Ts`.
template <class... Ts>
class log_format_string {
public:
  template <class S>
    requires std::is_convertible_v<const S&, std::string_view>
  consteval log_format_string(const S& str) : str_(str) {
    // The last element keeps the array from being empty.
    const log_arg_kind kinds[] = {log_arg_kind_of<Ts>()..., log_arg_kind::text};
    if (check_log_format(str_, kinds, sizeof...(Ts)) != sizeof...(Ts))
      troupe_log_format_has_a_lone_brace_or_wrong_placeholder_count();
  }

  constexpr std::string_view get() const noexcept {
    return str_;
  }

private:
  std::string_view str_;
};

/// Appends the literal text of `fmt` from `pos` up to the next placeholder,
/// with escaped braces unescaped, sets `spec` to that placeholder's spec
/// (empty for `{}`), and returns the position after the placeholder (or
/// fmt.size() when there is none).
size_t append_log_literal(std::string& out, std::string_view fmt, size_t pos,
                          std::string_view& spec);

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

// Each appends `x` formatted by `spec`, a non-empty std-format-spec that fits
// the type (checked at compile time). A spec that fmt rejects all the same
// appends `x` as `{}` prints it: logging never throws over a format.
void append_log_value(std::string& out, std::string_view spec, long long x);
void append_log_value(std::string& out, std::string_view spec, unsigned long long x);
void append_log_value(std::string& out, std::string_view spec, float x);
void append_log_value(std::string& out, std::string_view spec, double x);
void append_log_value(std::string& out, std::string_view spec, long double x);
void append_log_value(std::string& out, std::string_view spec, bool x);
void append_log_value(std::string& out, std::string_view spec, char x);
/// Appends `text` padded, aligned and cut as `spec` says.
void append_log_text(std::string& out, std::string_view spec, std::string_view text);

/// Appends the number (or bool, or char) `x` formatted by `spec`.
template <class T>
void append_log_number(std::string& out, std::string_view spec, T x) {
  if constexpr (log_arg_kind_of<T>() != log_arg_kind::integer)
    append_log_value(out, spec, x);
  else if constexpr (std::is_signed_v<T>)
    append_log_value(out, spec, static_cast<long long>(x));
  else
    append_log_value(out, spec, static_cast<unsigned long long>(x));
}

/// The text of `str` with its placeholders filled by `xs...`: the loop
/// behind format_log and format_line. `append_plain(out, x)` prints an
/// argument for `{}`; under a spec, numbers are formatted as std::format
/// does, and anything else is printed by `append_plain`, then formatted as a
/// string.
template <class AppendPlain, class... Ts>
std::string format_placeholders(std::string_view str, AppendPlain append_plain,
                                const Ts&... xs) {
  std::string out;
  size_t pos = 0;
  std::string_view spec;
  [[maybe_unused]] auto append = [&](const auto& x) {
    using T = std::remove_cvref_t<decltype(x)>;
    pos = append_log_literal(out, str, pos, spec);
    if (spec.empty()) {
      append_plain(out, x);
    } else if constexpr (log_arg_kind_of<T>() == log_arg_kind::text) {
      std::string text;
      append_plain(text, x);
      append_log_text(out, spec, text);
    } else {
      append_log_number(out, spec, x);
    }
  };
  (append(xs), ...);
  append_log_literal(out, str, pos, spec);
  return out;
}

template <class... Ts>
std::string format_log(log_format_string<std::type_identity_t<Ts>...> fmt, const Ts&... xs) {
  return format_placeholders(
    fmt.get(), [](std::string& out, const auto& x) { append_log_arg(out, x); }, xs...);
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
