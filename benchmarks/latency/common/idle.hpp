#pragma once

// The idle benchmark without the actors: a system with N event-based actors
// alive and no message in flight, watched for --duration seconds; with
// --traffic, after some seconds of messages, to see how soon the workers
// stop once the messages stop. Each system's program spawns the actors,
// calls watch_idle, and stops them. Plain C++17.

#include "latency/common/command_line.hpp"
#include "latency/common/measure.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace latency {

/// "1s", "0.5s": seconds in a case name, as Python's f"{x:g}s" writes them.
inline std::string seconds_text(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%gs", x);
  return buf;
}

struct idle_options {
  double duration = 0;
  uint64_t actors = 0;
  size_t threads = 0;
  std::string config;
  /// Seconds of messages before the system settles; 0 for none.
  double traffic = 0;
  /// Messages per second during the traffic, round-robin over the actors.
  uint64_t traffic_rate = default_traffic_rate;
  /// Seconds from the last message (or the spawns) to the watched interval.
  double settle = default_settle;

  static constexpr uint64_t default_traffic_rate = 1000;
  /// 50 of the polling tiers' longest sleep (10 ms): workers that spin or
  /// back off after start-up have reached their idle state.
  static constexpr double default_settle = 0.5;

  /// round(traffic x traffic_rate).
  uint64_t traffic_messages() const noexcept {
    return static_cast<uint64_t>(std::llround(traffic * static_cast<double>(traffic_rate)));
  }

  /// "idle,actors=N"; with traffic ",traffic=Ss,settle=Ss" (and
  /// ",traffic-rate=R" when not the default); without, ",settle=Ss" only
  /// when the settle is not the default.
  std::string case_name() const {
    auto result = "idle,actors=" + std::to_string(actors);
    if (traffic > 0) {
      result += ",traffic=" + seconds_text(traffic);
      if (traffic_rate != default_traffic_rate)
        result += ",traffic-rate=" + std::to_string(traffic_rate);
    }
    if (traffic > 0 || settle != default_settle)
      result += ",settle=" + seconds_text(settle);
    return result;
  }
};

inline constexpr const char* idle_usage
  = "--duration=S --actors=N [--threads=T] [--config=NAME] [--traffic=S] [--traffic-rate=R] "
    "[--settle=S]";

/// Reads the flags and calls finish(); `configs` lists the system's
/// configurations, the default first.
inline idle_options read_idle_options(command_line& cl, const std::vector<std::string>& configs) {
  idle_options result;
  result.duration = cl.seconds("duration", nullptr, 3600);
  result.actors = cl.integer("actors", nullptr, 0, 1'000'000);
  const uint64_t all_cpus = usable_cpus();
  result.threads = static_cast<size_t>(cl.integer("threads", &all_cpus, 1, 1024));
  result.config = cl.choice("config", configs);
  const double no_traffic = 0;
  result.traffic = cl.seconds("traffic", &no_traffic, 3600);
  if (cl.has("traffic-rate") && result.traffic == 0)
    cl.fail("--traffic-rate applies with --traffic only");
  const uint64_t default_rate = idle_options::default_traffic_rate;
  result.traffic_rate = cl.integer("traffic-rate", &default_rate, 1, 10'000'000);
  const double default_settle = idle_options::default_settle;
  result.settle = cl.seconds("settle", &default_settle, 3600);
  if (result.traffic > 0) {
    if (result.actors == 0)
      cl.fail("--traffic needs at least one actor");
    auto messages = result.traffic_messages();
    if (messages < 1 || messages > 50'000'000)
      cl.fail("--traffic times --traffic-rate must give from 1 to 50,000,000 messages, not "
              + std::to_string(messages));
  }
  cl.finish();
  return result;
}

/// The moments of an idle run, in order, at which watch_idle calls `mark`.
enum class idle_mark {
  /// The traffic's last message was sent (without traffic: watch_idle was
  /// called, right after the spawns); the system settles from here.
  settle,
  /// The watched interval begins.
  start,
  /// It ends.
  end,
};

/// Sends the traffic, if any, from the calling thread (a plain thread
/// outside the system, as a client's): message k, the integer k, goes to
/// actor k mod N via `send(k mod N, k)` at start + k / traffic_rate, an
/// absolute deadline as the pipeline's generator uses. Then lets the system
/// settle and sleeps `duration` seconds; the result is what the process
/// used in that sleep. `mark(m)` runs at each idle_mark (to read a system's
/// own counters). The caller's own sleep adds one voluntary context switch.
template <class Send, class Mark>
interval_usage watch_idle(const idle_options& opts, Send&& send, Mark&& mark) {
  if (opts.traffic > 0) {
    const auto start = now_ns();
    const auto messages = opts.traffic_messages();
    for (uint64_t k = 0; k < messages; ++k) {
      auto deadline = start + static_cast<int64_t>(k * 1'000'000'000 / opts.traffic_rate);
      if (now_ns() < deadline)
        sleep_until_ns(deadline);
      send(static_cast<size_t>(k % opts.actors), static_cast<int64_t>(k));
    }
  }
  mark(idle_mark::settle);
  sleep_until_ns(now_ns() + static_cast<int64_t>(opts.settle * 1e9));
  mark(idle_mark::start);
  auto from = take_usage();
  sleep_until_ns(from.wall_ns + static_cast<int64_t>(opts.duration * 1e9));
  auto to = take_usage();
  mark(idle_mark::end);
  return usage_between(from, to);
}

/// Prints the metrics every system has.
inline void report_idle(const result_id& id, const interval_usage& used) {
  emit(id, "cpu", used.cpu_percent, "%");
  emit(id, "ctx_switches", used.ctx_switches, "1/s");
}

} // namespace latency
