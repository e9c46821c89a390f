#pragma once

// opt_group: CAF's way to declare an application's options, in the
// constructor of a subclass of actor_system_config.
//
//   struct config : troupe::actor_system_config {
//     config() {
//       opt_group{custom_options_, "global"}
//         .add(port, "port,p", "set port")              // --port, -p: into `port`
//         .add<size_t>("num-values,n", "number of values"); // kept by the config
//       opt_group{custom_options_, "tls"}
//         .add<std::string>("ca-file", "path to the CA file"); // --tls.ca-file
//     }
//     uint16_t port = 0;
//   };
//
//   auto n = troupe::get_or(cfg, "num-values", size_t{10});
//   auto ca = troupe::get_as<std::string>(cfg, "tls.ca-file");
//
// A front-end to add_option: the options are the same, parsed, checked and
// listed in --help alike. The group "global" puts no prefix in front of its
// keys; any other group name (a dotted name) does, with a dot.

#include "troupe/actor_system_config.hpp"

#include <string>
#include <string_view>

namespace troupe {

class opt_group {
public:
  /// The options of `category`, added to the config that owns `xs`.
  opt_group(config_option_set& xs, std::string_view category)
    : cfg_(&xs.owner()), category_(category) {
  }

  /// Declares an option stored in `ref`, whose current value is its
  /// default. `name` is "key" or "key,p": the letters after the comma are
  /// aliases (-p). T is a type that add_option takes. Throws
  /// std::logic_error for a malformed or taken key, a short name that is no
  /// letter, -h (--help's), or a letter another option has.
  template <class T>
  opt_group& add(T& ref, std::string_view name, std::string_view description) {
    static_assert(detail::is_config_value_v<T>,
                  "troupe: an option is bool, an integer, a floating-point "
                  "number, std::string, a std::chrono::duration or "
                  "std::vector<std::string>");
    add_impl(detail::make_config_option(&ref), name, description);
    return *this;
  }

  /// Declares an option whose value the config keeps, for get_or and
  /// get_as; it has no default until one of them supplies it. Throws as
  /// above.
  template <class T>
  opt_group& add(std::string_view name, std::string_view description) {
    static_assert(detail::is_config_value_v<T>,
                  "troupe: an option is bool, an integer, a floating-point "
                  "number, std::string, a std::chrono::duration or "
                  "std::vector<std::string>");
    add_impl(detail::make_stored_config_option<T>(), name, description);
    return *this;
  }

private:
  void add_impl(detail::config_option opt, std::string_view name,
                std::string_view description);

  actor_system_config* cfg_;
  std::string category_;
};

} // namespace troupe
