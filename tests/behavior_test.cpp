#include "troupe/behavior.hpp"

#include "troupe/message_builder.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(behavior_test, 1200)
  TROUPE_ADD_ATOM(behavior_test, get_atom)
  TROUPE_ADD_ATOM(behavior_test, put_atom)
  TROUPE_ADD_ATOM(behavior_test, add_atom)
  TROUPE_ADD_ATOM(behavior_test, sub_atom)
  TROUPE_ADD_ATOM(behavior_test, del_atom)
TROUPE_END_TYPE_ID_BLOCK(behavior_test)

namespace {

using troupe::behavior;
using troupe::errc;
using troupe::error;
using troupe::expected;
using troupe::make_message;
using troupe::message;
using troupe::result;
using troupe::detail::handler_result;
using troupe::detail::result_kind;

// Runs `bhvr` on `msg`; nullopt if no handler matched.
std::optional<handler_result> run(const behavior& bhvr, message& msg) {
  handler_result out;
  if (!bhvr.invoke(msg, out))
    return std::nullopt;
  return out;
}

std::optional<handler_result> run(const behavior& bhvr, message&& msg) {
  return run(bhvr, msg);
}

// The value of a handler result, for comparisons.
std::string value_of(const std::optional<handler_result>& res) {
  if (!res)
    return "<no match>";
  return to_string(res->value);
}

} // namespace

// -- dispatch --------------------------------------------------------------------

TEST(behavior, the_handler_whose_types_match_runs) {
  std::string called;
  behavior bhvr{
    [&](int) { called = "int"; },
    [&](const std::string&) { called = "string"; },
    [&](int, int) { called = "int, int"; },
  };
  ASSERT_TRUE(run(bhvr, make_message(std::string{"x"})));
  EXPECT_EQ(called, "string");
  ASSERT_TRUE(run(bhvr, make_message(1, 2)));
  EXPECT_EQ(called, "int, int");
  ASSERT_TRUE(run(bhvr, make_message(1)));
  EXPECT_EQ(called, "int");
}

TEST(behavior, the_first_matching_handler_wins) {
  std::vector<int> calls;
  behavior bhvr{
    [&](double) { calls.push_back(0); },
    [&](int) { calls.push_back(1); },
    [&](const int&) { calls.push_back(2); },
    [&](message&) { calls.push_back(3); },
  };
  ASSERT_TRUE(run(bhvr, make_message(5)));
  EXPECT_EQ(calls, (std::vector<int>{1}));
}

TEST(behavior, the_first_of_handlers_taking_the_same_types_wins) {
  behavior bhvr{
    [](double) { return 0; },
    [](int) { return 1; },
    [](get_atom, int) { return 2; },
    [](const int&) { return 3; },
    [](get_atom, const int&) { return 4; },
    [](int&&) { return 5; },
  };
  EXPECT_EQ(value_of(run(bhvr, make_message(7))), "message(1)");
  EXPECT_EQ(value_of(run(bhvr, make_message(get_atom_v, 7))), "message(2)");
  EXPECT_EQ(value_of(run(bhvr, make_message(7.0))), "message(0)");
}

TEST(behavior, the_first_of_duplicates_wins_for_a_message_from_a_builder_too) {
  behavior bhvr{[](put_atom, int) { return 1; }, [](put_atom, int) { return 2; }};
  troupe::message_builder mb;
  mb.append(put_atom_v).append(7);
  EXPECT_EQ(value_of(run(bhvr, mb.to_message())), "message(1)");
}

TEST(behavior, dispatch_over_many_handlers_finds_each_one) {
  // 25 handlers over lists of one to three elements that share first or
  // second types, so that their hashes collide as they would in practice.
  behavior bhvr{
    [](get_atom) { return 0; },
    [](put_atom) { return 1; },
    [](add_atom) { return 2; },
    [](sub_atom) { return 3; },
    [](del_atom) { return 4; },
    [](get_atom, int) { return 5; },
    [](put_atom, int) { return 6; },
    [](add_atom, int) { return 7; },
    [](sub_atom, int) { return 8; },
    [](del_atom, int) { return 9; },
    [](get_atom, const std::string&) { return 10; },
    [](put_atom, const std::string&) { return 11; },
    [](add_atom, const std::string&) { return 12; },
    [](sub_atom, const std::string&) { return 13; },
    [](del_atom, const std::string&) { return 14; },
    [](get_atom, int, int) { return 15; },
    [](get_atom, int, double) { return 16; },
    [](get_atom, int, const std::string&) { return 17; },
    [](int) { return 18; },
    [](int, int) { return 19; },
    [](int, int, int) { return 20; },
    [](double) { return 21; },
    [](const std::string&) { return 22; },
    [](bool) { return 23; },
    [] { return 24; },
  };
  std::vector<message> msgs{
    make_message(get_atom_v),
    make_message(put_atom_v),
    make_message(add_atom_v),
    make_message(sub_atom_v),
    make_message(del_atom_v),
    make_message(get_atom_v, 1),
    make_message(put_atom_v, 1),
    make_message(add_atom_v, 1),
    make_message(sub_atom_v, 1),
    make_message(del_atom_v, 1),
    make_message(get_atom_v, "s"),
    make_message(put_atom_v, "s"),
    make_message(add_atom_v, "s"),
    make_message(sub_atom_v, "s"),
    make_message(del_atom_v, "s"),
    make_message(get_atom_v, 1, 2),
    make_message(get_atom_v, 1, 2.0),
    make_message(get_atom_v, 1, "s"),
    make_message(1),
    make_message(1, 2),
    make_message(1, 2, 3),
    make_message(1.0),
    make_message("s"),
    make_message(true),
    make_message(),
  };
  for (size_t i = 0; i < msgs.size(); ++i) {
    auto expected = "message(" + std::to_string(i) + ")";
    EXPECT_EQ(value_of(run(bhvr, msgs[i])), expected) << to_string(msgs[i]);
    // The same types built at run time: an equal list at another address.
    troupe::message_builder mb;
    mb.append_all(msgs[i]);
    EXPECT_EQ(value_of(run(bhvr, mb.to_message())), expected) << to_string(msgs[i]);
  }
  EXPECT_FALSE(run(bhvr, make_message(put_atom_v, 1, 2)));
  EXPECT_FALSE(run(bhvr, make_message(get_atom_v, 1, 2, 3)));
  EXPECT_FALSE(run(bhvr, make_message(1.0, 2.0)));
  EXPECT_FALSE(run(bhvr, make_message(int64_t{1})));
}

TEST(behavior, handlers_receive_the_message_elements) {
  int sum = 0;
  std::string text;
  behavior bhvr{[&](get_atom, int x, const std::string& s, int y) {
    sum = x + y;
    text = s;
  }};
  ASSERT_TRUE(run(bhvr, make_message(get_atom_v, 3, "abc", 4)));
  EXPECT_EQ(sum, 7);
  EXPECT_EQ(text, "abc");
}

TEST(behavior, const_reference_arguments_refer_into_the_message) {
  auto msg = make_message(std::string{"shared"});
  auto copy = msg;
  const std::string* seen = nullptr;
  behavior bhvr{[&](const std::string& s) { seen = &s; }};
  ASSERT_TRUE(run(bhvr, msg));
  EXPECT_EQ(seen, &copy.get_as<std::string>(0));
  EXPECT_EQ(msg.raw(), copy.raw()) << "a const reference must not unshare";
}

TEST(behavior, a_handler_without_arguments_matches_the_empty_message) {
  int calls = 0;
  behavior bhvr{[&] { ++calls; }};
  EXPECT_TRUE(run(bhvr, message{}));
  EXPECT_TRUE(run(bhvr, make_message()));
  EXPECT_FALSE(run(bhvr, make_message(1)));
  EXPECT_EQ(calls, 2);
}

TEST(behavior, a_message_from_a_builder_matches_like_a_static_one) {
  troupe::message_builder mb;
  mb.append(put_atom_v).append(std::string{"key"}).append(3);
  std::string seen;
  behavior bhvr{[&](put_atom, const std::string& key, int value) {
    seen = key + "=" + std::to_string(value);
  }};
  ASSERT_TRUE(run(bhvr, mb.to_message()));
  EXPECT_EQ(seen, "key=3");
}

TEST(behavior, no_match_returns_false_and_runs_nothing) {
  int calls = 0;
  behavior bhvr{[&](int) { ++calls; }, [&](get_atom, int) { ++calls; }};
  EXPECT_FALSE(run(bhvr, make_message(1.0)));
  EXPECT_FALSE(run(bhvr, make_message(1, 2)));
  EXPECT_FALSE(run(bhvr, make_message(get_atom_v)));
  EXPECT_FALSE(run(bhvr, make_message(put_atom_v, 1)));
  EXPECT_FALSE(run(bhvr, message{}));
  EXPECT_EQ(calls, 0);
}

TEST(behavior, an_empty_behavior_matches_nothing) {
  behavior bhvr;
  EXPECT_TRUE(bhvr.empty());
  EXPECT_FALSE(static_cast<bool>(bhvr));
  EXPECT_FALSE(run(bhvr, make_message(1)));
  EXPECT_FALSE(run(bhvr, message{}));
}

TEST(behavior, assign_replaces_the_handlers) {
  behavior bhvr{[](int x) { return x; }};
  bhvr.assign([](int x) { return -x; });
  EXPECT_EQ(value_of(run(bhvr, make_message(4))), "message(-4)");
}

TEST(behavior, copies_of_a_behavior_share_the_handlers) {
  int calls = 0;
  behavior bhvr{[&](int) { ++calls; }};
  behavior copy = bhvr;
  EXPECT_EQ(copy.impl(), bhvr.impl());
  ASSERT_TRUE(run(copy, make_message(1)));
  EXPECT_EQ(calls, 1);
}

// -- catch-all handlers ----------------------------------------------------------

TEST(behavior, a_catch_all_handler_taking_message_matches_anything) {
  std::vector<std::string> seen;
  behavior bhvr{
    [&](int) { seen.push_back("int"); },
    [&](message& msg) { seen.push_back(to_string(msg)); },
  };
  ASSERT_TRUE(run(bhvr, make_message(1)));
  ASSERT_TRUE(run(bhvr, make_message(1.5, "x")));
  ASSERT_TRUE(run(bhvr, message{}));
  EXPECT_EQ(seen, (std::vector<std::string>{"int", R"(message(1.5, "x"))", "message()"}));
}

TEST(behavior, a_catch_all_handler_sees_the_message_itself) {
  auto msg = make_message(1, 2);
  const message* seen = nullptr;
  behavior bhvr{[&](const message& x) { seen = &x; }};
  ASSERT_TRUE(run(bhvr, msg));
  EXPECT_EQ(seen, &msg);
}

TEST(behavior, a_catch_all_handler_can_answer_with_the_message) {
  behavior bhvr{[](message& msg) { return msg; }};
  auto msg = make_message(1, std::string{"echo"});
  auto res = run(bhvr, msg);
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  EXPECT_EQ(res->value.raw(), msg.raw());
}

TEST(behavior, a_catch_all_in_the_middle_shadows_later_handlers_but_not_earlier_ones) {
  behavior bhvr{
    [](int) { return 1; },
    [](message&) { return 2; },
    [](double) { return 3; },
    [](message&) { return 4; },
  };
  EXPECT_EQ(value_of(run(bhvr, make_message(0))), "message(1)");
  EXPECT_EQ(value_of(run(bhvr, make_message(0.0))), "message(2)");
  EXPECT_EQ(value_of(run(bhvr, make_message("x"))), "message(2)");
  EXPECT_EQ(value_of(run(bhvr, message{})), "message(2)");
}

TEST(behavior, a_catch_all_first_takes_every_message) {
  behavior bhvr{[](const message&) { return 1; }, [](int) { return 2; }};
  EXPECT_EQ(value_of(run(bhvr, make_message(0))), "message(1)");
  EXPECT_EQ(value_of(run(bhvr, message{})), "message(1)");
}

// -- or_else ---------------------------------------------------------------------

TEST(behavior, or_else_falls_through_to_the_second_behavior) {
  std::string called;
  behavior first{[&](int) { called = "first"; }};
  behavior second{[&](double) { called = "second"; }, [&](int) { called = "second int"; }};
  auto both = first.or_else(second);
  ASSERT_TRUE(run(both, make_message(1.0)));
  EXPECT_EQ(called, "second");
  ASSERT_TRUE(run(both, make_message(1)));
  EXPECT_EQ(called, "first") << "the first behavior is tried first";
  EXPECT_FALSE(run(both, make_message(std::string{"none"})));
}

TEST(behavior, or_else_chains_keep_their_order) {
  behavior a{[](int) { return 1; }};
  behavior b{[](int) { return 2; }, [](double) { return 2; }};
  behavior c{[](int) { return 3; }, [](double) { return 3; }, [](bool) { return 3; }};
  auto abc = a.or_else(b).or_else(c);
  EXPECT_EQ(value_of(run(abc, make_message(0))), "message(1)");
  EXPECT_EQ(value_of(run(abc, make_message(0.0))), "message(2)");
  EXPECT_EQ(value_of(run(abc, make_message(true))), "message(3)");
  EXPECT_EQ(value_of(run(abc, make_message(get_atom_v))), "<no match>");
}

TEST(behavior, or_else_of_or_else_keeps_the_order_of_all_four) {
  behavior a{[](int) { return 1; }};
  behavior b{[](int) { return 2; }, [](double) { return 2; }};
  behavior c{[](double) { return 3; }, [](bool) { return 3; }};
  behavior d{[](bool) { return 4; }, [](const std::string&) { return 4; }, [] { return 4; }};
  auto left = a.or_else(b);
  auto right = c.or_else(d);
  auto all = left.or_else(right);
  EXPECT_EQ(value_of(run(all, make_message(0))), "message(1)");
  EXPECT_EQ(value_of(run(all, make_message(0.0))), "message(2)");
  EXPECT_EQ(value_of(run(all, make_message(true))), "message(3)");
  EXPECT_EQ(value_of(run(all, make_message("s"))), "message(4)");
  EXPECT_EQ(value_of(run(all, message{})), "message(4)");
  EXPECT_EQ(value_of(run(all, make_message(get_atom_v))), "<no match>");
  // The parts still work on their own.
  EXPECT_EQ(value_of(run(right, make_message(0.0))), "message(3)");
  EXPECT_EQ(value_of(run(left, make_message(true))), "<no match>");
}

TEST(behavior, or_else_keeps_handler_state_of_its_parts) {
  int calls = 0;
  behavior a{[&](int) { ++calls; }};
  auto both = behavior{[](double) {}}.or_else(a);
  a = behavior{};
  ASSERT_TRUE(run(both, make_message(1)));
  ASSERT_TRUE(run(both, make_message(1)));
  EXPECT_EQ(calls, 2);
}

TEST(behavior, a_catch_all_in_an_or_else_shadows_the_behaviors_after_it) {
  behavior a{[](int) { return 1; }};
  behavior b{[](double) { return 2; }, [](message&) { return 2; }, [](bool) { return 2; }};
  behavior c{[](bool) { return 3; }, [](const std::string&) { return 3; }};
  auto abc = a.or_else(b).or_else(c);
  EXPECT_EQ(value_of(run(abc, make_message(0))), "message(1)");
  EXPECT_EQ(value_of(run(abc, make_message(0.0))), "message(2)");
  EXPECT_EQ(value_of(run(abc, make_message(true))), "message(2)");
  EXPECT_EQ(value_of(run(abc, make_message("s"))), "message(2)");
  auto ca = c.or_else(a);
  EXPECT_EQ(value_of(run(ca, make_message(true))), "message(3)");
  EXPECT_EQ(value_of(run(ca, make_message(0.0))), "<no match>");
}

TEST(behavior, a_skip_in_the_first_behavior_of_an_or_else_is_the_result) {
  int second_calls = 0;
  behavior first{[](int) { return troupe::skip; }};
  behavior second{[&](int) { ++second_calls; }};
  auto res = run(first.or_else(second), make_message(1));
  ASSERT_TRUE(res) << "skipping still counts as a match";
  EXPECT_EQ(res->kind, result_kind::skip);
  EXPECT_EQ(second_calls, 0);
}

TEST(behavior, or_else_with_an_empty_behavior_is_the_other_one) {
  behavior some{[](int) {}};
  behavior none;
  EXPECT_EQ(some.or_else(none).impl(), some.impl());
  EXPECT_EQ(none.or_else(some).impl(), some.impl());
  EXPECT_TRUE(none.or_else(none).empty());
}

// -- mutable arguments -----------------------------------------------------------

TEST(behavior, a_mutable_reference_unshares_so_other_copies_keep_the_old_value) {
  auto original = make_message(1, std::string{"old"});
  auto msg = original;
  behavior bhvr{[](int& x, std::string& s) {
    x = 2;
    s = "new";
  }};
  ASSERT_TRUE(run(bhvr, msg));
  EXPECT_NE(msg.raw(), original.raw());
  EXPECT_EQ(msg.get_as<int>(0), 2);
  EXPECT_EQ(msg.get_as<std::string>(1), "new");
  EXPECT_EQ(original.get_as<int>(0), 1);
  EXPECT_EQ(original.get_as<std::string>(1), "old");
}

TEST(behavior, a_mutable_reference_writes_in_place_when_the_message_is_not_shared) {
  auto msg = make_message(1);
  auto* raw = msg.raw();
  behavior bhvr{[](int& x) { x = 42; }};
  ASSERT_TRUE(run(bhvr, msg));
  EXPECT_EQ(msg.raw(), raw);
  EXPECT_EQ(msg.get_as<int>(0), 42);
}

TEST(behavior, a_mutable_handler_that_does_not_match_leaves_the_message_shared) {
  auto original = make_message(1.0);
  auto msg = original;
  behavior bhvr{[](int& x) { x = 1; }, [](double) {}};
  ASSERT_TRUE(run(bhvr, msg));
  EXPECT_EQ(msg.raw(), original.raw());
}

TEST(behavior, an_rvalue_reference_moves_out_of_an_unshared_copy) {
  auto original = make_message(std::string(64, 'a'));
  auto msg = original;
  std::string taken;
  behavior bhvr{[&](std::string&& s) { taken = std::move(s); }};
  ASSERT_TRUE(run(bhvr, msg));
  EXPECT_EQ(taken, std::string(64, 'a'));
  EXPECT_EQ(original.get_as<std::string>(0), std::string(64, 'a'));
  EXPECT_NE(msg.raw(), original.raw());
}

TEST(behavior, a_by_value_argument_is_a_copy) {
  auto msg = make_message(std::string{"keep"});
  behavior bhvr{[](std::string s) { s = "changed"; }};
  ASSERT_TRUE(run(bhvr, msg));
  EXPECT_EQ(msg.get_as<std::string>(0), "keep");
}

// -- handler results -------------------------------------------------------------

TEST(behavior, a_void_handler_gives_an_empty_value) {
  behavior bhvr{[](int) {}};
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  EXPECT_TRUE(res->value.empty());
  EXPECT_FALSE(res->err);
}

TEST(behavior, a_value_becomes_a_message_of_that_value) {
  behavior bhvr{
    [](int x) { return x * 2; },
    [](double) { return std::string{"text"}; },
    [](bool) { return "literal"; },
  };
  auto res = run(bhvr, make_message(21));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  ASSERT_TRUE(res->value.match_elements<int>());
  EXPECT_EQ(res->value.get_as<int>(0), 42);
  auto str = run(bhvr, make_message(1.0));
  ASSERT_TRUE(str);
  EXPECT_EQ(to_string(str->value), R"(message("text"))");
  auto lit = run(bhvr, make_message(true));
  ASSERT_TRUE(lit);
  EXPECT_TRUE(lit->value.match_elements<std::string>());
}

TEST(behavior, a_returned_message_is_the_response) {
  behavior bhvr{[](int x) { return make_message(x, x + 1); }};
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  EXPECT_EQ(to_string(res->value), "message(1, 2)");
}

TEST(behavior, a_result_with_a_value_becomes_that_value) {
  behavior bhvr{
    [](int x) -> result<int> { return x + 1; },
    [](double) -> result<int, std::string> { return {1, "one"}; },
    [](bool) -> result<void> { return {}; },
  };
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  EXPECT_EQ(to_string(res->value), "message(2)");
  auto two = run(bhvr, make_message(1.0));
  ASSERT_TRUE(two);
  EXPECT_EQ(two->kind, result_kind::value);
  EXPECT_TRUE((two->value.match_elements<int, std::string>()));
  EXPECT_EQ(to_string(two->value), R"(message(1, "one"))");
  auto none = run(bhvr, make_message(true));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->kind, result_kind::value);
  EXPECT_TRUE(none->value.empty());
}

TEST(behavior, a_result_converts_its_arguments_to_the_declared_types) {
  behavior bhvr{[](int) -> result<std::string, int64_t> { return {"abc", 1}; }};
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_TRUE((res->value.match_elements<std::string, int64_t>()));
}

TEST(behavior, a_result_from_an_empty_error_is_a_runtime_error_unless_it_is_void) {
  behavior bhvr{
    [](int) -> result<int> { return error{}; },
    [](bool) -> result<void> { return errc::none; },
  };
  auto value = run(bhvr, make_message(1));
  ASSERT_TRUE(value);
  EXPECT_EQ(value->kind, result_kind::error);
  EXPECT_TRUE(value->err == errc::runtime_error);
  auto nothing = run(bhvr, make_message(true));
  ASSERT_TRUE(nothing);
  EXPECT_EQ(nothing->kind, result_kind::value);
  EXPECT_TRUE(nothing->value.empty());
}

TEST(behavior, a_result_with_an_error_becomes_that_error) {
  behavior bhvr{
    [](int) -> result<int> { return error{errc::invalid_argument, "negative"}; },
    [](double) -> result<int> { return errc::runtime_error; },
    [](bool) -> result<void> { return errc::queue_full; },
  };
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::error);
  EXPECT_TRUE(res->value.empty());
  EXPECT_TRUE(res->err == errc::invalid_argument);
  EXPECT_EQ(res->err.context(), "negative");
  auto code = run(bhvr, make_message(1.0));
  ASSERT_TRUE(code);
  EXPECT_EQ(code->kind, result_kind::error);
  EXPECT_TRUE(code->err == errc::runtime_error);
  auto void_code = run(bhvr, make_message(true));
  ASSERT_TRUE(void_code);
  EXPECT_EQ(void_code->kind, result_kind::error);
  EXPECT_TRUE(void_code->err == errc::queue_full);
}

TEST(behavior, a_result_from_an_expected_takes_its_value_or_error) {
  behavior bhvr{
    [](int x) -> result<int> { return expected<int>{x * 3}; },
    [](double) -> result<int> { return expected<int>{errc::actor_down}; },
  };
  auto good = run(bhvr, make_message(2));
  ASSERT_TRUE(good);
  EXPECT_EQ(good->kind, result_kind::value);
  EXPECT_EQ(to_string(good->value), "message(6)");
  auto bad = run(bhvr, make_message(2.0));
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->kind, result_kind::error);
  EXPECT_TRUE(bad->err == errc::actor_down);
}

TEST(behavior, an_expected_with_a_value_becomes_that_value) {
  behavior bhvr{
    [](int x) -> expected<int> { return x + 10; },
    [](double) -> expected<void> { return {}; },
  };
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  EXPECT_EQ(to_string(res->value), "message(11)");
  auto none = run(bhvr, make_message(1.0));
  ASSERT_TRUE(none);
  EXPECT_EQ(none->kind, result_kind::value);
  EXPECT_TRUE(none->value.empty());
}

TEST(behavior, an_expected_with_an_error_becomes_that_error) {
  behavior bhvr{
    [](int) -> expected<int> { return error{errc::request_timeout, "slow"}; },
    [](double) -> expected<void> { return errc::broken_promise; },
  };
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::error);
  EXPECT_TRUE(res->err == errc::request_timeout);
  EXPECT_EQ(res->err.context(), "slow");
  auto void_err = run(bhvr, make_message(1.0));
  ASSERT_TRUE(void_err);
  EXPECT_EQ(void_err->kind, result_kind::error);
  EXPECT_TRUE(void_err->err == errc::broken_promise);
}

TEST(behavior, a_returned_error_becomes_an_error_result) {
  behavior bhvr{
    [](int) { return error{errc::unexpected_message, "no"}; },
    [](double) { return errc::invalid_argument; },
  };
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::error);
  EXPECT_EQ(to_string(res->err), "troupe::errc::unexpected_message: no");
  auto code = run(bhvr, make_message(1.0));
  ASSERT_TRUE(code);
  EXPECT_EQ(code->kind, result_kind::error);
  EXPECT_TRUE(code->err == errc::invalid_argument);
}

TEST(behavior, a_returned_empty_error_means_success_without_a_value) {
  behavior bhvr{[](int) { return error{}; }};
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  EXPECT_TRUE(res->value.empty());
  EXPECT_FALSE(res->err);
}

TEST(behavior, a_returned_zero_error_code_means_success_like_an_empty_error) {
  behavior bhvr{[](int) { return errc::none; }};
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  EXPECT_TRUE(res->value.empty());
  EXPECT_FALSE(res->err);
}

TEST(behavior, a_returned_tuple_becomes_a_message_of_its_elements) {
  behavior bhvr{[](int x) { return std::make_tuple(x, std::string{"s"}, 2.5); }};
  auto res = run(bhvr, make_message(7));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->kind, result_kind::value);
  ASSERT_TRUE((res->value.match_elements<int, std::string, double>()));
  EXPECT_EQ(to_string(res->value), R"(message(7, "s", 2.5))");
}

TEST(behavior, skip_leaves_the_message_for_later) {
  behavior bhvr{[](int) { return troupe::skip; }};
  auto res = run(bhvr, make_message(1));
  ASSERT_TRUE(res) << "skipping still counts as a match";
  EXPECT_EQ(res->kind, result_kind::skip);
}

TEST(behavior, delegated_means_someone_else_answers) {
  behavior bhvr{
    [](int) { return troupe::delegated<int>{}; },
    [](double) -> result<int> { return troupe::delegated<int>{}; },
    [](bool) -> result<void> { return troupe::delegated<void>{}; },
  };
  for (auto msg : {make_message(1), make_message(1.0), make_message(true)}) {
    auto res = run(bhvr, msg);
    ASSERT_TRUE(res) << to_string(msg);
    EXPECT_EQ(res->kind, result_kind::delegated) << to_string(msg);
    EXPECT_TRUE(res->value.empty());
    EXPECT_FALSE(res->err);
  }
}

TEST(behavior, free_functions_are_handlers_too) {
  struct local {
    static int twice(int x) {
      return 2 * x;
    }
  };
  behavior bhvr{&local::twice};
  EXPECT_EQ(value_of(run(bhvr, make_message(8))), "message(16)");
}

TEST(behavior, a_stateful_function_object_keeps_its_state_across_calls) {
  struct counter {
    int n = 0;
    int operator()(get_atom) {
      return ++n;
    }
  };
  behavior bhvr{counter{}};
  run(bhvr, make_message(get_atom_v));
  run(bhvr, make_message(get_atom_v));
  EXPECT_EQ(value_of(run(bhvr, make_message(get_atom_v))), "message(3)");
}
