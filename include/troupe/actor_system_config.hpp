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
#include "troupe/config_sections.hpp"
#include "troupe/detail/config_option.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe {

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
  // Each field is set by the key that is its path: scheduler.max_threads by
  // troupe.scheduler.max-threads, scheduler.aggressive.poll_attempts by
  // troupe.scheduler.aggressive.poll-attempts.

  /// troupe.scheduler.*: the scheduler's policy, workers and idle mode.
  scheduler_config scheduler;

  /// troupe.logger.*.
  logger_config logger;

  /// troupe.mailbox.*: the bound every actor's mailbox starts with
  /// (local_actor::set_mailbox_capacity changes one actor's).
  mailbox_config mailbox;

  /// troupe.stream.*: edge capacity and execution of stream graphs.
  stream_config stream;

  /// troupe.shutdown.*: how the actor system's destructor waits.
  shutdown_config shutdown;

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
