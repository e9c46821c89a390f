#pragma once

// What the Troupe pattern programs share: an actor system of --threads
// workers, and one request into a pattern that waits for its answer.

#include <troupe/all.hpp>
#include <troupe/patterns.hpp>

#include <cstdio>
#include <utility>

namespace patterns::troupe_run {

/// Workers: --threads.
inline void configure(troupe::actor_system_config& cfg, size_t threads) {
  cfg.scheduler.max_threads = threads;
}

/// Requests `x` from `p` and stores the answer in `out`; false (and a
/// message) on an error.
template <class Out, class Handle, class In>
bool ask(troupe::scoped_actor& self, const Handle& p, In&& x, Out& out) {
  bool ok = false;
  self->request(p, troupe::infinite, std::forward<In>(x))
    .receive(
      [&](Out& y) {
        out = std::move(y);
        ok = true;
      },
      [](const troupe::error& err) {
        std::fprintf(stderr, "pattern failed: %s\n", to_string(err).c_str());
      });
  return ok;
}

} // namespace patterns::troupe_run
