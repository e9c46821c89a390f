#pragma once

// The body of CAF's main: `troupe::exec_main<Ts...>(fn, argc, argv)` reads the
// command line (and --config-file) into a config, prints the help text for
// --help, reports a bad option on stderr with exit code 1, and otherwise runs
// `fn` with a started actor system; its int result, if any, is the exit code.
// Then it waits for the system's end (actor_system::await_end). SIGINT or
// SIGTERM meanwhile ends the system after its grace period, and the exit
// code is then 128 + the signal's number, as if it had killed the process.
//
// `fn` is `R fn(actor_system&)` or `R fn(actor_system&, const my_config&)`;
// the config is an actor_system_config or the subclass the second parameter
// names, whose constructor declares its options. Each of `Ts` is a module,
// loaded into the config (`troupe::net::middleman`), or a type ID block,
// which Troupe registers on its own.
//
// TROUPE_MAIN() is CAF_MAIN(): a program defines
//
//   void caf_main(troupe::actor_system& sys);                      // or
//   int caf_main(troupe::actor_system& sys, const my_config& cfg);
//
// (or the same function named troupe_main) and writes TROUPE_MAIN() below
// it, naming the modules to load and, as CAF programs do, its type ID
// blocks: TROUPE_MAIN(id_block::my_app, troupe::net::middleman). main() then
// runs exec_main with that function. CAF programs include this header as
// caf/exec_main.hpp or caf/caf_main.hpp; troupe/caf_main.hpp includes it.

#include "troupe/actor_system.hpp"
#include "troupe/actor_system_config.hpp"
#include "troupe/actor_system_module.hpp"
#include "troupe/detail/signal_shutdown.hpp"
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
  // Before the system: its threads inherit the mask that leaves the
  // signals to the guard.
  detail::signal_shutdown signals;
  actor_system sys{cfg};
  auto attached = signals.attach(sys);
  auto run = [&] {
    if constexpr (traits::takes_config)
      return fn(sys, cfg);
    else
      return fn(sys);
  };
  int rc = EXIT_SUCCESS;
  try {
    if constexpr (std::is_void_v<decltype(run())>)
      run();
    else
      rc = static_cast<int>(run());
  } catch (const actor_exited&) {
    // A receive without an error handler, ended by the signal's shutdown.
    if (signals.caught() == 0)
      throw;
  }
  // Here, not in the destructor: a signal still reaches the system.
  sys.await_end();
  if (auto sig = signals.caught(); sig != 0)
    return 128 + sig; // as a shell reports a process the signal killed
  return rc;
}

} // namespace troupe

namespace troupe::detail {

/// What main_fn finds where the program defines no function of a name.
struct no_main {};

/// The parameter of the placeholders below: no program function takes it.
struct no_main_arg {};

/// The program's function from the overload set of its name and the
/// placeholder: a set of plain functions deduces from the one member whose
/// type fits (the second argument makes these better than the overload below).
template <class R>
auto main_fn(R (*fn)(actor_system&), int) noexcept {
  return fn;
}

template <class R, class Config>
auto main_fn(R (*fn)(actor_system&, Config&), int) noexcept {
  return fn;
}

/// Only the placeholder has the name: the program did not define it.
inline no_main main_fn(no_main (*)(no_main_arg), long) noexcept {
  return {};
}

template <class... Ts, class CafMain, class TroupeMain>
int run_main(CafMain caf_fn, TroupeMain troupe_fn, int argc, char** argv) {
  constexpr bool has_caf = !std::is_same_v<CafMain, no_main>;
  constexpr bool has_troupe = !std::is_same_v<TroupeMain, no_main>;
  static_assert(has_caf || has_troupe, "TROUPE_MAIN: define caf_main(actor_system&) "
                                       "or troupe_main(actor_system&) before it");
  static_assert(!(has_caf && has_troupe),
                "TROUPE_MAIN: define caf_main or troupe_main, not both");
  if constexpr (has_caf)
    return exec_main<Ts...>(caf_fn, argc, argv);
  else
    return exec_main<Ts...>(troupe_fn, argc, argv);
}

} // namespace troupe::detail

// Placeholders that give both names an overload set whether or not the
// program defines them; never called.
inline troupe::detail::no_main caf_main(troupe::detail::no_main_arg) {
  return {};
}

inline troupe::detail::no_main troupe_main(troupe::detail::no_main_arg) {
  return {};
}

#define TROUPE_MAIN(...)                                                       \
  int main(int argc, char** argv) {                                            \
    return ::troupe::detail::run_main<__VA_ARGS__>(                            \
      ::troupe::detail::main_fn(caf_main, 0),                                  \
      ::troupe::detail::main_fn(troupe_main, 0), argc, argv);                  \
  }
