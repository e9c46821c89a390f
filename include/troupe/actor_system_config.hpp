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
// A subclass may declare its options as CAF's do, with opt_group
// (troupe/opt_group.hpp), and read those that keep no variable with get_or
// and get_as (below):
//
//   struct config : troupe::actor_system_config {
//     config() {
//       opt_group{custom_options_, "global"}
//         .add(port, "port,p", "set port")                 // --port, -p
//         .add<size_t>("num-values,n", "number of values");
//     }
//     uint16_t port = 0;
//   };
//   auto n = troupe::get_or(cfg, "num-values", size_t{10});
//
// Every option has a key: a dotted name, or a plain one in opt_group's
// "global" group. The command line writes it --key=value or --key value (a
// boolean: --key, --key=true or --key=false); an opt_group option may have
// one-letter aliases, written -p 8080 or -p8080 (a boolean: -s). A TOML
// file given with --config-file=path spells the key with its tables:
//
//   [troupe.scheduler]
//   max-threads = 4
//
// A value on the command line wins over the file's, wherever --config-file
// stands. Arguments without a leading "-" (and a lone "-", as for stdin),
// and all arguments after a bare "--", are left for the application in
// remainder(); any other argument starting with "-" that names no option is
// an error. Every numeric troupe.* key has a range (see --help); a value
// outside it is an error naming the key and the range. A parse that fails
// changes no option.

#include "troupe/actor_control_block.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/logger.hpp"
#include "troupe/mailbox_overflow.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <limits>
#include <map>
#include <ratio>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
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

/// How stream graphs run their nodes (troupe.stream.execution).
enum class stream_execution : uint8_t {
  /// On the scheduler's workers, like actors.
  scheduled,
  /// One thread per node replica.
  threads,
};

std::string to_string(stream_execution x);

bool from_string(std::string_view str, stream_execution& x);

/// The stream part of actor_system_config (keys troupe.stream.*).
struct stream_config {
  size_t edge_capacity = defaults::stream::edge_capacity;
  stream_execution execution = defaults::stream::execution == "threads"
                                 ? stream_execution::threads
                                 : stream_execution::scheduled;
};

/// troupe.net.*: the network layer (troupe::net), read when its middleman
/// is loaded.
/// troupe.net.tls.*: this node's certificate chain and private key and the
/// CA its peers' certificates must come from (PEM files). All three or
/// none: with them every connection is mutual TLS.
struct net_tls_config {
  std::string certificate;
  std::string private_key;
  std::string ca;
};

struct net_config {
  std::string listen_address{defaults::net::listen_address};
  std::chrono::milliseconds heartbeat_interval = defaults::net::heartbeat_interval;
  std::chrono::milliseconds heartbeat_timeout = defaults::net::heartbeat_timeout;
  std::chrono::milliseconds handshake_timeout = defaults::net::handshake_timeout;
  size_t max_message_size = defaults::net::max_message_size;
  size_t send_buffer = defaults::net::send_buffer;
  net_tls_config tls;
  /// troupe.net.insecure: listen beyond loopback (and connect off it)
  /// without TLS.
  bool insecure = false;
  /// troupe.net.inline-receivers: the I/O thread runs an actor that a
  /// network message wakes up itself instead of waking a worker.
  bool inline_receivers = defaults::net::inline_receivers;
  /// troupe.net.inline-limit: how long such a run may hold the connections
  /// before a standby I/O thread takes them over.
  std::chrono::milliseconds inline_limit = defaults::net::inline_limit;
};

class actor_system_config;
class actor_system_module;
class opt_group;

/// An actor spawned by name (actor_system_config::add_actor_type).
struct spawned_actor {
  strong_actor_ptr hdl;
  /// The interface of its handle type (none: dynamically typed).
  std::vector<std::string> interface;
};

/// What an opt_group adds options to: CAF's config_option_set, here a
/// handle to the config it is a member of (actor_system_config's
/// custom_options_).
class config_option_set {
public:
  explicit config_option_set(actor_system_config& owner) noexcept : owner_(&owner) {}

  // Belongs to one config for good.
  config_option_set(const config_option_set&) = delete;
  config_option_set& operator=(const config_option_set&) = delete;

  actor_system_config& owner() const noexcept {
    return *owner_;
  }

private:
  actor_system_config* owner_;
};

template <class T>
expected<T> get_as(const actor_system_config& cfg, std::string_view key);

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

  /// troupe.stream.*: edge capacity and execution of stream graphs.
  stream_config stream;

  /// troupe.shutdown.grace-period: see defaults::shutdown::grace_period.
  std::chrono::milliseconds shutdown_grace_period = defaults::shutdown::grace_period;

  /// troupe.shutdown.report-interval: see defaults::shutdown::report_interval.
  std::chrono::milliseconds shutdown_report_interval = defaults::shutdown::report_interval;

  /// troupe.net.*: see defaults::net.
  net_config net;

  /// Makes every actor system built from this config run a `Module`, as
  /// CAF's cfg.load<io::middleman>(): `cfg.load<troupe::net::middleman>()`.
  /// Loading a module twice loads it once.
  template <class Module>
  actor_system_config& load() {
    static_assert(std::is_base_of_v<actor_system_module, Module>);
    add_module(Module::module_name, [](actor_system& sys) -> std::unique_ptr<actor_system_module> {
      return std::make_unique<Module>(sys);
    });
    return *this;
  }

  using module_factory = std::unique_ptr<actor_system_module> (*)(actor_system&);

  /// Spawns an actor type by name from a message of arguments.
  using actor_factory = std::function<expected<spawned_actor>(actor_system&, const message&)>;

  /// Lets `fn`, any function spawn() takes, be spawned by `name` (as CAF's
  /// add_actor_type); defined in troupe/actor_factory.hpp. A second type
  /// of the same name replaces the first.
  template <class F>
  actor_system_config& add_actor_type(std::string name, F fn);

  /// The factory of actor type `name`, or null.
  const actor_factory* find_actor_factory(std::string_view name) const;

  /// The modules load() added, in order.
  const std::vector<std::pair<std::string_view, module_factory>>& modules() const noexcept {
    return modules_;
  }

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

protected:
  /// Where a subclass declares its options, as in CAF:
  /// `opt_group{custom_options_, "global"}.add(...)`.
  config_option_set custom_options_{*this};

  /// Lets a subclass name opt_group without troupe:: (CAF's examples have
  /// `using namespace caf`).
  using opt_group = troupe::opt_group;

private:
  friend class troupe::opt_group;

  template <class T>
  friend expected<T> get_as(const actor_system_config& cfg, std::string_view key);

  void add_option_impl(detail::config_option opt, bool null_storage);

  /// Checks and adds a user option. `caller` names the declaration in
  /// errors; `plain_key` allows a key without a dot (opt_group's "global").
  void declare(detail::config_option opt, const std::string& caller, bool plain_key);

  /// Hands the value given for `key` to `read`, which returns what a
  /// `type_name` looks like if it can't take it. `list` is true if
  /// `type_name` is a list.
  error read_given(std::string_view key, std::string_view type_name, bool list,
                   const std::function<std::string(std::span<const std::string>)>& read) const;

  /// Declares a troupe.* key; only the constructor does.
  void add_builtin(detail::config_option opt);

  error parse_impl(std::vector<std::string> args);

  const detail::config_option* find_option(std::string_view key) const noexcept;
  detail::config_option* find_option(std::string_view key) noexcept;

  /// The option whose alias is -`name`, or null.
  const detail::config_option* find_short_option(char name) const noexcept;

  void add_module(std::string_view name, module_factory make);

  void add_actor_factory(std::string name, actor_factory make);

  std::map<std::string, actor_factory, std::less<>> actor_factories_;
  std::vector<std::pair<std::string_view, module_factory>> modules_;
  std::vector<detail::config_option> options_;
  std::vector<std::string> remainder_;
  std::string program_name_;
  bool helptext_requested_ = false;
};

/// The value given for `key` (command line, config file or set()) as a T:
/// one of the option types above. A value of another declared type converts
/// if it reads as a T (a uint64_t 300 as int16_t or as std::string; 1500ms
/// as microseconds), else the result is a malformed_value error naming the
/// key and both types. An unknown key, or one given no value, is an
/// unknown_key error. An option bound to a variable reads the value given,
/// whatever the program did to the variable since.
template <class T>
expected<T> get_as(const actor_system_config& cfg, std::string_view key) {
  static_assert(detail::is_config_value_v<T>,
                "troupe: get_as reads bool, an integer, a floating-point number, "
                "std::string, a std::chrono::duration or std::vector<std::string>");
  T result{};
  auto err = cfg.read_given(key, detail::config_type_name<T>(),
                            std::is_same_v<T, std::vector<std::string>>,
                            [&result](std::span<const std::string> values) {
                              return detail::read_config_value(values, result);
                            });
  if (err)
    return err;
  return result;
}

/// get_as<To>(cfg, key), or `fallback` if that fails. To is the fallback's
/// type unless given; a string literal or std::string_view fallback makes
/// it std::string.
template <class To = detail::config_get_or_deduce, class Fallback>
auto get_or(const actor_system_config& cfg, std::string_view key, Fallback&& fallback) {
  using result_type
    = std::conditional_t<std::is_same_v<To, detail::config_get_or_deduce>,
                         typename detail::config_get_or_result<std::decay_t<Fallback>>::type, To>;
  if (auto x = get_as<result_type>(cfg, key))
    return std::move(*x);
  return result_type(std::forward<Fallback>(fallback));
}

} // namespace troupe
