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

#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <string>

namespace troupe {

// In namespace troupe so that gtest finds it by ADL: failure messages then
// show the error instead of its bytes.
inline void PrintTo(const error& x, std::ostream* os) {
  *os << to_string(x);
}

} // namespace troupe

namespace troupe::test {

/// Every scheduler policy, as named in the configuration.
inline constexpr const char* every_policy[] = {"work-sharing", "work-stealing"};

/// The base of a suite run under every policy: its parameter is the name.
using policy_test = testing::TestWithParam<const char*>;

/// The test-name suffix for a policy: "work-stealing" -> "work_stealing"
/// (gtest allows only letters, digits and '_').
inline std::string policy_name(const testing::TestParamInfo<const char*>& info) {
  std::string result = info.param;
  for (auto& c : result)
    if (c == '-')
      c = '_';
  return result;
}

/// Two workers: enough for work to move between threads, few enough that
/// the tests stay cheap on a small machine and under the sanitizers.
struct policy_config : actor_system_config {
  explicit policy_config(const char* policy) {
    scheduler.policy = policy;
    scheduler.max_threads = 2;
  }
};

/// The bound on every wait for something that must happen: long enough that
/// only a broken runtime runs into it, so that a hang fails the test instead
/// of blocking the run. Never the expected outcome of a wait.
inline constexpr auto patience = std::chrono::seconds{sanitized ? 90 : 30};

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
