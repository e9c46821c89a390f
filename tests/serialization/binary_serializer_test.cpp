#include "troupe/binary_serializer.hpp"

#include "../support/serialization_types.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <variant>
#include <vector>

using namespace serialization_types;
using troupe::byte_buffer;
using troupe::errc;
using troupe::to_binary;

namespace {

byte_buffer bytes(std::initializer_list<int> xs) {
  byte_buffer result;
  for (auto x : xs)
    result.push_back(static_cast<std::byte>(x));
  return result;
}

template <class T>
byte_buffer encode(const T& x) {
  auto result = to_binary(x);
  EXPECT_TRUE(result) << to_string(result.error());
  return result ? *result : byte_buffer{};
}

byte_buffer concat(std::initializer_list<byte_buffer> parts) {
  byte_buffer result;
  for (auto& part : parts)
    result.insert(result.end(), part.begin(), part.end());
  return result;
}

} // namespace

// -- primitives --------------------------------------------------------------------------

TEST(binary_serializer, integers_are_little_endian_and_fixed_width) {
  EXPECT_EQ(encode(int32_t{0x01020304}), bytes({4, 3, 2, 1}));
  EXPECT_EQ(encode(int8_t{-1}), bytes({0xFF}));
  EXPECT_EQ(encode(int16_t{-2}), bytes({0xFE, 0xFF}));
  EXPECT_EQ(encode(uint64_t{0x0102030405060708}), bytes({8, 7, 6, 5, 4, 3, 2, 1}));
  EXPECT_EQ(encode(char{'A'}), bytes({0x41}));
  EXPECT_EQ(encode(char32_t{0x1F600}), bytes({0x00, 0xF6, 0x01, 0x00}));
}

TEST(binary_serializer, bools_are_one_byte_zero_or_one) {
  EXPECT_EQ(encode(true), bytes({1}));
  EXPECT_EQ(encode(false), bytes({0}));
}

TEST(binary_serializer, floats_are_their_ieee_bits) {
  EXPECT_EQ(encode(1.0f), bytes({0x00, 0x00, 0x80, 0x3F}));
  EXPECT_EQ(encode(-2.0), bytes({0, 0, 0, 0, 0, 0, 0, 0xC0}));
}

TEST(binary_serializer, long_doubles_are_exact_hexadecimal_text) {
  auto encoded = encode(1.5L);
  ASSERT_FALSE(encoded.empty());
  std::string text(reinterpret_cast<const char*>(encoded.data() + 1), encoded.size() - 1);
  EXPECT_EQ(static_cast<size_t>(encoded[0]), text.size());
  EXPECT_EQ(std::strtold(text.c_str(), nullptr), 1.5L);
}

TEST(binary_serializer, lengths_are_leb128_varints) {
  EXPECT_EQ(encode(std::string{}), bytes({0}));
  EXPECT_EQ(encode(std::string(127, 'x')).size(), 128u);
  EXPECT_EQ(encode(std::string(127, 'x'))[0], std::byte{127});
  auto long_str = encode(std::string(300, 'x'));
  ASSERT_EQ(long_str.size(), 302u);
  EXPECT_EQ(long_str[0], std::byte{0xAC});
  EXPECT_EQ(long_str[1], std::byte{0x02});
}

TEST(binary_serializer, the_largest_varint_takes_ten_bytes) {
  byte_buffer buf;
  troupe::binary_serializer sink{buf};
  sink.write_varint(std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(buf, bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01}));
}

TEST(binary_serializer, wide_strings_are_a_count_of_little_endian_code_units) {
  EXPECT_EQ(encode(std::u16string{u"a\u00e9"}), bytes({2, 0x61, 0, 0xE9, 0}));
  EXPECT_EQ(encode(std::vector<std::byte>{std::byte{9}, std::byte{8}}), bytes({2, 9, 8}));
}

TEST(binary_serializer, durations_and_time_points_are_their_tick_counts) {
  EXPECT_EQ(encode(std::chrono::milliseconds{258}), bytes({2, 1, 0, 0, 0, 0, 0, 0}));
  using tp = std::chrono::time_point<std::chrono::system_clock, std::chrono::seconds>;
  EXPECT_EQ(encode(tp{std::chrono::seconds{1}}), bytes({1, 0, 0, 0, 0, 0, 0, 0}));
}

// -- composites ------------------------------------------------------------------------

TEST(binary_serializer, objects_are_their_fields_without_names_or_padding) {
  EXPECT_EQ(encode(foo{1, 2}), bytes({1, 0, 0, 0, 2, 0, 0, 0}));
  EXPECT_EQ(encode(bar{foo{1, 2}, "hi"}), bytes({1, 0, 0, 0, 2, 0, 0, 0, 2, 'h', 'i'}));
}

TEST(binary_serializer, optional_fields_start_with_a_presence_byte) {
  EXPECT_EQ(encode(with_optionals{std::nullopt, 5}), bytes({0, 1, 5, 0, 0, 0}));
  EXPECT_EQ(encode(with_fallback{1, "n"}), bytes({1, 1, 0, 0, 0, 1, 1, 'n'}))
    << "fields with a fallback are always written, with a presence byte";
}

TEST(binary_serializer, sequences_and_maps_start_with_their_count) {
  EXPECT_EQ(encode(std::vector<int16_t>{1, 2}), bytes({2, 1, 0, 2, 0}));
  EXPECT_EQ(encode(std::map<uint8_t, bool>{{1, true}, {2, false}}), bytes({2, 1, 1, 2, 0}));
  EXPECT_EQ(encode(std::vector<bool>{true, false, true}), bytes({3, 1, 0, 1}));
}

TEST(binary_serializer, tuples_and_arrays_have_no_count) {
  EXPECT_EQ(encode(std::array<uint8_t, 3>{1, 2, 3}), bytes({1, 2, 3}));
  EXPECT_EQ(encode(std::tuple<uint8_t, bool>{7, true}), bytes({7, 1}));
}

TEST(binary_serializer, variants_start_with_the_index_of_their_alternative) {
  std::variant<uint8_t, std::string> x = std::string{"v"};
  EXPECT_EQ(encode(x), bytes({1, 1, 'v'}));
  EXPECT_EQ(encode(std::optional<uint8_t>{4}), bytes({1, 4}));
  EXPECT_EQ(encode(std::optional<uint8_t>{}), bytes({0}));
}

TEST(binary_serializer, empty_classes_take_no_bytes) {
  EXPECT_EQ(encode(beep_atom_v), byte_buffer{});
  EXPECT_EQ(encode(std::vector<troupe::unit_t>(3)), bytes({3}));
}

// -- messages -----------------------------------------------------------------------------

TEST(binary_serializer, a_message_is_its_type_ids_then_its_elements) {
  auto id = troupe::type_id_v<int32_t>;
  ASSERT_LT(id, 128);
  EXPECT_EQ(encode(troupe::make_message(int32_t{1}, int32_t{2})),
            bytes({2, id, 0, id, 0, 1, 0, 0, 0, 2, 0, 0, 0}));
  EXPECT_EQ(encode(troupe::message{}), bytes({0}));
}

TEST(binary_serializer, message_elements_use_their_inspect_overloads) {
  auto id = troupe::type_id_v<bar>;
  EXPECT_EQ(encode(troupe::make_message(bar{foo{1, 2}, "x"})),
            concat({bytes({1, id & 0xFF, id >> 8}), encode(bar{foo{1, 2}, "x"})}));
}

TEST(binary_serializer, a_message_with_an_uninspectable_element_is_an_error_naming_its_type) {
  byte_buffer buf = bytes({0xAA});
  auto err = to_binary(troupe::make_message(int32_t{1}, opaque{}), buf);
  EXPECT_EQ(err, errc::unsupported_type);
  EXPECT_EQ(err.context(), "message element 1 has type serialization_types::opaque, which has "
                           "no inspect() and can't be serialized");
  EXPECT_EQ(buf, bytes({0xAA})) << "the buffer keeps what it had before";
  auto result = to_binary(troupe::make_message(opaque{}));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error(), errc::unsupported_type);
}

// -- buffers ------------------------------------------------------------------------

TEST(binary_serializer, it_appends_to_the_buffer_it_is_given) {
  byte_buffer buf = bytes({0xEE});
  EXPECT_FALSE(to_binary(uint8_t{1}, buf));
  EXPECT_FALSE(to_binary(uint8_t{2}, buf));
  EXPECT_EQ(buf, bytes({0xEE, 1, 2}));
}

TEST(binary_serializer, a_cleared_buffer_is_reused_without_reallocation) {
  byte_buffer buf;
  ASSERT_FALSE(to_binary(bar{foo{1, 2}, "some text"}, buf));
  auto* data = buf.data();
  for (int i = 0; i < 10; ++i) {
    buf.clear();
    ASSERT_FALSE(to_binary(bar{foo{i, i}, "some text"}, buf));
  }
  EXPECT_EQ(buf.data(), data);
}

TEST(binary_serializer, long_output_and_long_strings_keep_every_byte_in_order) {
  // Far more than the serializer stages at once, and strings on both sides
  // of that size, between small values.
  std::vector<std::string> texts;
  for (size_t n : {0, 1, 127, 128, 129, 300, 5000})
    texts.emplace_back(n, static_cast<char>('a' + n % 26));
  std::vector<uint32_t> numbers;
  for (uint32_t i = 0; i < 1000; ++i)
    numbers.push_back(i * 2654435761u);
  byte_buffer expected = bytes({7});
  for (auto& text : texts) {
    auto n = text.size();
    for (; n >= 0x80; n >>= 7)
      expected.push_back(static_cast<std::byte>((n & 0x7F) | 0x80));
    expected.push_back(static_cast<std::byte>(n));
    for (auto c : text)
      expected.push_back(static_cast<std::byte>(c));
  }
  expected.insert(expected.end(), {std::byte{0xE8}, std::byte{0x07}}); // 1000
  for (auto x : numbers)
    for (int shift = 0; shift < 32; shift += 8)
      expected.push_back(static_cast<std::byte>((x >> shift) & 0xFF));
  byte_buffer buf;
  troupe::binary_serializer sink{buf};
  ASSERT_TRUE(sink.apply(texts));
  EXPECT_EQ(sink.buffer().size(), expected.size() - 2 - 4000);
  ASSERT_TRUE(sink.apply(numbers));
  EXPECT_EQ(sink.buffer(), expected);
}

TEST(binary_serializer, short_strings_of_every_length_keep_every_byte) {
  // Strings up to 16 bytes take a copy of two overlapping words; every byte
  // differs, so a misplaced word shows.
  for (size_t n = 0; n <= 20; ++n) {
    std::string text;
    for (size_t i = 0; i < n; ++i)
      text.push_back(static_cast<char>('A' + i));
    byte_buffer expected = bytes({static_cast<int>(n)});
    for (auto c : text)
      expected.push_back(static_cast<std::byte>(c));
    byte_buffer buf;
    troupe::binary_serializer sink{buf};
    ASSERT_TRUE(sink.apply(text));
    EXPECT_EQ(buf, expected) << "length " << n;
  }
}

TEST(binary_serializer, an_inspector_keeps_the_first_error) {
  byte_buffer buf;
  troupe::binary_serializer sink{buf};
  sink.set_error(troupe::make_error(errc::invalid_argument, "first"));
  sink.set_error(troupe::make_error(errc::malformed_input, "second"));
  EXPECT_EQ(sink.get_error(), errc::invalid_argument);
  EXPECT_EQ(sink.get_error().context(), "first");
}
