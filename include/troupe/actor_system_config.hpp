#pragma once

// actor_system_config: the runtime's settings, held in public members, plus
// the options an application declares, all read from the command line and
// from a TOML file.
//
//   troupe::actor_system_config cfg;
//   std::chrono::milliseconds timeout{100};
//   cfg.add_option("app.timeout", &timeout, "how long to wait for a reply");
//   if (auto err = cfg.parse(argc, argv)) {
//     std::cerr << to_string(err) << '\n';
//     return EXIT_FAILURE;
//   }
//   if (cfg.helptext_requested()) {
//     std::cout << cfg.helptext();
//     return EXIT_SUCCESS;
//   }
//
// Every option has a dotted key. The command line writes it --key=value or
// --key value (a boolean: --key, --key=true or --key=false). A TOML file
// given with --config-file=path spells the key with its tables:
//
//   [troupe.scheduler]
//   max-threads = 4
//
// A value on the command line wins over the file's, wherever --config-file
// stands. Arguments without a leading "-" (and a lone "-", as for stdin),
// and all arguments after a bare "--", are left for the application in
// remainder(); any other argument starting with "-" is an error. Every
// numeric troupe.* key has a range (see --help); a value outside it is an
// error naming the key and the range. A parse that fails changes no option.

#include "troupe/error.hpp"
#include "troupe/logger.hpp"
#include "troupe/mailbox_overflow.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <ratio>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace troupe {

namespace detail {

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

template <class T>
config_option make_config_option(T* storage) {
  config_option result;
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
  else if constexpr (std::is_signed_v<T>)
    result = "an integer between ";
  else
    result = "an unsigned integer between ";
  return result + config_bound_text(min) + " and " + config_bound_text(max);
}

/// An option that takes the values from `min` to `max` only: an integer or
/// a duration.
template <class T>
config_option make_config_option(T* storage, T min, T max) {
  static_assert((std::is_integral_v<T> && !std::is_same_v<T, bool>
                 && !is_config_character_v<T>)
                  || is_chrono_duration<T>::value,
                "troupe: only an integer or a std::chrono::duration option has a range");
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
    if (tmp < min || max < tmp)
      return config_range_expected(min, max);
    if (store)
      *storage = tmp;
    return std::string{};
  };
  return result;
}

} // namespace detail

namespace detail {

/// defaults::mailbox::overflow, parsed at compile time.
inline constexpr mailbox_overflow default_mailbox_overflow = [] {
  auto result = mailbox_overflow::mute;
  if (!from_string(defaults::mailbox::overflow, result))
    throw "defaults::mailbox::overflow names no overflow policy";
  return result;
}();

} // namespace detail

/// The mailbox part of actor_system_config (keys troupe.mailbox.*).
struct mailbox_config {
  /// 0: no bound.
  size_t capacity = defaults::mailbox::capacity;
  mailbox_overflow overflow = detail::default_mailbox_overflow;
  std::chrono::milliseconds push_timeout = defaults::mailbox::push_timeout;
};

class actor_system_config {
public:
  /// troupe.scheduler.policy, troupe.scheduler.max-threads,
  /// troupe.scheduler.max-throughput and troupe.work-stealing.spin-attempts.
  scheduler_config scheduler;

  /// troupe.logger.verbosity. The actor system hands it to the logger.
  log_level logger_verbosity = default_log_level;

  /// troupe.mailbox.*: the bound every actor's mailbox starts with
  /// (local_actor::set_mailbox_capacity changes one actor's).
  mailbox_config mailbox;

  /// troupe.shutdown.grace-period: see defaults::shutdown::grace_period.
  std::chrono::milliseconds shutdown_grace_period = defaults::shutdown::grace_period;

  actor_system_config();

  // The declared options point into this object; a copy would write into
  // the original.
  actor_system_config(const actor_system_config&) = delete;
  actor_system_config& operator=(const actor_system_config&) = delete;

  ~actor_system_config();

  /// Declares the option `key`, stored in `*storage`, whose current value is
  /// its default. T is bool, an integer type, a floating-point type,
  /// std::string, a std::chrono::duration ("10ms", "200us", "1s", "5min") or
  /// std::vector<std::string> (comma-separated on the command line, an array
  /// of strings in TOML). Throws std::logic_error if `key` is not a dotted name
  /// (letters, digits, '-' and '_' between the dots), starts with "troupe.",
  /// is declared already, or `storage` is null.
  template <class T>
  actor_system_config& add_option(std::string key, T* storage, std::string description) {
    static_assert(detail::is_config_value_v<T>,
                  "troupe: an option is bool, an integer, a floating-point "
                  "number, std::string, a std::chrono::duration or "
                  "std::vector<std::string>");
    auto opt = detail::make_config_option(storage);
    opt.key = std::move(key);
    opt.description = std::move(description);
    add_option_impl(std::move(opt), storage == nullptr);
    return *this;
  }

  /// Declares an integer or duration option that takes the values from
  /// `min` to `max` only; others are a malformed_value error naming the
  /// range, which the help text shows. Throws std::logic_error as above, and
  /// if `min` is greater than `max`.
  template <class T>
  actor_system_config& add_option(std::string key, T* storage, std::string description,
                                  std::type_identity_t<T> min, std::type_identity_t<T> max) {
    if (max < min)
      throw std::logic_error("troupe: add_option(\"" + key + "\"): min is greater than max");
    auto opt = detail::make_config_option(storage, min, max);
    opt.key = std::move(key);
    opt.description = std::move(description);
    add_option_impl(std::move(opt), storage == nullptr);
    return *this;
  }

  /// Reads the command line `argv[1] .. argv[argc - 1]`; argv[0] names the
  /// program in the help text.
  error parse(int argc, const char* const* argv);

  /// Reads `args`, which do not include the program name.
  error parse(std::vector<std::string> args);

  /// Sets one option as if given as --key=value.
  error set(std::string_view key, std::string_view value);

  /// True if the last parse saw --help or -h; it then read nothing else.
  bool helptext_requested() const noexcept {
    return helptext_requested_;
  }

  /// Usage text listing every option with its default and description.
  std::string helptext() const;

  /// Positional arguments and everything after a bare "--", in order.
  const std::vector<std::string>& remainder() const noexcept {
    return remainder_;
  }

private:
  void add_option_impl(detail::config_option opt, bool null_storage);

  /// Declares a troupe.* key; only the constructor does.
  void add_builtin(detail::config_option opt);

  error parse_impl(std::vector<std::string> args);

  const detail::config_option* find_option(std::string_view key) const noexcept;

  std::vector<detail::config_option> options_;
  std::vector<std::string> remainder_;
  std::string program_name_;
  bool helptext_requested_ = false;
};

} // namespace troupe
