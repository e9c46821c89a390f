#pragma once

// CAF's test DSL on GoogleTest: a CAF test ports by the rename.
//
//   WITH_FIXTURE(troupe::test::fixture::deterministic) {
//   TEST("two actors can communicate with each other") {
//     auto pong_actor = sys.spawn(pong);
//     expect<ping_atom, int>().with(std::ignore, 3).to(pong_actor);
//     check_eq(mail_count(), 0u);
//   }
//   } // WITH_FIXTURE
//
//   TROUPE_TEST_MAIN()  // troupe/test/caf_test_main.hpp
//
// TEST with one argument, a description, registers a GoogleTest test named
// after it (spaces become underscores) in a suite named after the file; with
// two it is GoogleTest's TEST. Inside, check(x), check_eq, check_ne,
// check_lt, check_le, check_gt and check_ge report a failure at their line
// and return whether they held, as CAF's do; require(x) and require_eq stop
// the test on failure. SCENARIO/GIVEN/WHEN/THEN are not provided.

#include "troupe/detail/pp.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

namespace troupe::test {

/// Thrown by a failed require: GoogleTest reports the test as failed.
class requirement_failed : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The checks of CAF's tests, for the body of TEST("...").
class runnable {
public:
  bool check(bool x, std::source_location loc = std::source_location::current()) {
    if (!x)
      ADD_FAILURE_AT(loc.file_name(), static_cast<int>(loc.line())) << "check failed";
    return x;
  }

#define TROUPE_TEST_CHECK(name, op)                                            \
  template <class A, class B>                                                  \
  bool name(const A& lhs, const B& rhs,                                        \
            std::source_location loc = std::source_location::current()) {      \
    if (lhs op rhs)                                                            \
      return true;                                                             \
    ADD_FAILURE_AT(loc.file_name(), static_cast<int>(loc.line()))              \
      << #name " failed: " << ::testing::PrintToString(lhs) << " " #op " "     \
      << ::testing::PrintToString(rhs) << " is false";                         \
    return false;                                                              \
  }
  TROUPE_TEST_CHECK(check_eq, ==)
  TROUPE_TEST_CHECK(check_ne, !=)
  TROUPE_TEST_CHECK(check_lt, <)
  TROUPE_TEST_CHECK(check_le, <=)
  TROUPE_TEST_CHECK(check_gt, >)
  TROUPE_TEST_CHECK(check_ge, >=)
#undef TROUPE_TEST_CHECK

  void require(bool x, std::source_location loc = std::source_location::current()) {
    if (!check(x, loc))
      throw requirement_failed{"requirement failed"};
  }

  template <class A, class B>
  void require_eq(const A& lhs, const B& rhs,
                  std::source_location loc = std::source_location::current()) {
    if (!check_eq(lhs, rhs, loc))
      throw requirement_failed{"requirement failed"};
  }

  /// Fails the test here with `what`.
  [[noreturn]] void fail(std::string_view what,
                         std::source_location loc = std::source_location::current()) {
    ADD_FAILURE_AT(loc.file_name(), static_cast<int>(loc.line())) << what;
    throw requirement_failed{std::string{what}};
  }
};

/// A test of TEST("..."): its fixture and the checks.
template <class Fixture>
struct caf_test : Fixture, runnable {};

/// `text` with every character that is not a letter or digit an underscore.
inline std::string test_identifier(std::string_view text) {
  std::string result;
  for (char c : text)
    result += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return result;
}

/// Registers test class `T` with GoogleTest.
template <class T>
bool register_caf_test(std::string_view description, const char* file, int line) {
  std::string_view path{file};
  auto slash = path.find_last_of('/');
  auto stem = path.substr(slash == std::string_view::npos ? 0 : slash + 1);
  stem = stem.substr(0, stem.find('.'));
  ::testing::RegisterTest(test_identifier(stem).c_str(), test_identifier(description).c_str(),
                          nullptr, nullptr, file, line,
                          []() -> ::testing::Test* { return new T; });
  return true;
}

} // namespace troupe::test

/// The fixture of TEST("...") outside WITH_FIXTURE.
using troupe_test_fixture = ::testing::Test;

/// The tests in the braces that follow run on a fresh `fixture` each.
#define WITH_FIXTURE(fixture)                                                  \
  namespace TROUPE_PP_CAT(troupe_with_fixture_, __LINE__) {                    \
  using troupe_test_fixture = fixture;                                         \
  }                                                                            \
  namespace TROUPE_PP_CAT(troupe_with_fixture_, __LINE__)

#define TROUPE_CAF_TEST_IMPL(description, id)                                  \
  struct id : ::troupe::test::caf_test<troupe_test_fixture> {                  \
    void TestBody() override;                                                  \
  };                                                                           \
  [[maybe_unused]] static const bool TROUPE_PP_CAT(id, _registered)            \
    = ::troupe::test::register_caf_test<id>(description, __FILE__, __LINE__);  \
  void id::TestBody()

#define TROUPE_CAF_TEST(description)                                           \
  TROUPE_CAF_TEST_IMPL(description, TROUPE_PP_CAT(troupe_caf_test_, __LINE__))

#undef TEST
/// TEST("description") as in CAF, or TEST(suite, name) as in GoogleTest.
#define TEST(...) TROUPE_PP_ARG_3(__VA_ARGS__, GTEST_TEST, TROUPE_CAF_TEST, none)(__VA_ARGS__)
