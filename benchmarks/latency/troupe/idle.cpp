// idle (Troupe): N event-based actors alive, no messages, for --duration
// seconds; with --traffic, after that many seconds of messages from a plain
// thread and a --settle interval. Prints the process's CPU share and
// voluntary context switches per second over the watched interval, and the
// scheduler's wake-ups and parks in it and in the settle interval before it
// (summed over the workers, from actor_system::scheduler_stats()).
//
//   idle --duration=S --actors=N [--threads=T] [--config=NAME]
//        [--traffic=S] [--traffic-rate=R] [--settle=S]

#include "latency/common/idle.hpp"
#include "latency/troupe/configs.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <vector>

namespace {

troupe::behavior sleeper(troupe::event_based_actor*) {
  return {
    [](int64_t) {},
  };
}

struct worker_totals {
  uint64_t wakeups = 0;
  uint64_t parks = 0;
};

worker_totals totals(const troupe::actor_system& sys) {
  worker_totals result;
  for (const auto& w : sys.scheduler_stats()) {
    result.wakeups += w.wakeups;
    result.parks += w.parks;
  }
  return result;
}

} // namespace

int main(int argc, char** argv) {
  latency::command_line cl{argc, argv, latency::idle_usage};
  auto opts = latency::read_idle_options(cl, latency::troupe_configs);
  troupe::actor_system_config cfg;
  if (!latency::apply_troupe_config(cfg, opts.config, opts.threads))
    return 2;
  latency::interval_usage used;
  worker_totals settling; // when the settle interval began
  worker_totals before;   // when the watched interval began
  worker_totals after;    // when it ended
  {
    troupe::actor_system sys{cfg};
    std::vector<troupe::actor> actors;
    actors.reserve(opts.actors);
    for (uint64_t i = 0; i < opts.actors; ++i)
      actors.push_back(sys.spawn(sleeper));
    used = latency::watch_idle(
      opts, [&](size_t i, int64_t k) { troupe::anon_send(actors[i], k); },
      [&](latency::idle_mark m) {
        auto now = totals(sys);
        if (m == latency::idle_mark::settle)
          settling = now;
        else if (m == latency::idle_mark::start)
          before = now;
        else
          after = now;
      });
    for (const auto& x : actors)
      troupe::anon_send_exit(x, troupe::exit_reason::user_shutdown);
  }
  latency::result_id id{opts.case_name(), "troupe", opts.config};
  latency::report_idle(id, used);
  latency::emit(id, "wakeups", static_cast<double>(after.wakeups - before.wakeups), "count");
  latency::emit(id, "parks", static_cast<double>(after.parks - before.parks), "count");
  // When the workers stopped ticking after the traffic: with none left in
  // the watched interval, these say whether they did within the settle.
  latency::emit(id, "settle_wakeups", static_cast<double>(before.wakeups - settling.wakeups),
                "count");
  latency::emit(id, "settle_parks", static_cast<double>(before.parks - settling.parks), "count");
  return 0;
}
