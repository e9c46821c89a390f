#pragma once

// The scheduler configurations the latency study runs Troupe in, by name.
// The polling ones are the paper's section IV.C configurations with its
// Table I tiers (attempts, steal interval, sleep):
//
//   polling-default     aggressive 100, 10, 0 | moderate 500, 5, 50us | relaxed 1, 1, 10ms
//   polling-custom      moderate sleep 1us; relaxed steal interval 5, sleep 1us
//   polling-aggressive  every sleep 0: the workers never stop polling
//
// `event` is the paper's `new`: Algorithms 1 and 2 (the worker waits on its
// event, wait-timeout 200 us by default) with the moderate tier's sleep cut
// to 1 us as in `custom`. `adaptive` is Troupe's default idle mode with its
// default idle budget (the share of a core its workers may spend spinning
// where the next message is expected); `adaptive-budget-0` sets it to 0, the
// adaptive mode as it was before it had one, and `adaptive-budget-1` to a
// whole core.

#include <troupe/actor_system_config.hpp>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace latency {

inline const std::vector<std::string> troupe_configs
  = {"adaptive", "adaptive-budget-0", "adaptive-budget-1", "event",
     "polling-default", "polling-custom", "polling-aggressive"};

/// The troupe.* keys and values of configuration `name`.
inline std::vector<std::pair<std::string, std::string>> troupe_settings(const std::string& name) {
  const std::string ws = "troupe.scheduler.";
  // Adaptive is the default idle mode: its configuration sets nothing, so it
  // also runs on a Troupe that has no other mode.
  if (name == "adaptive")
    return {};
  if (name == "adaptive-budget-0")
    return {{ws + "idle-budget", "0"}};
  if (name == "adaptive-budget-1")
    return {{ws + "idle-budget", "1"}};
  if (name == "event")
    return {{ws + "idle-mode", "event"}, {ws + "moderate.sleep-duration", "1us"}};
  std::string moderate_sleep = "50us";
  std::string relaxed_steal = "1";
  std::string relaxed_sleep = "10ms";
  if (name == "polling-custom") {
    moderate_sleep = "1us";
    relaxed_steal = "5";
    relaxed_sleep = "1us";
  } else if (name == "polling-aggressive") {
    moderate_sleep = "0us";
    relaxed_sleep = "0us";
  }
  return {{ws + "idle-mode", "polling"},
          {ws + "aggressive.poll-attempts", "100"},
          {ws + "aggressive.steal-interval", "10"},
          {ws + "aggressive.sleep-duration", "0us"},
          {ws + "moderate.poll-attempts", "500"},
          {ws + "moderate.steal-interval", "5"},
          {ws + "moderate.sleep-duration", moderate_sleep},
          {ws + "relaxed.poll-attempts", "1"},
          {ws + "relaxed.steal-interval", relaxed_steal},
          {ws + "relaxed.sleep-duration", relaxed_sleep}};
}

/// Puts configuration `name` (one of troupe_configs) with `threads` workers
/// into `cfg`, plus `extra` settings; prints the error and returns false if
/// this build of Troupe rejects a key or value.
inline bool apply_troupe_config(troupe::actor_system_config& cfg, const std::string& name,
                                size_t threads,
                                const std::vector<std::pair<std::string, std::string>>& extra
                                = {}) {
  auto settings = troupe_settings(name);
  settings.emplace_back("troupe.scheduler.max-threads", std::to_string(threads));
  settings.insert(settings.end(), extra.begin(), extra.end());
  for (const auto& [key, value] : settings) {
    if (auto err = cfg.set(key, value)) {
      std::fprintf(stderr, "config %s: %s=%s: %s\n", name.c_str(), key.c_str(), value.c_str(),
                   to_string(err).c_str());
      return false;
    }
  }
  return true;
}

} // namespace latency
