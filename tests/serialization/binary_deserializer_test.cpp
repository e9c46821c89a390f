#include "troupe/binary_deserializer.hpp"

#include "../support/allocations.hpp"
#include "../support/serialization_generators.hpp"
#include "../support/serialization_types.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "troupe/message_builder.hpp"
#include "troupe/system_messages.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

using namespace serialization_types;
using troupe::byte_buffer;
using troupe::errc;
using troupe::from_binary;
using troupe::to_binary;

namespace deserializer_test {

// Counts live instances, so that tests see elements of a message that
// failed to load being destroyed.
struct tracked {
  static inline int live = 0;
  tracked() {
    ++live;
  }
  tracked(const tracked& other) : value(other.value) {
    ++live;
  }
  ~tracked() {
    --live;
  }
  tracked& operator=(const tracked&) = default;
  int32_t value = 0;
};

template <class Inspector>
bool inspect(Inspector& f, tracked& x) {
  return f.object(x).fields(f.field("value", x.value));
}

// Big enough to bypass the thread cache, so that leaked message data shows.
struct big {
  std::array<uint8_t, troupe_test::large_block + 1> bytes{};
};

template <class Inspector>
bool inspect(Inspector& f, big& x) {
  return f.object(x).fields(f.field("bytes", x.bytes));
}

// A recursive type: each level is one sequence.
struct tree {
  std::vector<tree> kids;
  friend bool operator==(const tree&, const tree&) = default;
};

template <class Inspector>
bool inspect(Inspector& f, tree& x) {
  return f.object(x).fields(f.field("kids", x.kids));
}

// A message inside a message: each level is one message.
struct envelope {
  troupe::message inner;
};

template <class Inspector>
bool inspect(Inspector& f, envelope& x) {
  return f.object(x).fields(f.field("inner", x.inner));
}

} // namespace deserializer_test

TROUPE_BEGIN_TYPE_ID_BLOCK(deserializer_test, 2300)
  TROUPE_ADD_TYPE_ID(deserializer_test, (deserializer_test::tracked))
  TROUPE_ADD_TYPE_ID(deserializer_test, (deserializer_test::big))
  TROUPE_ADD_TYPE_ID(deserializer_test, (deserializer_test::envelope))
TROUPE_END_TYPE_ID_BLOCK(deserializer_test)

using deserializer_test::big;
using deserializer_test::envelope;
using deserializer_test::tracked;
using deserializer_test::tree;

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

void append(byte_buffer& buf, std::initializer_list<int> xs) {
  for (auto x : xs)
    buf.push_back(static_cast<std::byte>(x));
}

template <class T>
bool same(const T& x, const T& y) {
  return x == y;
}

bool same(const troupe::message& x, const troupe::message& y) {
  return x.raw() == y.raw();
}

// The error of loading a `T` from `input`, checking that a sentinel value
// stays untouched.
template <class T>
troupe::error load_error(const byte_buffer& input, const T& sentinel = T{}) {
  T x = sentinel;
  auto err = from_binary(input, x);
  EXPECT_TRUE(same(x, sentinel)) << "the caller's object changed although loading failed";
  return err;
}

// Every proper prefix of a valid encoding is an error, and never an overread
// (the sanitizer builds catch those).
template <class T>
void expect_every_prefix_fails(const T& x, const T& sentinel) {
  auto full = encode(x);
  for (size_t n = 0; n < full.size(); ++n) {
    byte_buffer prefix(full.begin(), full.begin() + static_cast<ptrdiff_t>(n));
    auto err = load_error(prefix, sentinel);
    EXPECT_TRUE(err) << "prefix of " << n << " of " << full.size() << " bytes loaded";
  }
  T back = sentinel;
  EXPECT_FALSE(from_binary(full, back));
  EXPECT_TRUE(back == x);
}

class binary_deserializer : public testing::Test {
protected:
  void SetUp() override {
    tracked::live = 0;
    large_before_ = troupe_test::allocations::large_live();
  }

  void TearDown() override {
    EXPECT_EQ(tracked::live, 0) << "elements of a failed message leaked";
    EXPECT_EQ(troupe_test::allocations::large_live(), large_before_) << "message data leaked";
  }

private:
  long large_before_ = 0;
};

} // namespace

// -- round trips -----------------------------------------------------------------------

TEST_F(binary_deserializer, a_message_round_trips_with_its_types_and_values) {
  auto msg = troupe::make_message(int32_t{1}, std::string{"two"}, bar{foo{3, 4}, "five"},
                                  beep_atom_v, std::vector<double>{0.5});
  auto back = from_binary<troupe::message>(encode(msg));
  ASSERT_TRUE(back) << to_string(back.error());
  ASSERT_TRUE((back->match_elements<int32_t, std::string, bar, beep_atom, std::vector<double>>()));
  EXPECT_EQ(back->get_as<int32_t>(0), 1);
  EXPECT_EQ(back->get_as<std::string>(1), "two");
  EXPECT_EQ(back->get_as<bar>(2), (bar{foo{3, 4}, "five"}));
  EXPECT_EQ(back->get_as<std::vector<double>>(4), std::vector<double>{0.5});
}

TEST_F(binary_deserializer, a_message_of_many_elements_round_trips) {
  troupe::message_builder mb;
  for (int32_t i = 0; i < 40; ++i)
    mb.append(i);
  auto msg = mb.move_to_message();
  auto back = from_binary<troupe::message>(encode(msg));
  ASSERT_TRUE(back) << to_string(back.error());
  ASSERT_EQ(back->size(), 40u);
  for (int32_t i = 0; i < 40; ++i)
    EXPECT_EQ(back->get_as<int32_t>(static_cast<size_t>(i)), i);
}

TEST_F(binary_deserializer, an_empty_message_round_trips) {
  auto back = from_binary<troupe::message>(encode(troupe::message{}));
  ASSERT_TRUE(back);
  EXPECT_TRUE(back->empty());
}

TEST_F(binary_deserializer, a_message_inside_an_object_round_trips) {
  auto x = make_everything();
  auto back = from_binary<everything>(encode(x));
  ASSERT_TRUE(back) << to_string(back.error());
  EXPECT_EQ(back->msg.get_as<bar>(2), (bar{foo{1, 2}, "b"}));
}

// -- truncation ---------------------------------------------------------------------------

TEST_F(binary_deserializer, every_truncation_of_an_object_is_an_error) {
  expect_every_prefix_fails(make_everything(), everything{});
  expect_every_prefix_fails(bar{foo{1, 2}, "three"}, bar{foo{9, 9}, "sentinel"});
}

TEST_F(binary_deserializer, every_truncation_of_a_message_is_an_error) {
  auto msg = troupe::make_message(tracked{}, int32_t{1}, std::string{"two"}, tracked{});
  auto full = encode(msg);
  for (size_t n = 0; n < full.size(); ++n) {
    byte_buffer prefix(full.begin(), full.begin() + static_cast<ptrdiff_t>(n));
    auto result = from_binary<troupe::message>(prefix);
    EXPECT_FALSE(result) << "prefix of " << n << " bytes loaded";
  }
}

TEST_F(binary_deserializer, a_truncated_buffer_is_an_error_naming_the_field) {
  auto full = encode(bar{foo{1, 2}, "hello"});
  full.resize(full.size() - 1);
  auto err = load_error<bar>(full);
  EXPECT_EQ(err, errc::truncated_input);
  EXPECT_EQ(err.context(), "serialization_types::bar.b: length 5 exceeds the 4 bytes left");
  full.resize(6);
  err = load_error<bar>(full);
  EXPECT_EQ(err, errc::truncated_input);
  EXPECT_EQ(err.context(), "serialization_types::bar.a.b: needs 4 bytes but 2 are left");
}

// -- lengths and counts -------------------------------------------------------------------

TEST_F(binary_deserializer, an_oversized_string_length_is_an_error_naming_the_field) {
  auto buf = encode(foo{1, 2});
  // 4000000000 as a varint, then 12 bytes.
  append(buf, {0x80, 0xD0, 0xAC, 0xF3, 0x0E});
  append(buf, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  auto err = load_error<bar>(buf);
  EXPECT_EQ(err, errc::truncated_input);
  EXPECT_EQ(err.context(), "serialization_types::bar.b: length 4000000000 exceeds the 12 bytes left");
}

TEST_F(binary_deserializer, a_count_is_checked_against_the_minimum_size_of_its_elements) {
  auto buf = bytes({3, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0});
  auto err = load_error<std::vector<int64_t>>(buf);
  EXPECT_EQ(err, errc::truncated_input);
  EXPECT_EQ(err.context(), "length 3 of elements of at least 8 bytes exceeds the 16 bytes left");
}

TEST_F(binary_deserializer, a_huge_count_allocates_no_more_than_the_input_justifies) {
  // Claims 2^62 elements of 8 bytes with 64 bytes of input.
  byte_buffer buf = bytes({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40});
  buf.resize(buf.size() + 64);
  troupe_test::allocations::reset_largest();
  auto err = load_error<std::vector<int64_t>>(buf);
  EXPECT_EQ(err, errc::truncated_input);
  EXPECT_LT(troupe_test::allocations::largest(), 1024u);
  // Strings: 2^32 claimed, 8 bytes there.
  buf = bytes({0x80, 0x80, 0x80, 0x80, 0x10, 1, 2, 3, 4, 5, 6, 7, 8});
  troupe_test::allocations::reset_largest();
  EXPECT_EQ(load_error<std::vector<std::string>>(buf), errc::truncated_input);
  EXPECT_LT(troupe_test::allocations::largest(), 1024u);
}

TEST_F(binary_deserializer, counts_of_empty_elements_are_capped) {
  byte_buffer buf;
  troupe::binary_serializer sink{buf};
  sink.write_varint(troupe::binary_deserializer::max_empty_elements + 1);
  auto err = load_error<std::vector<troupe::unit_t>>(buf);
  EXPECT_EQ(err, errc::malformed_input);
  auto ok = from_binary<std::vector<troupe::unit_t>>(encode(std::vector<troupe::unit_t>(1000)));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->size(), 1000u);
}

TEST_F(binary_deserializer, a_varint_longer_than_64_bits_is_an_error) {
  auto err = load_error<std::string>(
    bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02}));
  EXPECT_EQ(err, errc::malformed_input);
  EXPECT_EQ(err.context(), "varint exceeds 64 bits");
  EXPECT_EQ(load_error<std::string>(bytes({0xFF, 0xFF})), errc::truncated_input);
}

// -- bytes that encode nothing ------------------------------------------------------------

TEST_F(binary_deserializer, a_bool_byte_other_than_zero_or_one_is_an_error) {
  auto err = load_error<std::vector<bool>>(bytes({2, 1, 2}));
  EXPECT_EQ(err, errc::malformed_input);
  EXPECT_EQ(err.context(), "bool byte 2 is neither 0 nor 1");
}

TEST_F(binary_deserializer, an_invalid_presence_byte_is_an_error_naming_the_field) {
  auto err = load_error<with_optionals>(bytes({5}));
  EXPECT_EQ(err, errc::malformed_input);
  EXPECT_EQ(err.context(),
            "serialization_types::with_optionals.label: presence byte 5 is neither 0 nor 1");
}

TEST_F(binary_deserializer, an_invalid_variant_index_is_an_error) {
  using variant = std::variant<int32_t, std::string, foo>;
  auto err = load_error<variant>(bytes({3, 0, 0, 0, 0}));
  EXPECT_EQ(err, errc::malformed_input);
  EXPECT_EQ(err.context(), "variant index 3 is out of range for 3 alternatives");
}

TEST_F(binary_deserializer, an_invalid_enum_value_is_an_error) {
  auto buf = encode(make_everything());
  everything sentinel;
  sentinel.i32 = 99;
  // Find the hue byte: the encoding of a copy that differs only there.
  auto other = make_everything();
  other.hue = color::red;
  auto other_buf = encode(other);
  ASSERT_EQ(buf.size(), other_buf.size());
  size_t pos = 0;
  while (pos < buf.size() && buf[pos] == other_buf[pos])
    ++pos;
  ASSERT_LT(pos, buf.size());
  buf[pos] = std::byte{9};
  auto err = load_error(buf, sentinel);
  EXPECT_EQ(err, errc::malformed_input);
  EXPECT_EQ(err.context(), "serialization_types::everything.hue: no enumerator has the value 9");
}

TEST_F(binary_deserializer, duplicate_keys_are_an_error) {
  using map = std::map<uint8_t, uint8_t>;
  EXPECT_EQ(load_error<map>(bytes({2, 1, 1, 1, 2})), errc::malformed_input);
  EXPECT_EQ(load_error<std::set<uint8_t>>(bytes({2, 1, 1})), errc::malformed_input);
  auto multi = from_binary<std::multiset<uint8_t>>(bytes({2, 1, 1}));
  ASSERT_TRUE(multi);
  EXPECT_EQ(multi->count(1), 2u);
}

TEST_F(binary_deserializer, long_double_text_that_is_no_number_is_an_error) {
  EXPECT_EQ(load_error<long double>(bytes({3, 'a', 'b', 'c'})), errc::malformed_input);
  EXPECT_EQ(load_error<long double>(bytes({0})), errc::malformed_input);
  EXPECT_EQ(load_error<long double>(bytes({2, '1', 0})), errc::malformed_input);
}

TEST_F(binary_deserializer, trailing_bytes_are_an_error) {
  auto buf = encode(foo{1, 2});
  append(buf, {0, 0});
  auto err = load_error<foo>(buf);
  EXPECT_EQ(err, errc::malformed_input);
  EXPECT_EQ(err.context(), "2 bytes left after the value");
}

TEST_F(binary_deserializer, the_deserializer_itself_may_stop_before_the_end) {
  auto buf = encode(foo{1, 2});
  append(buf, {7});
  troupe::binary_deserializer source{buf};
  foo x;
  ASSERT_TRUE(source.apply(x));
  EXPECT_EQ(x, (foo{1, 2}));
  EXPECT_EQ(source.remaining(), 1u);
}

// -- errors -------------------------------------------------------------------------------

TEST_F(binary_deserializer, errors_round_trip_with_code_category_and_context) {
  for (auto err : {troupe::error{}, troupe::make_error(errc::actor_down, "gone"),
                   troupe::make_error(troupe::exit_reason::kill),
                   troupe::make_error(errc::none, "context only")}) {
    // expected<error> would be ambiguous: errors load through the other form.
    troupe::error back = troupe::make_error(errc::runtime_error, "sentinel");
    auto failure = from_binary(encode(err), back);
    ASSERT_FALSE(failure) << to_string(failure);
    EXPECT_EQ(back, err);
    EXPECT_EQ(back.context(), err.context());
    EXPECT_EQ(to_string(back), to_string(err)) << "a loaded error names its code";
  }
}

TEST_F(binary_deserializer, a_message_carrying_an_error_round_trips) {
  auto msg = troupe::make_message(troupe::make_error(errc::request_timeout, "after 1s"),
                                  int32_t{7});
  auto back = from_binary<troupe::message>(encode(msg));
  ASSERT_TRUE(back) << to_string(back.error());
  ASSERT_TRUE((back->match_elements<troupe::error, int32_t>()));
  EXPECT_EQ(to_string(back->get_as<troupe::error>(0)),
            "troupe::errc::request_timeout: after 1s");
}

TEST_F(binary_deserializer, an_error_whose_category_is_no_error_code_enum_is_an_error) {
  // Code 4, an empty context, "category" 15, which is std::string.
  auto err = load_error<troupe::error>(bytes({4, 0, 15, 0}));
  EXPECT_EQ(err, errc::invalid_field);
  EXPECT_EQ(err.context(), "troupe::error.category: type ID 15 names no error code enum");
  EXPECT_EQ(load_error<troupe::error>(bytes({4, 0, 0x88, 0x13})), errc::invalid_field)
    << "an unknown type ID";
}

// -- nesting ------------------------------------------------------------------------------

namespace {

// A tree `levels` deep, each node with one kid but the last: one byte each.
byte_buffer tree_bytes(size_t levels) {
  byte_buffer result(levels, std::byte{1});
  result.back() = std::byte{0};
  return result;
}

// A message holding an envelope holding a message, `levels` messages deep.
byte_buffer envelope_bytes(size_t levels) {
  auto id = troupe::type_id_v<envelope>;
  byte_buffer result;
  for (size_t i = 1; i < levels; ++i)
    append(result, {1, id & 0xFF, id >> 8});
  append(result, {0});
  return result;
}

size_t tree_depth(const tree& x) {
  size_t depth = 1;
  for (auto* node = &x; !node->kids.empty(); node = &node->kids.front())
    ++depth;
  return depth;
}

} // namespace

TEST_F(binary_deserializer, values_nested_to_the_limit_load) {
  constexpr auto levels = troupe::binary_deserializer::max_nesting;
  auto back = from_binary<tree>(tree_bytes(levels));
  ASSERT_TRUE(back) << to_string(back.error());
  EXPECT_EQ(tree_depth(*back), levels);
  ASSERT_TRUE(from_binary<troupe::message>(envelope_bytes(levels)));
}

TEST_F(binary_deserializer, values_nested_past_the_limit_are_an_error) {
  constexpr auto levels = troupe::binary_deserializer::max_nesting + 1;
  auto err = load_error<tree>(tree_bytes(levels));
  EXPECT_EQ(err, errc::malformed_input);
  EXPECT_NE(err.context().find("nests deeper than 256 levels"), std::string::npos)
    << err.context();
  EXPECT_EQ(load_error<troupe::message>(envelope_bytes(levels)), errc::malformed_input);
}

TEST_F(binary_deserializer, deeply_nested_input_is_an_error_not_a_stack_overflow) {
  // Both took the process down before the limit: about 1 MB for the tree
  // and 300 KB for messages in messages, far less under ASan.
  EXPECT_EQ(load_error<tree>(tree_bytes(1'000'000)), errc::malformed_input);
  EXPECT_EQ(load_error<troupe::message>(envelope_bytes(100'000)), errc::malformed_input);
}

// -- messages -----------------------------------------------------------------------------

TEST_F(binary_deserializer, an_unknown_type_id_in_a_message_is_an_error) {
  auto err = load_error<troupe::message>(bytes({1, 0x88, 0x13, 0, 0, 0, 0}));
  EXPECT_EQ(err, errc::unsupported_type);
  EXPECT_EQ(err.context(), "message: message element 0: type ID 5000 is unknown");
}

TEST_F(binary_deserializer, a_type_without_inspect_in_a_message_is_an_error_naming_it) {
  auto id = troupe::type_id_v<opaque>;
  auto err = load_error<troupe::message>(bytes({1, id & 0xFF, id >> 8, 0, 0, 0, 0}));
  EXPECT_EQ(err, errc::unsupported_type);
  EXPECT_EQ(err.context(), "message: message element 0: type ID " + std::to_string(id)
                             + " (serialization_types::opaque) has no inspect() and can't be "
                               "deserialized");
}

TEST_F(binary_deserializer, a_type_without_default_constructor_in_a_message_is_an_error) {
  auto id = troupe::type_id_v<no_default>;
  auto err = load_error<troupe::message>(bytes({1, id & 0xFF, id >> 8, 0, 0, 0, 0}));
  EXPECT_EQ(err, errc::unsupported_type);
  EXPECT_NE(err.context().find("has no default constructor"), std::string::npos);
}

TEST_F(binary_deserializer, a_failing_element_names_its_index_and_field) {
  auto msg = troupe::make_message(int32_t{1}, bar{foo{1, 2}, "abc"});
  auto buf = encode(msg);
  buf.pop_back();
  auto err = load_error<troupe::message>(buf);
  EXPECT_EQ(err, errc::truncated_input);
  EXPECT_EQ(err.context(), "message[1].b: length 3 exceeds the 2 bytes left");
}

TEST_F(binary_deserializer, a_message_that_fails_to_load_destroys_the_elements_it_built) {
  auto msg = troupe::make_message(tracked{}, tracked{}, big{}, tracked{});
  auto buf = encode(msg);
  msg = troupe::message{};
  ASSERT_EQ(tracked::live, 0);
  buf.pop_back();
  auto result = from_binary<troupe::message>(buf);
  EXPECT_FALSE(result);
  EXPECT_EQ(tracked::live, 0);
}

TEST_F(binary_deserializer, a_message_loads_through_allocation_failures_without_leaking) {
  auto buf = encode(troupe::make_message(tracked{}, big{}, std::string(100, 'x')));
  auto failures = troupe_test::each_allocation_failing(
    [&] {
      auto result = from_binary<troupe::message>(buf);
      ASSERT_TRUE(result);
    },
    [] { EXPECT_EQ(tracked::live, 0); });
  EXPECT_GT(failures, 0);
}

TEST_F(binary_deserializer, a_failed_load_leaves_the_callers_message_unchanged) {
  auto msg = troupe::make_message(int32_t{42});
  auto* raw = msg.raw();
  auto buf = encode(troupe::make_message(int32_t{1}, int32_t{2}));
  buf.pop_back();
  EXPECT_TRUE(from_binary(buf, msg));
  EXPECT_EQ(msg.raw(), raw);
  EXPECT_EQ(msg.get_as<int32_t>(0), 42);
}

// -- corpus of malformed inputs -----------------------------------------------------------

namespace {

// Each file of tests/serialization/corpus/binary/ is a malformed encoding of
// a troupe::message and the error it must produce.
const std::map<std::string, errc> corpus_errors = {
  {"empty_input.bin", errc::truncated_input},
  {"truncated_type_ids.bin", errc::truncated_input},
  {"truncated_int32.bin", errc::truncated_input},
  {"oversized_string_length.bin", errc::truncated_input},
  {"oversized_vector_length.bin", errc::truncated_input},
  {"oversized_element_count.bin", errc::truncated_input},
  {"varint_overflow.bin", errc::malformed_input},
  {"invalid_bool.bin", errc::malformed_input},
  {"invalid_vector_bool.bin", errc::malformed_input},
  {"invalid_long_double.bin", errc::malformed_input},
  {"trailing_bytes.bin", errc::malformed_input},
  {"unknown_type_id.bin", errc::unsupported_type},
  {"type_without_inspect.bin", errc::unsupported_type},
};

byte_buffer read_file(const std::filesystem::path& path) {
  std::ifstream in{path, std::ios::binary};
  std::vector<char> chars{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  byte_buffer result;
  for (auto c : chars)
    result.push_back(static_cast<std::byte>(c));
  return result;
}

} // namespace

TEST_F(binary_deserializer, the_corpus_relies_on_these_builtin_type_ids) {
  // The corpus files spell these IDs as bytes.
  EXPECT_EQ(troupe::type_id_v<bool>, 0);
  EXPECT_EQ(troupe::type_id_v<int32_t>, 4);
  EXPECT_EQ(troupe::type_id_v<long double>, 14);
  EXPECT_EQ(troupe::type_id_v<std::string>, 15);
  EXPECT_EQ(troupe::type_id_v<std::vector<bool>>, 19);
  EXPECT_EQ(troupe::type_id_v<std::vector<int64_t>>, 21);
  EXPECT_EQ(troupe::type_id_v<troupe::actor>, 110);
}

TEST_F(binary_deserializer, every_corpus_file_is_an_error_of_its_kind) {
  std::filesystem::path dir = TROUPE_BINARY_CORPUS;
  size_t files = 0;
  for (auto& entry : std::filesystem::directory_iterator{dir}) {
    auto name = entry.path().filename().string();
    ++files;
    auto i = corpus_errors.find(name);
    ASSERT_NE(i, corpus_errors.end()) << name << " has no expected error in this test";
    auto result = from_binary<troupe::message>(read_file(entry.path()));
    ASSERT_FALSE(result) << name << " loaded";
    EXPECT_EQ(result.error(), i->second) << name << ": " << to_string(result.error());
  }
  EXPECT_EQ(files, corpus_errors.size());
}

// -- properties ---------------------------------------------------------------------------

namespace {

using random_variant = std::variant<int32_t, std::string, foo, bar, std::vector<std::string>>;

// A message made of random elements of a few types.
troupe::message random_message(const std::vector<random_variant>& xs) {
  troupe::message_builder mb;
  for (auto& x : xs)
    std::visit([&mb](auto& value) { mb.append(value); }, x);
  return mb.move_to_message();
}

template <class T>
bool round_trips(const T& x) {
  auto back = from_binary<T>(encode(x));
  return back && *back == x;
}

} // namespace

RC_GTEST_PROP(binary_deserializer_properties, structs_round_trip, (const std::vector<bar>& xs)) {
  RC_ASSERT(round_trips(xs));
}

RC_GTEST_PROP(binary_deserializer_properties, containers_round_trip,
              (const std::map<std::string, std::vector<int64_t>>& m,
               const std::set<std::u16string>& s, const std::vector<std::vector<bool>>& v)) {
  RC_ASSERT(round_trips(m));
  RC_ASSERT(round_trips(s));
  RC_ASSERT(round_trips(v));
}

RC_GTEST_PROP(binary_deserializer_properties, variants_and_optionals_round_trip,
              (const std::vector<random_variant>& xs, const std::vector<with_optionals>& ys,
               const std::optional<std::vector<std::optional<double>>>& zs)) {
  RC_ASSERT(round_trips(xs));
  RC_ASSERT(round_trips(ys));
  auto back = from_binary<std::optional<std::vector<std::optional<double>>>>(encode(zs));
  RC_ASSERT(back.has_value());
  // NaN != NaN: compare the encodings.
  RC_ASSERT(encode(*back) == encode(zs));
}

RC_GTEST_PROP(binary_deserializer_properties, messages_round_trip,
              (const std::vector<random_variant>& xs)) {
  auto msg = random_message(xs);
  auto buf = encode(msg);
  auto back = from_binary<troupe::message>(buf);
  RC_ASSERT(back.has_value());
  RC_ASSERT(back->types() == msg.types());
  RC_ASSERT(encode(*back) == buf);
}

RC_GTEST_PROP(binary_deserializer_properties, every_truncation_is_an_error,
              (const std::vector<random_variant>& xs)) {
  auto buf = encode(random_message(xs));
  auto n = *rc::gen::inRange<size_t>(0, buf.size());
  byte_buffer prefix(buf.begin(), buf.begin() + static_cast<ptrdiff_t>(n));
  RC_ASSERT(!from_binary<troupe::message>(prefix).has_value());
  auto value_buf = encode(xs);
  auto m = *rc::gen::inRange<size_t>(0, value_buf.size());
  byte_buffer value_prefix(value_buf.begin(), value_buf.begin() + static_cast<ptrdiff_t>(m));
  RC_ASSERT(!from_binary<std::vector<random_variant>>(value_prefix).has_value());
}

RC_GTEST_PROP(binary_deserializer_properties, random_bytes_never_crash,
              (const std::vector<uint8_t>& raw)) {
  byte_buffer buf;
  for (auto c : raw)
    buf.push_back(static_cast<std::byte>(c));
  // Any outcome is fine as long as it is an outcome; the sanitizer builds
  // check that no byte outside the input is read.
  auto msg = from_binary<troupe::message>(buf);
  auto values = from_binary<std::vector<random_variant>>(buf);
  auto object = from_binary<everything>(buf);
  RC_ASSERT(msg.has_value() || !msg.error().empty());
  RC_ASSERT(values.has_value() || !values.error().empty());
  RC_ASSERT(object.has_value() || !object.error().empty());
}

RC_GTEST_PROP(binary_deserializer_properties, mutated_encodings_never_crash,
              (const std::vector<random_variant>& xs)) {
  auto buf = encode(random_message(xs));
  RC_PRE(!buf.empty());
  auto pos = *rc::gen::inRange<size_t>(0, buf.size());
  auto byte = *rc::gen::arbitrary<uint8_t>();
  buf[pos] = static_cast<std::byte>(byte);
  auto msg = from_binary<troupe::message>(buf);
  // Whatever loads re-encodes in at most as many bytes (varints may shrink).
  if (msg)
    RC_ASSERT(encode(*msg).size() <= buf.size());
}
