#pragma once

// The idle benchmark without the actors: a system with N event-based actors
// alive and no message in flight, watched for --duration seconds. Each
// system's program spawns the actors, calls watch_idle, and stops them.
// Plain C++17.

#include "latency/common/command_line.hpp"
#include "latency/common/measure.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace latency {

struct idle_options {
  double duration = 0;
  uint64_t actors = 0;
  size_t threads = 0;
  std::string config;

  std::string case_name() const {
    return "idle,actors=" + std::to_string(actors);
  }
};

inline constexpr const char* idle_usage
  = "--duration=S --actors=N [--threads=T] [--config=NAME]";

/// Reads the flags and calls finish(); `configs` lists the system's
/// configurations, the default first.
inline idle_options read_idle_options(command_line& cl, const std::vector<std::string>& configs) {
  idle_options result;
  result.duration = cl.seconds("duration", nullptr, 3600);
  result.actors = cl.integer("actors", nullptr, 0, 1'000'000);
  const uint64_t all_cpus = usable_cpus();
  result.threads = static_cast<size_t>(cl.integer("threads", &all_cpus, 1, 1024));
  result.config = cl.choice("config", configs);
  cl.finish();
  return result;
}

/// Lets the system settle (workers that spin or back off after start-up
/// reach their idle state; 0.5 s is 50 of the polling tiers' longest sleep),
/// then sleeps `duration` seconds. `at_start` and `at_end` run right at the
/// interval's ends (to read a system's own counters); the result is what the
/// process used in between. The caller's own sleep adds one voluntary
/// context switch.
template <class AtStart, class AtEnd>
interval_usage watch_idle(double duration, AtStart&& at_start, AtEnd&& at_end) {
  sleep_until_ns(now_ns() + 500'000'000);
  at_start();
  auto from = take_usage();
  sleep_until_ns(from.wall_ns + static_cast<int64_t>(duration * 1e9));
  auto to = take_usage();
  at_end();
  return usage_between(from, to);
}

/// Prints the metrics every system has.
inline void report_idle(const result_id& id, const interval_usage& used) {
  emit(id, "cpu", used.cpu_percent, "%");
  emit(id, "ctx_switches", used.ctx_switches, "1/s");
}

} // namespace latency
