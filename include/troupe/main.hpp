#pragma once

// CAF_MAIN under Troupe's name: a program defines
//
//   void troupe_main(troupe::actor_system& sys);                    // or
//   int troupe_main(troupe::actor_system& sys, const my_config& cfg);
//
// and writes TROUPE_MAIN() below it. main() then reads the command line (and
// --config-file) into the config (actor_system_config, or the subclass the
// second parameter names, whose constructor declares its options), prints
// the help text for --help, reports a bad option on stderr with exit code 1,
// and otherwise runs troupe_main with a started actor system; its int result,
// if any, is the exit code. TROUPE_MAIN takes type ID blocks as CAF_MAIN
// does and ignores them: Troupe registers every block on its own.

#include "troupe/actor_system.hpp"
#include "troupe/actor_system_config.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace troupe::detail {

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
                "troupe_main's second parameter must be an actor_system_config");
  static constexpr bool takes_config = true;
};

/// The body of the main() that TROUPE_MAIN defines.
template <class F>
int exec_main(F fn, int argc, char** argv) {
  using traits = main_traits<F>;
  typename traits::config_type cfg;
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

} // namespace troupe::detail

#define TROUPE_MAIN(...)                                                       \
  int main(int argc, char** argv) {                                            \
    return ::troupe::detail::exec_main(&troupe_main, argc, argv);              \
  }
