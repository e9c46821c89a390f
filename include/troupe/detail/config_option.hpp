#pragma once

// The type-erased option behind actor_system_config::add_option and
// opt_group: its kind, default and range for the help text, and the parser
// that checks and stores a value.

#include "troupe/logger.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <ratio>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::detail {

/// The shape of a value: decides which TOML values an option takes.
enum class config_kind : uint8_t {
  boolean,
  integer,
  number,
  string,
  duration,
  string_list,
};

/// A declared option with its type erased.
struct config_option {
  std::string key;
  std::string description;
  config_kind kind = config_kind::string;
  /// Stands for the value in the help text: "<uint>", "<duration>".
  std::string placeholder;
  /// The value at declaration, written as on the command line.
  std::string default_text;
  /// The values allowed, for the help text ("0 to 64"); empty if the type
  /// alone limits them.
  std::string range;
  /// False for an option that keeps its value in the config only
  /// (opt_group::add<T>): get_or supplies the default, so the help text
  /// shows none.
  bool has_default = true;
  /// One-letter aliases on the command line: "p" for -p.
  std::string short_names;
  /// The C++ type of the value, as get_as errors name it.
  std::string type_name = "std::string";
  /// The value last given on the command line, in the file or with set(),
  /// as the command line writes it (a list: one string per element); what
  /// get_or and get_as read.
  std::vector<std::string> given;
  bool is_given = false;
  /// Parses `values` (one, unless kind is string_list) and, if `store`, writes
  /// the result. Returns an empty string on success, else what a valid value
  /// looks like ("an unsigned integer").
  std::function<std::string(std::span<const std::string> values, bool store)> assign;
};

// Parsers behind add_option: each returns an empty string on success, else
// what it expected.
std::string parse_config_bool(std::string_view str, bool& out);
std::string parse_config_int(std::string_view str, long long min, long long max,
                             long long& out);
std::string parse_config_uint(std::string_view str, unsigned long long max,
                              unsigned long long& out);
std::string parse_config_float(std::string_view str, float& out);
std::string parse_config_float(std::string_view str, double& out);
std::string parse_config_float(std::string_view str, long double& out);

/// An integer and a unit (ns, us, ms, s, min or h): "10ms", "-5s".
std::string parse_config_duration(std::string_view str, std::chrono::nanoseconds& out);

template <class T>
inline constexpr bool is_config_character_v
  = std::is_same_v<T, char> || std::is_same_v<T, wchar_t> || std::is_same_v<T, char8_t>
    || std::is_same_v<T, char16_t> || std::is_same_v<T, char32_t>;

template <class T>
inline constexpr bool is_config_value_v
  = std::is_same_v<T, bool> || (std::is_integral_v<T> && !is_config_character_v<T>)
    || std::is_floating_point_v<T> || std::is_same_v<T, std::string>
    || is_chrono_duration<T>::value || std::is_same_v<T, std::vector<std::string>>;

template <class Rep, class Period>
std::string parse_config_value(std::string_view str, std::chrono::duration<Rep, Period>& out) {
  using duration = std::chrono::duration<Rep, Period>;
  std::chrono::nanoseconds ns{0};
  if (auto what = parse_config_duration(str, ns); !what.empty())
    return what;
  if constexpr (std::is_floating_point_v<Rep>) {
    out = std::chrono::duration_cast<duration>(ns);
  } else {
    using wide = std::chrono::duration<long double, std::nano>;
    if (wide{ns} > wide{duration::max()} || wide{ns} < wide{duration::min()}) {
      std::string what = "a duration between ";
      append_log_arg(what, duration::min());
      what += " and ";
      append_log_arg(what, duration::max());
      return what;
    }
    auto result = std::chrono::duration_cast<duration>(ns);
    if (std::chrono::duration_cast<std::chrono::nanoseconds>(result) != ns) {
      if constexpr (duration_suffix<Period>().empty())
        return "a duration this option holds exactly";
      else
        return "a whole number of " + std::string{duration_suffix<Period>()};
    }
    out = result;
  }
  return {};
}

template <class T>
std::string parse_config_value(std::string_view str, T& out) {
  if constexpr (std::is_same_v<T, bool>) {
    return parse_config_bool(str, out);
  } else if constexpr (std::is_same_v<T, std::string>) {
    out = str;
    return {};
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    long long tmp = 0;
    auto what = parse_config_int(str, std::numeric_limits<T>::min(),
                                 std::numeric_limits<T>::max(), tmp);
    out = static_cast<T>(tmp);
    return what;
  } else if constexpr (std::is_integral_v<T>) {
    unsigned long long tmp = 0;
    auto what = parse_config_uint(str, std::numeric_limits<T>::max(), tmp);
    out = static_cast<T>(tmp);
    return what;
  } else {
    static_assert(std::is_floating_point_v<T>);
    return parse_config_float(str, out);
  }
}

/// "uint16_t", "std::chrono::milliseconds": a type as get_as errors name it.
template <class T>
std::string config_type_name() {
  if constexpr (std::is_same_v<T, bool>) {
    return "bool";
  } else if constexpr (std::is_integral_v<T>) {
    // Fixed widths: size_t and unsigned long name the same type here.
    return (std::is_signed_v<T> ? "int" : "uint") + std::to_string(sizeof(T) * 8) + "_t";
  } else if constexpr (std::is_same_v<T, float>) {
    return "float";
  } else if constexpr (std::is_same_v<T, double>) {
    return "double";
  } else if constexpr (std::is_same_v<T, long double>) {
    return "long double";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "std::string";
  } else if constexpr (is_chrono_duration<T>::value) {
    using period = typename T::period;
    if constexpr (std::is_integral_v<typename T::rep>) {
      if constexpr (std::is_same_v<period, std::nano>)
        return "std::chrono::nanoseconds";
      else if constexpr (std::is_same_v<period, std::micro>)
        return "std::chrono::microseconds";
      else if constexpr (std::is_same_v<period, std::milli>)
        return "std::chrono::milliseconds";
      else if constexpr (std::is_same_v<period, std::ratio<1>>)
        return "std::chrono::seconds";
      else if constexpr (std::is_same_v<period, std::ratio<60>>)
        return "std::chrono::minutes";
      else if constexpr (std::is_same_v<period, std::ratio<3600>>)
        return "std::chrono::hours";
    }
    return "std::chrono::duration";
  } else {
    return "std::vector<std::string>";
  }
}

template <class T>
config_option make_config_option(T* storage) {
  config_option result;
  result.type_name = config_type_name<T>();
  if constexpr (std::is_same_v<T, bool>) {
    result.kind = config_kind::boolean;
  } else if constexpr (std::is_same_v<T, std::string>) {
    result.kind = config_kind::string;
    result.placeholder = "<string>";
  } else if constexpr (std::is_integral_v<T>) {
    result.kind = config_kind::integer;
    result.placeholder = std::is_signed_v<T> ? "<int>" : "<uint>";
  } else if constexpr (std::is_floating_point_v<T>) {
    result.kind = config_kind::number;
    result.placeholder = "<number>";
  } else if constexpr (is_chrono_duration<T>::value) {
    result.kind = config_kind::duration;
    result.placeholder = "<duration>";
  } else {
    result.kind = config_kind::string_list;
    result.placeholder = "<list>";
  }
  if (storage == nullptr)
    return result;
  if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    for (const auto& x : *storage) {
      if (!result.default_text.empty())
        result.default_text += ',';
      result.default_text += x;
    }
    result.assign = [storage](std::span<const std::string> values, bool store) {
      if (store)
        storage->assign(values.begin(), values.end());
      return std::string{};
    };
  } else {
    append_log_arg(result.default_text, *storage);
    result.assign = [storage](std::span<const std::string> values, bool store) {
      T tmp{};
      auto what = parse_config_value(values.back(), tmp);
      if (what.empty() && store)
        *storage = std::move(tmp);
      return what;
    };
  }
  return result;
}

/// A bound of a range as the help text and errors write it: "64", "1s".
template <class T>
std::string config_bound_text(const T& x) {
  std::string result;
  if constexpr (is_chrono_duration<T>::value) {
    using rep = typename T::rep;
    using namespace std::chrono;
    // The coarsest unit that holds `x` exactly: 1s, not 1000000us.
    auto coarsest = [&](auto unit) {
      using U = decltype(unit);
      if constexpr (std::is_integral_v<rep> && std::ratio_greater_equal_v<typename U::period,
                                                                          typename T::period>) {
        auto n = duration_cast<duration<rep, typename U::period>>(x);
        if (x.count() != 0 && result.empty() && duration_cast<T>(n) == x)
          append_log_arg(result, n);
      }
    };
    coarsest(hours{});
    coarsest(minutes{});
    coarsest(seconds{});
    coarsest(milliseconds{});
    coarsest(microseconds{});
    coarsest(nanoseconds{});
    if (result.empty())
      append_log_arg(result, x);
  } else {
    append_log_arg(result, x);
  }
  return result;
}

/// What a value between `min` and `max` looks like, for an error.
template <class T>
std::string config_range_expected(const T& min, const T& max) {
  std::string result;
  if constexpr (is_chrono_duration<T>::value)
    result = "a duration between ";
  else if constexpr (std::is_floating_point_v<T>)
    result = "a number between ";
  else if constexpr (std::is_signed_v<T>)
    result = "an integer between ";
  else
    result = "an unsigned integer between ";
  return result + config_bound_text(min) + " and " + config_bound_text(max);
}

/// An option that takes the values from `min` to `max` only: an integer, a
/// floating-point number or a duration.
template <class T>
config_option make_config_option(T* storage, T min, T max) {
  static_assert((std::is_integral_v<T> && !std::is_same_v<T, bool>
                 && !is_config_character_v<T>)
                  || std::is_floating_point_v<T> || is_chrono_duration<T>::value,
                "troupe: only a number or a std::chrono::duration option has a range");
  auto result = make_config_option(storage);
  result.range = config_bound_text(min) + " to " + config_bound_text(max);
  if (storage == nullptr)
    return result;
  result.assign = [storage, min, max](std::span<const std::string> values, bool store) {
    T tmp{};
    // A value that is no number at all gets the parser's own words, which
    // name the units of a duration.
    if (auto what = parse_config_value(values.back(), tmp); !what.empty())
      return what;
    // Written so that a NaN is out of range too.
    if (!(min <= tmp && tmp <= max))
      return config_range_expected(min, max);
    if (store)
      *storage = tmp;
    return std::string{};
  };
  return result;
}

/// An option whose value the config alone keeps (opt_group::add<T>): it
/// checks a value but stores it nowhere else.
template <class T>
config_option make_stored_config_option() {
  auto result = make_config_option(static_cast<T*>(nullptr));
  result.has_default = false;
  result.assign = [](std::span<const std::string> values, bool) {
    if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      return std::string{};
    } else {
      T tmp{};
      return parse_config_value(values.back(), tmp);
    }
  };
  return result;
}

/// Reads an option's given value as a T, for get_as; returns an empty
/// string on success, else what a T looks like.
template <class T>
std::string read_config_value(std::span<const std::string> values, T& out) {
  if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    out.assign(values.begin(), values.end());
    return {};
  } else {
    return parse_config_value(values.back(), out);
  }
}

/// get_or's result for a fallback of type T: a string literal or
/// string_view gives std::string, as CAF's does.
template <class T>
struct config_get_or_result {
  using type = T;
};

template <>
struct config_get_or_result<const char*> {
  using type = std::string;
};

template <>
struct config_get_or_result<char*> {
  using type = std::string;
};

template <>
struct config_get_or_result<std::string_view> {
  using type = std::string;
};

/// get_or's default first template argument: take the fallback's type.
struct config_get_or_deduce {};

} // namespace troupe::detail
