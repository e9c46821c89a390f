#include "troupe/detail/json_text.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

using troupe::detail::append_base64;
using troupe::detail::decode_base64;
using troupe::detail::format_iso8601;
using troupe::detail::parse_duration_text;
using troupe::detail::parse_iso8601;

namespace {

constexpr intmax_t ns = 1'000'000'000;

std::string iso(int64_t ticks, intmax_t per_second) {
  std::string out;
  EXPECT_TRUE(format_iso8601(ticks, per_second, out)) << ticks;
  return out;
}

__int128 ticks_of(std::string_view str, intmax_t per_second) {
  __int128 ticks = 0;
  auto what = parse_iso8601(str, per_second, ticks);
  EXPECT_EQ(what, "") << str;
  return ticks;
}

__int128 count_of(std::string_view str, intmax_t num, intmax_t den) {
  __int128 count = 0;
  auto what = parse_duration_text(str, num, den, count);
  EXPECT_EQ(what, "") << str;
  return count;
}

std::string base64(std::string_view str) {
  std::string out;
  append_base64(out, std::as_bytes(std::span{str.data(), str.size()}));
  return out;
}

} // namespace

TEST(json_text, iso8601_writes_the_date_and_only_the_digits_a_fraction_needs) {
  EXPECT_EQ(iso(0, 1), "1970-01-01T00:00:00Z");
  EXPECT_EQ(iso(951782400, 1), "2000-02-29T00:00:00Z");
  EXPECT_EQ(iso(1'500'000'000, ns), "1970-01-01T00:00:01.5Z");
  EXPECT_EQ(iso(1'000'001, 1'000'000), "1970-01-01T00:00:01.000001Z");
  EXPECT_EQ(iso(-1, 1000), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(iso(std::numeric_limits<int64_t>::min(), ns), "1677-09-21T00:12:43.145224192Z");
  EXPECT_EQ(iso(std::numeric_limits<int64_t>::max(), ns), "2262-04-11T23:47:16.854775807Z");
}

TEST(json_text, iso8601_covers_the_years_0000_to_9999_only) {
  std::string out;
  EXPECT_TRUE(format_iso8601(-62167219200, 1, out)); // 0000-01-01
  EXPECT_EQ(out, "0000-01-01T00:00:00Z");
  EXPECT_FALSE(format_iso8601(-62167219201, 1, out));
  EXPECT_FALSE(format_iso8601(253402300800, 1, out)); // 10000-01-01
  EXPECT_FALSE(format_iso8601(std::numeric_limits<int64_t>::min(), 1, out));
}

TEST(json_text, iso8601_reads_what_it_writes_and_utc_offsets) {
  for (int64_t t : {int64_t{0}, int64_t{-1}, int64_t{1'700'000'000'123'456'789},
                    std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()})
    EXPECT_EQ(ticks_of(iso(t, ns), ns), t) << t;
  EXPECT_EQ(ticks_of("1970-01-01T01:00:00+01:00", 1), 0);
  EXPECT_EQ(ticks_of("1969-12-31T23:30:00-00:30", 1), 0);
  EXPECT_EQ(ticks_of("1970-01-01T00:00:00.1Z", 1000), 100);
}

TEST(json_text, iso8601_rejects_malformed_and_impossible_times) {
  for (auto str : {"", "1970-01-01", "1970-01-01T00:00Z", "1970-1-01T00:00:00Z",
                   "1970-01-01T00:00:00", "1970-01-01T00:00:00z", "1970-01-01T00:00:00.Z",
                   "1970-01-01T00:00:00Z ", "1970-01-01T00:00:00+1:00", "+1970-01-01T00:00:00Z",
                   "1970-13-01T00:00:00Z", "1970-00-01T00:00:00Z", "2023-02-29T00:00:00Z",
                   "1970-01-01T24:00:00Z", "1970-01-01T00:60:00Z", "1970-01-01T00:00:60Z",
                   "1970-01-01T00:00:00+24:00", "1970-01-01T00:00:00.0000000001Z"}) {
    __int128 ticks = 0;
    EXPECT_NE(parse_iso8601(str, ns, ticks), "") << str;
  }
  __int128 ticks = 0;
  EXPECT_NE(parse_iso8601("1970-01-01T00:00:00.5Z", 1, ticks), "");
}

TEST(json_text, base64_pads_to_groups_of_four) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("M"), "TQ==");
  EXPECT_EQ(base64("Ma"), "TWE=");
  EXPECT_EQ(base64("Man"), "TWFu");
  EXPECT_EQ(base64("\xFB\xEF\xFF"), "++//");
}

TEST(json_text, base64_decodes_only_canonical_text) {
  std::vector<std::byte> out;
  EXPECT_EQ(decode_base64("TWFu", out), "");
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(decode_base64("TQ==", out), "");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], std::byte{'M'});
  EXPECT_EQ(decode_base64("", out), "");
  EXPECT_TRUE(out.empty());
  for (auto str : {"T", "TQ=", "TR==", "TWF=", "T===", "====", "TQ==TQ==", "TW-u", "TW u",
                   "TWFu\n", "=QTQ"})
    EXPECT_NE(decode_base64(str, out), "") << str;
}

TEST(json_text, durations_convert_exactly_between_units) {
  EXPECT_EQ(count_of("10ms", 1, 1000), 10);
  EXPECT_EQ(count_of("10ms", 1, ns), 10'000'000);
  EXPECT_EQ(count_of("1.5s", 1, 1000), 1500);
  EXPECT_EQ(count_of("-2min", 1, 1), -120);
  EXPECT_EQ(count_of("3h", 60, 1), 180);
  EXPECT_EQ(count_of("0.000000001s", 1, ns), 1);
  EXPECT_EQ(count_of("48h", 86400, 1), 2);
  __int128 count = 0;
  EXPECT_NE(parse_duration_text("1ns", 1, 1000, count), "");
  EXPECT_NE(parse_duration_text("1h", 86400, 1, count), "");
  EXPECT_NE(parse_duration_text("0.0000000001s", 1, ns, count), "");
}

TEST(json_text, durations_reject_anything_but_a_number_and_a_unit) {
  __int128 count = 0;
  for (auto str : {"", "ms", "10", "10 ms", "1.ms", ".5ms", "--1ms", "+1ms", "1e3ms", "10MS",
                   "10msx", "1.2.3s", "0x10s"})
    EXPECT_NE(parse_duration_text(str, 1, ns, count), "") << str;
  EXPECT_NE(parse_duration_text(std::string(37, '9') + "ns", 1, ns, count), "");
}
