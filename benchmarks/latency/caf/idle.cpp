// idle (CAF 0.17 and 1.x): N event-based actors alive, no messages, for
// --duration seconds; with --traffic, after that many seconds of messages
// from a plain thread and a --settle interval. Prints the process's CPU
// share and voluntary context switches per second over the watched interval
// (CAF exposes no scheduler counters).
//
//   idle --duration=S --actors=N [--threads=T] [--config=NAME]
//        [--traffic=S] [--traffic-rate=R] [--settle=S]

#include "latency/caf/configs.hpp"
#include "latency/common/idle.hpp"

#include <cstdint>
#include <vector>

namespace {

caf::behavior sleeper(caf::event_based_actor*) {
  return {
    [](int64_t) {},
  };
}

} // namespace

int main(int argc, char** argv) {
  latency::command_line cl{argc, argv, latency::idle_usage};
  auto opts = latency::read_idle_options(cl, latency::caf_configs);
  latency::init_caf();
  latency::interval_usage used;
  {
    caf::actor_system_config cfg;
    latency::apply_caf_config(cfg, opts.config, opts.threads);
    caf::actor_system sys{cfg};
    std::vector<caf::actor> actors;
    actors.reserve(opts.actors);
    for (uint64_t i = 0; i < opts.actors; ++i)
      actors.push_back(sys.spawn(sleeper));
    used = latency::watch_idle(
      opts, [&](size_t i, int64_t k) { caf_compat::anon_tell(actors[i], k); },
      [](latency::idle_mark) {});
    for (const auto& x : actors)
      caf::anon_send_exit(x, caf::exit_reason::user_shutdown);
  }
  latency::report_idle({opts.case_name(), latency::caf_system_name(), opts.config}, used);
  return 0;
}
