#include "troupe/deep_to_string.hpp"

#include "../support/serialization_types.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <ratio>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

// The format is documented by these expected texts (see
// stringification_inspector.hpp).

using namespace serialization_types;
using namespace std::literals;
using testing::HasSubstr;
using testing::Not;
using troupe::deep_to_string;

namespace deep_to_string_test {

// Has both: its own text wins over the fields.
struct labelled {
  int32_t id = 0;
};

std::string to_string(const labelled& x) {
  return "#" + std::to_string(x.id);
}

template <class Inspector>
bool inspect(Inspector& f, labelled& x) {
  return f.object(x).fields(f.field("id", x.id));
}

// Troupe's own types and to_string types as fields.
struct incident {
  troupe::error cause;
  troupe::timespan after{0};
  color hue = color::red;
  labelled tag;
  std::optional<std::string> note;
};

template <class Inspector>
bool inspect(Inspector& f, incident& x) {
  return f.object(x).fields(f.field("cause", x.cause), f.field("after", x.after),
                            f.field("hue", x.hue), f.field("tag", x.tag),
                            f.field("note", x.note));
}

// An empty tag without to_string.
struct started {};

// Empty, and its copy throws: makes a valueless variant.
struct throws_on_copy {
  throws_on_copy() = default;
  throws_on_copy(const throws_on_copy&) {
    throw std::runtime_error("no copies");
  }
  throws_on_copy& operator=(const throws_on_copy&) = default;
};

} // namespace deep_to_string_test

TROUPE_BEGIN_TYPE_ID_BLOCK(deep_to_string_test, 2400)
  TROUPE_ADD_TYPE_ID(deep_to_string_test, (deep_to_string_test::incident))
  TROUPE_ADD_TYPE_ID(deep_to_string_test, (deep_to_string_test::started))
TROUPE_END_TYPE_ID_BLOCK(deep_to_string_test)

using deep_to_string_test::incident;
using deep_to_string_test::labelled;

// -- objects ------------------------------------------------------------------------------

TEST(deep_to_string, objects_print_their_type_name_and_fields_in_order) {
  EXPECT_EQ(deep_to_string(foo{1, -2}), "serialization_types::foo(1, -2)");
  EXPECT_EQ(deep_to_string(bar{foo{1, 2}, "x"}),
            R"(serialization_types::bar(serialization_types::foo(1, 2), "x"))");
  EXPECT_EQ(deep_to_string(secret{"abc"}), R"(serialization_types::secret("abc"))");
}

TEST(deep_to_string, a_pretty_name_names_the_object_and_an_anonymous_one_prints_no_name) {
  EXPECT_EQ(deep_to_string(legacy_point{-5, 5}), "legacy_point(-5, 5)");
  // with_fallback has no type ID and no pretty_name; a field with a fallback
  // may be absent, so it prints as an optional one does.
  EXPECT_EQ(deep_to_string(with_fallback{2, "n"}), R"((*2, *"n"))");
}

TEST(deep_to_string, optional_fields_print_as_caf_prints_them) {
  EXPECT_EQ(deep_to_string(with_optionals{}), "serialization_types::with_optionals(null, null)");
  EXPECT_EQ(deep_to_string(with_optionals{"l", std::nullopt}),
            R"(serialization_types::with_optionals(*"l", null))");
  EXPECT_EQ(deep_to_string(with_optionals{std::nullopt, 3}),
            "serialization_types::with_optionals(null, *3)");
  EXPECT_EQ(deep_to_string(with_optionals{"l", 3}),
            R"(serialization_types::with_optionals(*"l", *3))");
}

TEST(deep_to_string, fields_behind_accessors_print_like_members) {
  counter c;
  ASSERT_TRUE(c.set_value(5));
  EXPECT_EQ(deep_to_string(c), "serialization_types::counter(5)");
  percentage p;
  p.label = "half";
  ASSERT_FALSE(p.set(50));
  EXPECT_EQ(deep_to_string(p), R"((50, "half"))");
}

TEST(deep_to_string, empty_classes_print_as_objects_without_fields) {
  EXPECT_EQ(deep_to_string(deep_to_string_test::started{}), "deep_to_string_test::started()");
  EXPECT_EQ(to_string(troupe::make_message(deep_to_string_test::started{})),
            "message(deep_to_string_test::started())");
}

TEST(deep_to_string, to_string_wins_over_inspect) {
  EXPECT_EQ(deep_to_string(labelled{7}), "#7");
  EXPECT_EQ(deep_to_string(std::vector<labelled>{{1}, {2}}), "[#1, #2]");
}

TEST(deep_to_string, errors_durations_enums_and_to_string_types_print_as_elsewhere_in_troupe) {
  incident x;
  x.cause = troupe::make_error(troupe::errc::request_timeout, "late");
  x.after = std::chrono::milliseconds{5};
  x.hue = color::blue;
  x.tag = labelled{3};
  EXPECT_EQ(deep_to_string(x), "deep_to_string_test::incident("
                               "troupe::errc::request_timeout: late, 5000000ns, "
                               "blue, #3, null)");
  EXPECT_EQ(deep_to_string(incident{}),
            "deep_to_string_test::incident(none, 0ns, red, #0, null)");
}

// -- standard types -----------------------------------------------------------------------

TEST(deep_to_string, scalars_print_as_message_elements_do) {
  EXPECT_EQ(deep_to_string(true), "true");
  EXPECT_EQ(deep_to_string('x'), "'x'");
  EXPECT_EQ(deep_to_string(int8_t{-128}), "-128");
  EXPECT_EQ(deep_to_string(uint64_t{18'446'744'073'709'551'615u}), "18446744073709551615");
  EXPECT_EQ(deep_to_string(2.5), "2.5");
  EXPECT_EQ(deep_to_string(std::byte{0xAB}), "171");
  EXPECT_EQ(deep_to_string(level::low), "-1") << "an enum without to_string: its integer";
  EXPECT_EQ(deep_to_string(color::green), "green");
  EXPECT_EQ(deep_to_string(beep_atom_v), "beep_atom");
}

TEST(deep_to_string, strings_print_quoted_with_escapes_and_wide_ones_as_utf8) {
  EXPECT_EQ(deep_to_string("say \"hi\"\n"s), R"("say \"hi\"\n")");
  EXPECT_EQ(deep_to_string("literal"), R"("literal")");
  EXPECT_EQ(deep_to_string("view"sv), R"("view")");
  EXPECT_EQ(deep_to_string(std::u16string{u"h\u00e9llo"}), "\"h\xc3\xa9llo\"");
  EXPECT_EQ(deep_to_string(std::u32string(1, U'\U0001F600')), "\"\xf0\x9f\x98\x80\"");
  EXPECT_EQ(deep_to_string(std::u16string{u"\U0001F600"}), "\"\xf0\x9f\x98\x80\"")
    << "a surrogate pair is one character";
  EXPECT_EQ(deep_to_string(std::u16string(1, char16_t{0xD800})), "\"\xef\xbf\xbd\"")
    << "a lone surrogate prints as U+FFFD";
  EXPECT_EQ(deep_to_string(std::wstring{L"wide"}), R"("wide")");
  EXPECT_EQ(deep_to_string(std::u8string{u8"utf8"}), R"("utf8")");
}

TEST(deep_to_string, sequences_and_sets_print_in_brackets_and_byte_vectors_as_numbers) {
  EXPECT_EQ(deep_to_string(std::vector<int32_t>{1, -2, 3}), "[1, -2, 3]");
  EXPECT_EQ(deep_to_string(std::vector<int32_t>{}), "[]");
  EXPECT_EQ(deep_to_string(std::vector<bool>{true, false}), "[true, false]");
  EXPECT_EQ(deep_to_string(std::set<std::string>{"b", "a"}), R"(["a", "b"])");
  EXPECT_EQ(deep_to_string(std::vector<std::byte>{std::byte{0}, std::byte{255}}), "[0, 255]");
  EXPECT_EQ(deep_to_string(std::vector<std::vector<foo>>{{foo{1, 1}}, {}}),
            "[[serialization_types::foo(1, 1)], []]");
}

TEST(deep_to_string, tuples_pairs_and_arrays_print_in_parentheses) {
  EXPECT_EQ(deep_to_string(std::make_tuple(int32_t{42}, "answer"s, 4.25)),
            R"((42, "answer", 4.25))");
  EXPECT_EQ(deep_to_string(std::make_pair('p', true)), "('p', true)");
  EXPECT_EQ(deep_to_string(std::array<int16_t, 3>{1, 2, -3}), "(1, 2, -3)");
}

TEST(deep_to_string, maps_print_key_equals_value_in_braces) {
  EXPECT_EQ(deep_to_string(std::map<std::string, int32_t>{{"one", 1}, {"two", 2}}),
            R"({"one" = 1, "two" = 2})");
  EXPECT_EQ(deep_to_string(std::map<int32_t, int32_t>{}), "{}");
  EXPECT_EQ(deep_to_string(std::map<foo, std::vector<std::string>>{{foo{1, 2}, {"a"}}}),
            R"({serialization_types::foo(1, 2) = ["a"]})");
}

TEST(deep_to_string, optionals_print_their_value_or_null_and_variants_their_alternative) {
  EXPECT_EQ(deep_to_string(std::optional<int32_t>{5}), "5");
  EXPECT_EQ(deep_to_string(std::optional<int32_t>{}), "null");
  EXPECT_EQ(deep_to_string(std::vector<std::optional<foo>>{std::nullopt, foo{1, 2}}),
            "[null, serialization_types::foo(1, 2)]");
  using choice = std::variant<int32_t, std::string, foo>;
  EXPECT_EQ(deep_to_string(choice{7}), "7");
  EXPECT_EQ(deep_to_string(choice{"s"s}), R"("s")");
  EXPECT_EQ(deep_to_string(choice{foo{1, 2}}), "serialization_types::foo(1, 2)");
  EXPECT_EQ(deep_to_string(std::variant<std::monostate, double>{}), "()");
}

TEST(deep_to_string, durations_print_in_their_own_unit_and_time_points_since_their_epoch) {
  EXPECT_EQ(deep_to_string(std::chrono::milliseconds{1500}), "1500ms");
  EXPECT_EQ(deep_to_string(std::chrono::microseconds{-3}), "-3us");
  EXPECT_EQ(deep_to_string(std::chrono::minutes{2}), "2min");
  EXPECT_EQ(deep_to_string(std::chrono::duration<double>{0.25}), "0.25s");
  EXPECT_EQ(deep_to_string(std::chrono::duration<int64_t, std::ratio<86400>>{1}),
            "86400000000000ns")
    << "a period without a unit prints in nanoseconds";
  auto when = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>{
    std::chrono::seconds{1700000000}};
  EXPECT_EQ(deep_to_string(when), "1700000000s");
}

// -- messages -----------------------------------------------------------------------------

TEST(deep_to_string, messages_print_their_elements_through_inspect) {
  auto msg = troupe::make_message(int32_t{7}, "seven"s, bar{foo{1, 2}, "b"});
  auto expected = R"(message(7, "seven", serialization_types::bar()"
                  R"(serialization_types::foo(1, 2), "b")))"s;
  EXPECT_EQ(deep_to_string(msg), expected);
  EXPECT_EQ(to_string(msg), expected);
  EXPECT_EQ(deep_to_string(std::vector<troupe::message>{troupe::make_message(foo{3, 4})}),
            "[message(serialization_types::foo(3, 4))]");
}

TEST(deep_to_string, every_standard_type_in_one_object_prints_without_gaps) {
  auto text = deep_to_string(make_everything());
  EXPECT_THAT(text, Not(HasSubstr("<unprintable>")));
  EXPECT_THAT(text, Not(HasSubstr("<error")));
  for (auto part : {"serialization_types::everything(true, 'z', -128, "sv,
                    "\"h\xc3\xa9llo\""sv, "[0, 255]"sv, "(1, 2, -3)"sv,
                    R"({"one" = 1, "two" = 2})"sv, "{1 = 10, 1 = 11, 2 = 20}"sv,
                    "*[4, 5], null, serialization_types::foo(1, 2), 2.5"sv, "1500ms"sv,
                    "blue, -1"sv, R"(message(7, "seven", serialization_types::bar()"sv,
                    "legacy_point(-5, 5))"sv})
    EXPECT_THAT(text, HasSubstr(std::string{part}));
}

// -- failures -----------------------------------------------------------------------------

TEST(deep_to_string, a_value_that_fails_to_print_ends_with_the_error) {
  using deep_to_string_test::throws_on_copy;
  std::variant<int32_t, throws_on_copy> v;
  throws_on_copy source;
  EXPECT_THROW(v.emplace<1>(source), std::runtime_error);
  ASSERT_TRUE(v.valueless_by_exception());
  EXPECT_EQ(deep_to_string(std::make_pair(1, v)),
            "(1, <error: troupe::errc::invalid_argument: cannot save a valueless variant>");
}
