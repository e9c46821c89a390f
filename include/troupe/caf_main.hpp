#pragma once

// TROUPE_MAIN() is CAF_MAIN(): a program defines
//
//   void caf_main(troupe::actor_system& sys);                      // or
//   int caf_main(troupe::actor_system& sys, const my_config& cfg);
//
// (or the same function named troupe_main) and writes TROUPE_MAIN() below
// it, naming the modules to load and, as CAF programs do, its type ID
// blocks: TROUPE_MAIN(id_block::my_app, troupe::net::middleman). main() then
// runs troupe::exec_main (troupe/exec_main.hpp) with that function.

#include "troupe/exec_main.hpp"

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
