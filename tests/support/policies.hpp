#pragma once

// What every test suite that runs once per scheduler policy shares. The
// policies are listed here and nowhere else in the tests, so a new policy
// runs every such suite by being added to `every_policy`.
//
//   class my_suite : public troupe::test::policy_test { ... };
//   TEST_P(my_suite, ...) { troupe::test::policy_config cfg{GetParam()}; ... }
//   TROUPE_TEST_EVERY_POLICY(my_suite);

#include "sanitizers.hpp"

#include "troupe/actor_system_config.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace troupe {

// In namespace troupe so that gtest finds it by ADL: failure messages then
// show the error instead of its bytes.
inline void PrintTo(const error& x, std::ostream* os) {
  *os << to_string(x);
}

} // namespace troupe

namespace troupe::test {

/// Every scheduler policy, as named in the configuration, and every idle
/// mode of work stealing as "work-stealing/<mode>" (plain "work-stealing" is
/// its default mode, adaptive). The locality policy runs as
/// "locality/affinity": affinity placement (the one with queues of its own)
/// on a synthetic topology of two NUMA nodes, a worker each, so that every
/// steal crosses a level and every unblocked actor may go to the other node.
inline constexpr const char* every_policy[] = {"work-sharing", "work-stealing",
                                               "work-stealing/event", "work-stealing/polling",
                                               "locality/affinity"};

/// The topology "locality/..." entries run on.
inline constexpr const char* two_node_topology = "numa:2 core:1 pu:1";

/// The policy part of an entry of every_policy: "work-stealing/event" ->
/// "work-stealing".
inline std::string policy_of(std::string_view entry) {
  return std::string{entry.substr(0, entry.find('/'))};
}

/// Sets the policy and idle mode (or, for the locality policy, the
/// placement and topology) an entry of every_policy names.
inline void apply_policy(scheduler_config& cfg, std::string_view entry) {
  cfg.policy = policy_of(entry);
  if (cfg.policy == "locality")
    cfg.topology = two_node_topology;
  if (auto slash = entry.find('/'); slash != std::string_view::npos) {
    auto rest = entry.substr(slash + 1);
    bool known = cfg.policy == "locality" ? from_string(rest, cfg.placement)
                                          : from_string(rest, cfg.idle_mode);
    if (!known)
      throw std::invalid_argument("no idle mode or placement: " + std::string{entry});
  }
}

/// True for the schedulers whose idle workers block until work arrives, with
/// no timed wake-up: an idle system of them makes no wake-ups at all.
inline bool sleeps_until_woken(std::string_view entry) {
  scheduler_config cfg;
  apply_policy(cfg, entry);
  return cfg.policy == "work-sharing" || cfg.idle_mode == idle_mode::adaptive;
}

/// The base of a suite run under every policy: its parameter is the name.
using policy_test = testing::TestWithParam<const char*>;

/// The test-name suffix for a policy: "work-stealing/event" -> "work_stealing_event"
/// (gtest allows only letters, digits and '_').
inline std::string policy_name(const testing::TestParamInfo<const char*>& info) {
  std::string result = info.param;
  for (auto& c : result)
    if (c == '-' || c == '/')
      c = '_';
  return result;
}

/// Two workers: enough for work to move between threads, few enough that
/// the tests stay cheap on a small machine and under the sanitizers.
struct policy_config : actor_system_config {
  explicit policy_config(const char* policy) {
    apply_policy(scheduler, policy);
    scheduler.max_threads = 2;
  }
};

/// The bound on every wait for something that must happen: long enough that
/// only a broken runtime runs into it, so that a hang fails the test instead
/// of blocking the run. Never the expected outcome of a wait.
inline constexpr auto patience = std::chrono::seconds{sanitized ? 90 : 30};

/// Calls `pause` until `pred` holds or `patience` runs out.
template <class Pred, class Pause>
bool wait_until(Pred& pred, Pause pause) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    pause();
  }
  return true;
}

/// Polls `pred` until it holds or `patience` runs out.
template <class Pred>
bool eventually(Pred pred) {
  return wait_until(pred, [] { std::this_thread::sleep_for(std::chrono::milliseconds{1}); });
}

/// Spins until `pred` holds or `patience` runs out; for use inside jobs.
template <class Pred>
bool spin_until(Pred pred) {
  return wait_until(pred, [] { std::this_thread::yield(); });
}

/// Success if `x` holds `want`; otherwise names the error or the value.
template <class T>
testing::AssertionResult holds(const expected<T>& x, const T& want) {
  if (!x)
    return testing::AssertionFailure() << "error: " << to_string(x.error());
  if (*x != want)
    return testing::AssertionFailure() << "value " << testing::PrintToString(*x)
                                       << " instead of " << testing::PrintToString(want);
  return testing::AssertionSuccess();
}

} // namespace troupe::test

/// Runs the TEST_Ps of `suite` (a troupe::test::policy_test) once per policy,
/// named suite/<test>/work_sharing and so on.
#define TROUPE_TEST_EVERY_POLICY(suite)                                        \
  INSTANTIATE_TEST_SUITE_P(policies, suite,                                    \
                           testing::ValuesIn(::troupe::test::every_policy),    \
                           ::troupe::test::policy_name)
