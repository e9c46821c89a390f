#pragma once

// The scheduler configurations the latency study runs CAF in, by name: the
// paper's section IV.C configurations through CAF's own work-stealing keys
// (`work-stealing.*` in 0.17, `caf.work-stealing.*` in 1.x; the same seven
// keys in both):
//
//   default     nothing set: CAF's defaults, Table I's values in both versions
//   custom      moderate sleep 1us; relaxed steal interval 5, sleep 1us
//   aggressive  moderate and relaxed sleep 0 (the aggressive tier never sleeps)
//
// In 0.17.6 the relaxed tier is the paper's event-based one: relaxed sleep is
// the timeout of a condition-variable wait that external enqueues signal, so
// `default` is the paper's `new` with a 10 ms timeout and 50 us moderate
// sleeps. Plain C++17.

#include "common/caf_compat.hpp"

#include <string>
#include <vector>

namespace latency {

inline const std::vector<std::string> caf_configs = {"default", "custom", "aggressive"};

/// "caf-0.17" or "caf-1.1": the system name in the results.
inline std::string caf_system_name() {
  return "caf-" + std::to_string(CAF_MAJOR_VERSION) + "." + std::to_string(CAF_MINOR_VERSION);
}

/// CAF 1.x needs its type meta objects before the first actor system.
inline void init_caf() {
#if CAF_MAJOR_VERSION >= 1
  caf::core::init_global_meta_objects();
#endif
}

/// Puts configuration `name` (one of caf_configs) with `threads` workers into `cfg`.
inline void apply_caf_config(caf::actor_system_config& cfg, const std::string& name,
                             size_t threads) {
  caf_compat::set_max_threads(cfg, threads);
#if CAF_MAJOR_VERSION >= 1
  const std::string ws = "caf.work-stealing.";
#else
  const std::string ws = "work-stealing.";
#endif
  using us = std::chrono::microseconds;
  auto span = [](us x) { return std::chrono::duration_cast<caf::timespan>(x); };
  if (name == "custom") {
    cfg.set(ws + "moderate-sleep-duration", span(us{1}));
    cfg.set(ws + "relaxed-steal-interval", size_t{5});
    cfg.set(ws + "relaxed-sleep-duration", span(us{1}));
  } else if (name == "aggressive") {
    cfg.set(ws + "moderate-sleep-duration", span(us{0}));
    cfg.set(ws + "relaxed-sleep-duration", span(us{0}));
  }
}

} // namespace latency
