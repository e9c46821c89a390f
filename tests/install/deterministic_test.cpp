// A test written with the installed deterministic fixture (troupe::test).

#include <troupe/all.hpp>
#include <troupe/test/fixture/deterministic.hpp>

#include <gtest/gtest.h>

#include <chrono>

namespace {

using installed_fixture = troupe::test::fixture::deterministic;

TEST_F(installed_fixture, a_delayed_message_arrives_when_virtual_time_has_passed) {
  auto doubler = sys.spawn([] { return troupe::behavior{[](int x) { return 2 * x; }}; });
  troupe::anon_mail(21).delay(std::chrono::seconds(1)).send(doubler);
  EXPECT_EQ(mail_count(doubler), 0u);
  advance_time(std::chrono::seconds(1));
  expect<int>().with(21).from(nullptr).to(doubler);
}

} // namespace
