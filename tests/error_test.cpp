#include "troupe/error.hpp"

#include "troupe/expected.hpp"
#include "troupe/message.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace error_test {

// A user error code enum with names.
enum class math_error : uint8_t { none = 0, division_by_zero, overflow };

std::string to_string(math_error x) {
  switch (x) {
    case math_error::none:
      return "none";
    case math_error::division_by_zero:
      return "division_by_zero";
    case math_error::overflow:
      return "overflow";
  }
  return "?";
}

// A user error code enum without names: codes print as numbers.
enum class plain_error : uint8_t { none = 0, first, second };

} // namespace error_test

template <>
struct troupe::is_error_code_enum<error_test::math_error> : std::true_type {};

template <>
struct troupe::is_error_code_enum<error_test::plain_error> : std::true_type {};

TROUPE_BEGIN_TYPE_ID_BLOCK(error_test, 1250)
  TROUPE_ADD_TYPE_ID(error_test, (error_test::math_error))
  TROUPE_ADD_TYPE_ID(error_test, (error_test::plain_error))
TROUPE_END_TYPE_ID_BLOCK(error_test)

namespace {

using error_test::math_error;
using error_test::plain_error;
using troupe::bad_expected_access;
using troupe::errc;
using troupe::error;
using troupe::exit_reason;
using troupe::expected;

} // namespace

// -- error -----------------------------------------------------------------------

TEST(error, a_default_error_is_empty) {
  error err;
  EXPECT_FALSE(err);
  EXPECT_TRUE(err.empty());
  EXPECT_EQ(err.code(), 0);
  EXPECT_EQ(err.category(), troupe::invalid_type_id);
  EXPECT_EQ(err.context(), "");
  EXPECT_EQ(to_string(err), "none");
}

TEST(error, the_zero_code_without_context_is_no_error) {
  EXPECT_TRUE(error{errc::none}.empty());
  EXPECT_TRUE(error{exit_reason::normal}.empty());
  EXPECT_TRUE(error{math_error::none}.empty());
}

TEST(error, an_errc_error_carries_code_category_and_context) {
  error err{errc::actor_down, "the receiver had terminated"};
  EXPECT_TRUE(err);
  EXPECT_FALSE(err.empty());
  EXPECT_EQ(err.code(), static_cast<uint8_t>(errc::actor_down));
  EXPECT_EQ(err.category(), troupe::type_id_v<errc>);
  EXPECT_EQ(err.context(), "the receiver had terminated");
}

TEST(error, to_string_names_category_code_and_context) {
  EXPECT_EQ(to_string(error{errc::actor_down, "the receiver had terminated"}),
            "troupe::errc::actor_down: the receiver had terminated");
  EXPECT_EQ(to_string(error{errc::request_timeout}), "troupe::errc::request_timeout");
  EXPECT_EQ(to_string(error{exit_reason::kill}), "troupe::exit_reason::kill");
  EXPECT_EQ(to_string(troupe::make_error(exit_reason::user_shutdown, "bye")),
            "troupe::exit_reason::user_shutdown: bye");
}

TEST(error, exit_reasons_have_their_own_category) {
  error err{exit_reason::unhandled_exception};
  EXPECT_EQ(err.category(), troupe::type_id_v<exit_reason>);
  EXPECT_NE(err.category(), troupe::type_id_v<errc>);
  EXPECT_EQ(err.code(), static_cast<uint8_t>(exit_reason::unhandled_exception));
}

TEST(error, every_errc_and_exit_reason_has_a_name) {
  EXPECT_EQ(to_string(errc::none), "none");
  EXPECT_EQ(to_string(errc::unexpected_message), "unexpected_message");
  EXPECT_EQ(to_string(errc::unexpected_response), "unexpected_response");
  EXPECT_EQ(to_string(errc::request_timeout), "request_timeout");
  EXPECT_EQ(to_string(errc::actor_down), "actor_down");
  EXPECT_EQ(to_string(errc::invalid_argument), "invalid_argument");
  EXPECT_EQ(to_string(errc::unknown_key), "unknown_key");
  EXPECT_EQ(to_string(errc::malformed_value), "malformed_value");
  EXPECT_EQ(to_string(errc::parse_error), "parse_error");
  EXPECT_EQ(to_string(errc::runtime_error), "runtime_error");
  EXPECT_EQ(to_string(errc::system_shutdown), "system_shutdown");
  EXPECT_EQ(to_string(errc::queue_full), "queue_full");
  EXPECT_EQ(to_string(errc::broken_promise), "broken_promise");
  EXPECT_EQ(to_string(exit_reason::normal), "normal");
  EXPECT_EQ(to_string(exit_reason::unhandled_exception), "unhandled_exception");
  EXPECT_EQ(to_string(exit_reason::kill), "kill");
  EXPECT_EQ(to_string(exit_reason::user_shutdown), "user_shutdown");
  EXPECT_EQ(to_string(exit_reason::unreachable), "unreachable");
  EXPECT_EQ(to_string(exit_reason::unknown), "unknown");
}

TEST(error, codes_outside_the_enum_print_as_numbers) {
  EXPECT_EQ(to_string(static_cast<errc>(200)), "errc(200)");
  EXPECT_EQ(to_string(static_cast<exit_reason>(77)), "exit_reason(77)");
}

TEST(error, an_error_compares_equal_to_its_code_enum) {
  error err{errc::actor_down, "context"};
  EXPECT_TRUE(err == errc::actor_down);
  EXPECT_FALSE(err == errc::request_timeout);
  EXPECT_FALSE(err == errc::none);
  EXPECT_TRUE(error{} == errc::none);
  EXPECT_TRUE(error{} == exit_reason::normal);
}

TEST(error, equal_codes_of_different_categories_are_different_errors) {
  static_assert(static_cast<uint8_t>(errc::unexpected_message)
                == static_cast<uint8_t>(exit_reason::unhandled_exception));
  error err{errc::unexpected_message};
  EXPECT_FALSE(err == exit_reason::unhandled_exception);
  EXPECT_FALSE(err == error{exit_reason::unhandled_exception});
  EXPECT_FALSE(err == math_error::division_by_zero);
}

TEST(error, errors_compare_by_code_and_category_not_context) {
  EXPECT_TRUE((error{errc::queue_full, "a"} == error{errc::queue_full, "b"}));
  EXPECT_FALSE((error{errc::queue_full} == error{errc::parse_error}));
  EXPECT_TRUE(error{} == error{});
  EXPECT_FALSE(error{} == error{errc::queue_full});
}

TEST(error, a_copy_is_independent_of_the_original) {
  error original{errc::parse_error, "line 3"};
  error copy{original};
  EXPECT_TRUE(copy == errc::parse_error);
  EXPECT_EQ(copy.context(), "line 3");
  original = error{errc::queue_full, "other"};
  EXPECT_EQ(copy.context(), "line 3");
  EXPECT_TRUE(copy == errc::parse_error);
  error assigned;
  assigned = copy;
  EXPECT_EQ(to_string(assigned), "troupe::errc::parse_error: line 3");
  assigned = error{};
  EXPECT_TRUE(assigned.empty());
  EXPECT_FALSE(copy.empty());
}

TEST(error, self_assignment_keeps_the_error) {
  error err{errc::parse_error, "line 3"};
  auto& alias = err;
  err = alias;
  EXPECT_EQ(to_string(err), "troupe::errc::parse_error: line 3");
}

TEST(error, moving_an_error_leaves_the_source_empty) {
  error source{errc::invalid_argument, "x"};
  error target{std::move(source)};
  EXPECT_TRUE(target == errc::invalid_argument);
  EXPECT_TRUE(source.empty()); // NOLINT(bugprone-use-after-move)
}

TEST(error, an_error_with_only_a_context_is_an_error) {
  error err{errc::none, "something"};
  EXPECT_TRUE(err);
  EXPECT_EQ(err.context(), "something");
}

TEST(error, the_raw_constructor_takes_code_category_and_an_optional_namer) {
  error numbered{3, troupe::type_id_v<errc>};
  EXPECT_EQ(to_string(numbered), "troupe::errc::3");
  EXPECT_TRUE(numbered == errc::request_timeout);
  auto namer = [](uint8_t code) { return "code" + std::to_string(code); };
  error named{5, troupe::type_id_v<errc>, "ctx", +namer};
  EXPECT_EQ(to_string(named), "troupe::errc::code5: ctx");
  EXPECT_TRUE(error(0, troupe::type_id_v<errc>).empty());
}

TEST(error, a_user_error_code_enum_works_like_the_built_in_ones) {
  static_assert(troupe::is_error_code_enum_v<math_error>);
  error err{math_error::division_by_zero, "1 / 0"};
  EXPECT_TRUE(err);
  EXPECT_EQ(err.category(), troupe::type_id_v<math_error>);
  EXPECT_EQ(err.code(), static_cast<uint8_t>(math_error::division_by_zero));
  EXPECT_TRUE(err == math_error::division_by_zero);
  EXPECT_FALSE(err == math_error::overflow);
  EXPECT_FALSE(err == errc::unexpected_message);
  EXPECT_EQ(to_string(err), "error_test::math_error::division_by_zero: 1 / 0");
}

TEST(error, a_user_error_code_without_names_prints_its_number) {
  EXPECT_EQ(to_string(error{plain_error::second}), "error_test::plain_error::2");
}

TEST(error, errors_travel_in_messages) {
  auto msg = troupe::make_message(error{errc::actor_down, "gone"});
  ASSERT_TRUE(msg.match_elements<error>());
  EXPECT_TRUE(msg.get_as<error>(0) == errc::actor_down);
  EXPECT_EQ(msg.get_as<error>(0).context(), "gone");
  auto copy = msg;
  copy.get_mutable_as<error>(0) = error{};
  EXPECT_EQ(msg.get_as<error>(0).context(), "gone");
  EXPECT_EQ(to_string(msg), "message(troupe::errc::actor_down: gone)");
}

// -- expected<T> -----------------------------------------------------------------

TEST(expected, a_value_is_accessible_in_every_way) {
  expected<std::string> x{"value"};
  ASSERT_TRUE(x);
  EXPECT_TRUE(x.has_value());
  EXPECT_EQ(x.value(), "value");
  EXPECT_EQ(*x, "value");
  EXPECT_EQ(x->size(), 5u);
  EXPECT_TRUE(x.error().empty());
  EXPECT_EQ(x.value_or("fallback"), "value");
  x.value() += "!";
  EXPECT_EQ(*x, "value!");
  const auto& cx = x;
  EXPECT_EQ(cx.value(), "value!");
  EXPECT_EQ(cx->size(), 6u);
}

TEST(expected, an_error_is_accessible_and_value_throws) {
  expected<int> x{error{errc::actor_down, "gone"}};
  EXPECT_FALSE(x);
  EXPECT_FALSE(x.has_value());
  EXPECT_TRUE(x.error() == errc::actor_down);
  EXPECT_EQ(x.error().context(), "gone");
  EXPECT_EQ(x.value_or(7), 7);
  try {
    [[maybe_unused]] auto& v = x.value();
    FAIL() << "value() returned on an error";
  } catch (const bad_expected_access& ex) {
    EXPECT_TRUE(ex.error() == errc::actor_down);
    EXPECT_EQ(std::string{ex.what()},
              "troupe::bad_expected_access: troupe::errc::actor_down: gone");
  }
  const auto& cx = x;
  EXPECT_THROW(cx.value(), bad_expected_access);
  EXPECT_THROW(std::move(x).value(), bad_expected_access);
}

TEST(expected, an_error_code_enum_converts_to_an_error) {
  expected<int> x = errc::invalid_argument;
  ASSERT_FALSE(x);
  EXPECT_TRUE(x.error() == errc::invalid_argument);
  expected<int> y = math_error::overflow;
  ASSERT_FALSE(y);
  EXPECT_EQ(to_string(y.error()), "error_test::math_error::overflow");
}

TEST(expected, a_value_convertible_to_t_is_accepted) {
  expected<int64_t> x = 3;
  ASSERT_TRUE(x);
  EXPECT_EQ(*x, 3);
  expected<std::string> s = std::string(3, 'a');
  EXPECT_EQ(*s, "aaa");
}

TEST(expected, moving_out_the_value_leaves_the_expected_valid) {
  expected<std::unique_ptr<int>> x{std::make_unique<int>(5)};
  auto ptr = std::move(x).value();
  ASSERT_NE(ptr, nullptr);
  EXPECT_EQ(*ptr, 5);
  expected<std::string> s{std::string(50, 'q')};
  std::string taken = *std::move(s);
  EXPECT_EQ(taken, std::string(50, 'q'));
}

TEST(expected, the_error_can_be_moved_out) {
  expected<int> x{error{errc::parse_error, "bad"}};
  error err = std::move(x).error();
  EXPECT_TRUE(err == errc::parse_error);
  EXPECT_EQ(err.context(), "bad");
}

TEST(expected, moving_the_error_out_of_a_value_gives_an_empty_error) {
  expected<int> x{1};
  error err = std::move(x).error();
  EXPECT_TRUE(err.empty());
  EXPECT_TRUE(x.has_value()) << "the value stays";
}

TEST(expected, copies_are_independent) {
  expected<std::string> x{"a"};
  auto y = x;
  *y = "b";
  EXPECT_EQ(*x, "a");
  expected<int> e{error{errc::queue_full, "full"}};
  auto f = e;
  EXPECT_EQ(f.error().context(), "full");
}

// -- expected<void> --------------------------------------------------------------

TEST(expected, a_default_expected_void_is_a_success) {
  expected<void> x;
  EXPECT_TRUE(x);
  EXPECT_TRUE(x.has_value());
  EXPECT_NO_THROW(x.value());
  EXPECT_TRUE(x.error().empty());
}

TEST(expected, an_expected_void_with_an_error_throws_on_value) {
  expected<void> x{error{errc::system_shutdown, "stopping"}};
  EXPECT_FALSE(x);
  EXPECT_TRUE(x.error() == errc::system_shutdown);
  EXPECT_THROW(x.value(), bad_expected_access);
  expected<void> code = errc::queue_full;
  EXPECT_FALSE(code);
  EXPECT_TRUE(code.error() == errc::queue_full);
  error moved = std::move(code).error();
  EXPECT_TRUE(moved == errc::queue_full);
}

TEST(expected, an_expected_void_from_an_empty_error_is_a_success) {
  expected<void> x{error{}};
  EXPECT_TRUE(x);
  expected<void> none = errc::none;
  EXPECT_TRUE(none);
}
