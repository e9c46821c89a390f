#include "troupe/json_writer.hpp"

#include "../support/serialization_types.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

// The format is documented by these expected texts (see json_writer.hpp).

using namespace serialization_types;
using namespace std::literals;
using troupe::errc;
using troupe::to_json;

namespace {

template <class T>
std::string json(const T& x) {
  auto result = to_json(x);
  EXPECT_TRUE(result) << to_string(result.error());
  return result ? *result : std::string{"<error>"};
}

template <class T>
troupe::error json_error(const T& x) {
  auto result = to_json(x);
  EXPECT_FALSE(result) << "wrote " << *result;
  return result ? troupe::error{} : result.error();
}

struct with_string {
  std::string text;
};

template <class Inspector>
bool inspect(Inspector& f, with_string& x) {
  return f.object(x).fields(f.field("text", x.text));
}

struct with_timestamp {
  std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds> at;
};

template <class Inspector>
bool inspect(Inspector& f, with_timestamp& x) {
  return f.object(x).fields(f.field("at", x.at));
}

} // namespace

// -- objects ------------------------------------------------------------------------------

TEST(json_writer, objects_are_json_objects_of_their_fields_in_order) {
  EXPECT_EQ(json(foo{1, -2}), R"({"a":1,"b":-2})");
  EXPECT_EQ(json(bar{foo{1, 2}, "x"}), R"({"a":{"a":1,"b":2},"b":"x"})");
  EXPECT_EQ(json(legacy_point{-5, 5}), R"({"x":-5,"y":5})");
}

TEST(json_writer, absent_optional_fields_are_left_out) {
  EXPECT_EQ(json(with_optionals{}), "{}");
  EXPECT_EQ(json(with_optionals{"l", std::nullopt}), R"({"label":"l"})");
  EXPECT_EQ(json(with_optionals{std::nullopt, 3}), R"({"count":3})");
  EXPECT_EQ(json(with_optionals{"l", 3}), R"({"label":"l","count":3})");
}

TEST(json_writer, fields_with_a_fallback_are_always_written) {
  EXPECT_EQ(json(with_fallback{}), R"({"retries":0,"name":""})");
}

TEST(json_writer, fields_behind_accessors_are_written_like_members) {
  counter c;
  c.set_value(7);
  EXPECT_EQ(json(c), R"({"value":7})");
}

TEST(json_writer, empty_classes_are_empty_objects) {
  EXPECT_EQ(json(troupe::unit), "{}");
  EXPECT_EQ(json(beep_atom_v), "{}");
}

// -- primitives -----------------------------------------------------------------------------

TEST(json_writer, integers_are_numbers_over_their_whole_range) {
  EXPECT_EQ(json(int8_t{-128}), "-128");
  EXPECT_EQ(json(std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(json(std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(json(char16_t{0xE9}), "233");
  EXPECT_EQ(json(std::byte{0xAB}), "171");
}

TEST(json_writer, bools_are_true_and_false) {
  EXPECT_EQ(json(true), "true");
  EXPECT_EQ(json(std::vector<bool>{true, false}), "[true,false]");
}

TEST(json_writer, a_char_is_a_string_of_one_character) {
  EXPECT_EQ(json('a'), R"("a")");
  EXPECT_EQ(json('"'), R"("\"")");
  EXPECT_EQ(json('\n'), R"("\n")");
  EXPECT_EQ(json('\x01'), R"("\u0001")");
  // Bytes above 0x7F are the code points of the same value, in UTF-8.
  EXPECT_EQ(json(static_cast<char>(0xE9)), "\"\xC3\xA9\"");
}

TEST(json_writer, floating_point_numbers_are_their_shortest_exact_text) {
  EXPECT_EQ(json(0.1), "0.1");
  EXPECT_EQ(json(0.1f), "0.1");
  EXPECT_EQ(json(-2.5), "-2.5");
  EXPECT_EQ(json(100.0), "100");
  EXPECT_EQ(json(1e300), "1e+300");
  EXPECT_EQ(json(std::numeric_limits<float>::max()), "3.4028235e+38");
}

TEST(json_writer, negative_zero_and_huge_integral_values_keep_a_fraction_or_exponent) {
  // "-0" and a 20-digit integer would read back as the integer 0 and as no
  // 64-bit number at all.
  EXPECT_EQ(json(-0.0), "-0.0");
  EXPECT_EQ(json(-0.0f), "-0.0");
  EXPECT_EQ(json(0.0), "0");
  EXPECT_EQ(json(18446744073709551616.0), "1.8446744073709552e+19");
  EXPECT_EQ(json(123456789012345680.0), "1.2345678901234568e+17");
}

TEST(json_writer, nan_and_the_infinities_are_strings) {
  EXPECT_EQ(json(std::numeric_limits<double>::quiet_NaN()), R"("NaN")");
  EXPECT_EQ(json(std::numeric_limits<float>::infinity()), R"("Infinity")");
  EXPECT_EQ(json(-std::numeric_limits<long double>::infinity()), R"("-Infinity")");
}

TEST(json_writer, long_doubles_are_numbers_when_a_double_holds_them_else_exact_text) {
  EXPECT_EQ(json(2.5L), "2.5");
  EXPECT_EQ(json(0.1L), R"("0.1")");
  EXPECT_EQ(json(1.0L / 3), R"("0.33333333333333333334")");
  EXPECT_EQ(json(std::numeric_limits<long double>::max()), R"("1.189731495357231765e+4932")");
}

TEST(json_writer, strings_are_escaped_json_strings) {
  EXPECT_EQ(json("plain"s), R"("plain")");
  EXPECT_EQ(json("q\"b\\s/"s), R"("q\"b\\s/")");
  EXPECT_EQ(json("\b\f\n\r\t"s), R"("\b\f\n\r\t")");
  EXPECT_EQ(json(std::string{"a\0b", 3}), R"("a\u0000b")");
  EXPECT_EQ(json("\x7f"s), "\"\x7f\"");
  EXPECT_EQ(json("h\u00e9llo \U0001F600"s), "\"h\u00e9llo \U0001F600\"");
}

TEST(json_writer, wide_strings_are_written_as_utf8) {
  EXPECT_EQ(json(u"h\u00e9llo \U0001F600"s), "\"h\u00e9llo \U0001F600\"");
  EXPECT_EQ(json(U"h\u00e9llo \U0001F600"s), "\"h\u00e9llo \U0001F600\"");
}

TEST(json_writer, text_that_is_not_unicode_is_an_error_naming_the_field) {
  auto err = json_error(with_string{"ok \xC3"});
  EXPECT_EQ(err, errc::invalid_argument);
  EXPECT_EQ(err.context().rfind("anonymous.text: ", 0), 0u) << err.context();
  EXPECT_NE(err.context().find("not valid UTF-8"), std::string::npos) << err.context();
  EXPECT_EQ(json_error("\xED\xA0\x80"s), errc::invalid_argument); // a surrogate
  EXPECT_EQ(json_error("\xC0\xAF"s), errc::invalid_argument);     // overlong
  EXPECT_EQ(json_error(std::u16string{u'a', char16_t{0xD800}}), errc::invalid_argument);
  EXPECT_EQ(json_error(std::u16string{char16_t{0xDC00}, u'a'}), errc::invalid_argument);
  EXPECT_EQ(json_error(std::u32string{char32_t{0x110000}}), errc::invalid_argument);
  EXPECT_EQ(json_error(std::u32string{char32_t{0xDFFF}}), errc::invalid_argument);
}

TEST(json_writer, byte_vectors_are_padded_base64) {
  auto b = [](std::string_view str) {
    std::vector<std::byte> result;
    for (char c : str)
      result.push_back(static_cast<std::byte>(c));
    return result;
  };
  EXPECT_EQ(json(b("")), R"("")");
  EXPECT_EQ(json(b("f")), R"("Zg==")");
  EXPECT_EQ(json(b("fo")), R"("Zm8=")");
  EXPECT_EQ(json(b("foo")), R"("Zm9v")");
  EXPECT_EQ(json(b("foob")), R"("Zm9vYg==")");
  EXPECT_EQ(json(std::vector<std::byte>{std::byte{0xFB}, std::byte{0xFF}}), R"("+/8=")");
}

TEST(json_writer, enums_are_integers_unless_they_opt_in_to_names) {
  EXPECT_EQ(json(color::green), R"("green")");
  EXPECT_EQ(json(level::low), "-1");
}

// -- durations and time points ------------------------------------------------------------

TEST(json_writer, durations_are_their_count_and_the_unit_of_their_period) {
  EXPECT_EQ(json(std::chrono::milliseconds{1500}), R"("1500ms")");
  EXPECT_EQ(json(troupe::timespan{-5}), R"("-5ns")");
  EXPECT_EQ(json(std::chrono::microseconds{0}), R"("0us")");
  EXPECT_EQ(json(std::chrono::seconds{3}), R"("3s")");
  EXPECT_EQ(json(std::chrono::minutes{2}), R"("2min")");
  EXPECT_EQ(json(std::chrono::hours{1}), R"("1h")");
  EXPECT_EQ(json(std::chrono::duration<uint64_t, std::milli>{18446744073709551615u}),
            R"("18446744073709551615ms")");
}

TEST(json_writer, durations_without_a_unit_or_with_a_fractional_count_are_numbers) {
  EXPECT_EQ(json(std::chrono::duration<double>{0.25}), "0.25");
  EXPECT_EQ(json(std::chrono::days{2}), "2");
}

TEST(json_writer, system_clock_time_points_are_iso8601_in_utc) {
  using namespace std::chrono;
  EXPECT_EQ(json(system_clock::time_point{}), R"("1970-01-01T00:00:00Z")");
  EXPECT_EQ(json(sys_time<nanoseconds>{seconds{1700000000} + nanoseconds{250000000}}),
            R"("2023-11-14T22:13:20.25Z")");
  EXPECT_EQ(json(sys_time<nanoseconds>{nanoseconds{-1}}), R"("1969-12-31T23:59:59.999999999Z")");
  EXPECT_EQ(json(sys_time<milliseconds>{milliseconds{1}}), R"("1970-01-01T00:00:00.001Z")");
  EXPECT_EQ(json(sys_seconds{sys_days{year{2000} / February / 29}}), R"("2000-02-29T00:00:00Z")");
  EXPECT_EQ(json(sys_time<nanoseconds>::min()), R"("1677-09-21T00:12:43.145224192Z")");
}

TEST(json_writer, time_points_outside_four_digit_years_are_an_error_naming_the_field) {
  using namespace std::chrono;
  with_timestamp x{sys_seconds{sys_days{year{9999} / December / 31}} + days{1}};
  auto err = json_error(x);
  EXPECT_EQ(err, errc::invalid_argument);
  EXPECT_EQ(err.context().rfind("anonymous.at: ", 0), 0u) << err.context();
  EXPECT_EQ(json(with_timestamp{sys_seconds{sys_days{year{0} / January / 1}}}),
            R"({"at":"0000-01-01T00:00:00Z"})");
}

TEST(json_writer, other_clocks_write_the_duration_since_their_epoch) {
  std::chrono::steady_clock::time_point t{std::chrono::nanoseconds{42}};
  EXPECT_EQ(json(t), R"("42ns")");
}

// -- containers -----------------------------------------------------------------------------

TEST(json_writer, sequences_sets_tuples_and_arrays_are_arrays) {
  EXPECT_EQ(json(std::vector<int32_t>{}), "[]");
  EXPECT_EQ(json(std::vector<int32_t>{1, -2}), "[1,-2]");
  EXPECT_EQ(json(std::set<std::string>{"b", "a"}), R"(["a","b"])");
  EXPECT_EQ(json(std::tuple<int32_t, std::string, bool>{1, "x", true}), R"([1,"x",true])");
  EXPECT_EQ(json(std::pair<char, double>{'p', 0.5}), R"(["p",0.5])");
  EXPECT_EQ(json(std::array<int16_t, 2>{3, 4}), "[3,4]");
  EXPECT_EQ(json(std::vector<std::vector<foo>>{{}, {foo{1, 2}}}), R"([[],[{"a":1,"b":2}]])");
}

TEST(json_writer, optionals_outside_fields_are_null_or_their_value) {
  EXPECT_EQ(json(std::vector<std::optional<int32_t>>{1, std::nullopt, 3}), "[1,null,3]");
  EXPECT_EQ(json(std::optional<std::string>{}), "null");
}

TEST(json_writer, maps_with_string_keys_are_objects) {
  EXPECT_EQ(json(std::map<std::string, int32_t>{{"one", 1}, {"two", 2}}), R"({"one":1,"two":2})");
  EXPECT_EQ(json(std::map<color, bool>{{color::red, true}}), R"({"red":true})");
  EXPECT_EQ(json(std::map<std::string, std::map<std::string, int32_t>>{{"a", {{"b", 1}}}}),
            R"({"a":{"b":1}})");
}

TEST(json_writer, maps_with_other_keys_are_arrays_of_key_value_pairs) {
  EXPECT_EQ(json(std::map<int32_t, std::string>{{1, "a"}, {2, "b"}}), R"([[1,"a"],[2,"b"]])");
  EXPECT_EQ(json(std::multimap<int32_t, int32_t>{{1, 10}, {1, 11}}), "[[1,10],[1,11]]");
  EXPECT_EQ(json(std::map<foo, std::string>{{foo{1, 2}, "x"}}), R"([[{"a":1,"b":2},"x"]])");
  EXPECT_EQ(json(std::vector<std::map<int32_t, int32_t>>{{{1, 2}}, {{3, 4}}}),
            "[[[1,2]],[[3,4]]]");
}

TEST(json_writer, an_empty_map_is_an_empty_object) {
  EXPECT_EQ(json(std::map<int32_t, int32_t>{}), "{}");
  EXPECT_EQ(json(std::map<std::string, int32_t>{}), "{}");
}

TEST(json_writer, variants_name_the_type_of_their_alternative) {
  using choice = std::variant<int32_t, std::string, foo>;
  EXPECT_EQ(json(choice{7}), R"({"@type":"int32_t","value":7})");
  EXPECT_EQ(json(choice{"x"}), R"({"@type":"std::string","value":"x"})");
  EXPECT_EQ(json(choice{foo{1, 2}}),
            R"({"@type":"serialization_types::foo","value":{"a":1,"b":2}})");
}

TEST(json_writer, variant_alternatives_without_a_type_id_are_named_by_their_index) {
  using maybe = std::variant<std::monostate, double>;
  EXPECT_EQ(json(maybe{}), R"({"@type":0,"value":{}})");
  EXPECT_EQ(json(maybe{2.5}), R"({"@type":"double","value":2.5})");
}

// -- messages -------------------------------------------------------------------------------

TEST(json_writer, a_message_is_an_array_of_typed_elements) {
  EXPECT_EQ(json(troupe::message{}), "[]");
  EXPECT_EQ(json(troupe::make_message(int32_t{7}, "seven", foo{1, 2})),
            R"([{"@type":"int32_t","value":7},{"@type":"std::string","value":"seven"},)"
            R"({"@type":"serialization_types::foo","value":{"a":1,"b":2}}])");
  EXPECT_EQ(json(troupe::make_message(troupe::timespan{5}, color::blue)),
            R"([{"@type":"troupe::timespan","value":"5ns"},)"
            R"({"@type":"serialization_types::color","value":"blue"}])");
}

TEST(json_writer, a_message_inside_an_object_is_a_field_like_any_other) {
  everything x;
  x.msg = troupe::make_message(true);
  auto text = json(x);
  EXPECT_NE(text.find(R"("msg":[{"@type":"bool","value":true}])"), std::string::npos) << text;
}

TEST(json_writer, a_message_with_an_uninspectable_element_is_an_error_naming_its_type) {
  auto err = json_error(troupe::make_message(int32_t{1}, opaque{}));
  EXPECT_EQ(err, errc::unsupported_type);
  EXPECT_NE(err.context().find("serialization_types::opaque"), std::string::npos)
    << err.context();
}

// -- entry points ---------------------------------------------------------------------------

TEST(json_writer, it_appends_to_the_string_it_is_given) {
  std::string out = "prefix:";
  EXPECT_FALSE(to_json(foo{1, 2}, out));
  EXPECT_EQ(out, R"(prefix:{"a":1,"b":2})");
}

TEST(json_writer, a_failed_write_leaves_the_string_as_it_was) {
  std::string out = "prefix:";
  EXPECT_EQ(to_json(with_string{"\xFF"}, out), errc::invalid_argument);
  EXPECT_EQ(out, "prefix:");
}

TEST(json_writer, every_type_of_the_inspect_api_writes_in_one_object) {
  auto text = json(make_everything());
  EXPECT_EQ(text.front(), '{');
  EXPECT_EQ(text.back(), '}');
  for (auto part : {R"("f80":"0.33333333333333333334")", R"("bytes":"AP8=")",
                    R"("map":{"one":1,"two":2})", R"("multimap":[[1,10],[1,11],[2,20]])",
                    R"("choice":{"@type":"serialization_types::foo","value":{"a":1,"b":2}})",
                    R"("timeout":"1500ms")", R"("seconds":0.25)",
                    R"("when":"2023-11-14T22:13:20Z")", R"("hue":"blue")", R"("grade":-1)",
                    R"("point":{"x":-5,"y":5})", R"("wide":[119,105,100,101])"})
    EXPECT_NE(text.find(part), std::string::npos) << "missing " << part << " in " << text;
}
