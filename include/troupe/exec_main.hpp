#pragma once

// The body of CAF's main: `troupe::exec_main<Ts...>(fn, argc, argv)` reads the
// command line (and --config-file) into a config, prints the help text for
// --help, reports a bad option on stderr with exit code 1, and otherwise runs
// `fn` with a started actor system; its int result, if any, is the exit code.
//
// `fn` is `R fn(actor_system&)` or `R fn(actor_system&, const my_config&)`;
// the config is an actor_system_config or the subclass the second parameter
// names, whose constructor declares its options. Each of `Ts` is a module,
// loaded into the config (`troupe::net::middleman`), or a type ID block,
// which Troupe registers on its own. TROUPE_MAIN (troupe/caf_main.hpp)
// writes main() with it.

#include "troupe/actor_system.hpp"
#include "troupe/actor_system_config.hpp"
#include "troupe/actor_system_module.hpp"
#include "troupe/init_global_meta_objects.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace troupe {

namespace detail {

template <class F>
struct main_traits;

template <class R>
struct main_traits<R (*)(actor_system&)> {
  using config_type = actor_system_config;
  static constexpr bool takes_config = false;
};

template <class R, class Config>
struct main_traits<R (*)(actor_system&, Config&)> {
  using config_type = std::remove_const_t<Config>;
  static_assert(std::is_base_of_v<actor_system_config, config_type>,
                "the main function's second parameter must be an actor_system_config");
  static constexpr bool takes_config = true;
};

/// Loads `T` if it is a module; a type ID block needs nothing.
template <class T>
void exec_main_load(actor_system_config& cfg) {
  if constexpr (std::is_base_of_v<actor_system_module, T>)
    cfg.load<T>();
  else
    init_global_meta_objects<T>();
}

} // namespace detail

template <class... Ts, class F>
int exec_main(F fn, int argc, char** argv) {
  using traits = detail::main_traits<F>;
  typename traits::config_type cfg;
  (detail::exec_main_load<Ts>(cfg), ...);
  if (auto err = cfg.parse(argc, argv)) {
    std::fprintf(stderr, "%s\n", to_string(err).c_str());
    return EXIT_FAILURE;
  }
  if (cfg.helptext_requested()) {
    std::fputs(cfg.helptext().c_str(), stdout);
    return EXIT_SUCCESS;
  }
  actor_system sys{cfg};
  auto run = [&] {
    if constexpr (traits::takes_config)
      return fn(sys, cfg);
    else
      return fn(sys);
  };
  if constexpr (std::is_void_v<decltype(run())>) {
    run();
    return EXIT_SUCCESS;
  } else {
    return static_cast<int>(run());
  }
}

} // namespace troupe
