// CAF's test DSL (troupe/test/test.hpp): TEST("...") with and without a
// fixture, CAF's checks, and GoogleTest's TEST beside them in one file.

#include "troupe/test/test.hpp"

#include "troupe/event_based_actor.hpp"
#include "troupe/result.hpp"
#include "troupe/test/fixture/deterministic.hpp"

#include <gtest/gtest-spi.h>

#include <string>
#include <tuple>

using namespace troupe;

namespace {

behavior ping(event_based_actor* self, actor pong_actor, int n) {
  self->mail(ping_atom_v, n).send(pong_actor);
  return {
    [=](pong_atom, int x) {
      if (x > 1)
        self->mail(ping_atom_v, x - 1).send(pong_actor);
    },
  };
}

behavior pong() {
  return {[](ping_atom, int x) { return make_result(pong_atom_v, x); }};
}

WITH_FIXTURE(troupe::test::fixture::deterministic) {

TEST("two actors ping-pong in the order the test expects") {
  auto pong_actor = sys.spawn(pong);
  auto ping_actor = sys.spawn(ping, pong_actor, 2);
  expect<ping_atom, int>().with(std::ignore, 2).from(ping_actor).to(pong_actor);
  expect<pong_atom, int>().with(std::ignore, 2).from(pong_actor).to(ping_actor);
  expect<ping_atom, int>().with(std::ignore, 1).from(ping_actor).to(pong_actor);
  expect<pong_atom, int>().with(std::ignore, 1).from(pong_actor).to(ping_actor);
  check_eq(mail_count(), 0u);
}

TEST("each test gets a fresh fixture") {
  check_eq(mail_count(), 0u);
}

} // WITH_FIXTURE

TEST("a test without a fixture runs its checks") {
  check(true);
  check_eq(std::string{"a"}, "a");
  check_ne(1, 2);
  check_lt(1, 2);
  check_le(2, 2);
  check_gt(3, 2);
  check_ge(3, 3);
  require_eq(4, 4);
}

troupe::test::runnable checks;

TEST(caf_dsl, a_failed_check_reports_its_values_and_returns_false) {
  EXPECT_NONFATAL_FAILURE(EXPECT_FALSE(checks.check_eq(1, 2)), "check_eq failed: 1 == 2");
  EXPECT_NONFATAL_FAILURE(EXPECT_FALSE(checks.check_lt(3, 2)), "check_lt failed");
  EXPECT_NONFATAL_FAILURE(EXPECT_THROW(checks.require(false), troupe::test::requirement_failed),
                          "check failed");
}

TEST(caf_dsl, descriptions_become_test_names) {
  auto* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(troupe::test::test_identifier("two actors can talk"), "two_actors_can_talk");
  bool found = false;
  auto* unit = ::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit->total_test_suite_count(); ++i) {
    auto* s = unit->GetTestSuite(i);
    for (int j = 0; j < s->total_test_count(); ++j)
      if (std::string{s->name()} == "caf_dsl_test"
          && std::string{s->GetTestInfo(j)->name()} == "each_test_gets_a_fresh_fixture")
        found = true;
  }
  EXPECT_TRUE(found);
}

} // namespace
