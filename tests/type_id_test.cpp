#include "troupe/type_id.hpp"

#include "troupe/error.hpp"
#include "troupe/patterns/detail/stage.hpp"
#include "troupe/stream/detail/graph_messages.hpp"
#include "troupe/system_messages.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace type_id_test {

struct widget {
  int id = 0;
};

// Counts every constructor and destructor call so the meta object's
// function pointers can be checked against the type's own members.
struct counted {
  static inline int constructed = 0;
  static inline int destroyed = 0;
  static inline int copied = 0;
  static inline int moved = 0;

  counted() : value(7) {
    ++constructed;
  }
  explicit counted(int x) : value(x) {
    ++constructed;
  }
  counted(const counted& other) : value(other.value) {
    ++constructed;
    ++copied;
  }
  counted(counted&& other) noexcept : value(other.value) {
    other.value = -1;
    ++constructed;
    ++moved;
  }
  ~counted() {
    ++destroyed;
  }

  int value;
};

std::string to_string(const counted& x) {
  return "counted(" + std::to_string(x.value) + ")";
}

enum class color : uint8_t { red, green };

std::string to_string(color x) {
  return x == color::red ? "red" : "green";
}

enum class shade : uint8_t { light = 3, dark = 9 };

// Neither inspect() nor to_string(); not empty either (empty classes print
// through the inspect API, as Name()).
struct opaque {
  int handle = 0;
};

/// Has no default constructor.
struct pinned {
  explicit pinned(int x) : value(x) {}
  int value;
};

} // namespace type_id_test

TROUPE_BEGIN_TYPE_ID_BLOCK(type_id_test, 1000)
  TROUPE_ADD_TYPE_ID(type_id_test, (type_id_test::widget))
  TROUPE_ADD_TYPE_ID(type_id_test, (type_id_test::counted))
  TROUPE_ADD_ATOM(type_id_test, beep_atom)
  TROUPE_ADD_ATOM(type_id_test, boop_atom)
  TROUPE_ADD_TYPE_ID(type_id_test, (type_id_test::color))
  TROUPE_ADD_TYPE_ID(type_id_test, (type_id_test::shade))
  TROUPE_ADD_TYPE_ID(type_id_test, (type_id_test::opaque))
  TROUPE_ADD_TYPE_ID(type_id_test, (std::vector<type_id_test::widget>))
  TROUPE_ADD_TYPE_ID(type_id_test, (type_id_test::pinned))
TROUPE_END_TYPE_ID_BLOCK(type_id_test)

TROUPE_BEGIN_TYPE_ID_BLOCK(type_id_test_empty, 1040)
TROUPE_END_TYPE_ID_BLOCK(type_id_test_empty)

namespace {

using troupe::type_id_t;
using troupe::type_id_v;
using troupe::detail::global_meta_object;
using namespace type_id_test;

// Every ID Troupe assigns itself (the builtin and core_errors blocks).
std::vector<type_id_t> builtin_ids() {
  return {type_id_v<bool>,
          type_id_v<char>,
          type_id_v<int8_t>,
          type_id_v<int16_t>,
          type_id_v<int32_t>,
          type_id_v<int64_t>,
          type_id_v<long long>,
          type_id_v<uint8_t>,
          type_id_v<uint16_t>,
          type_id_v<uint32_t>,
          type_id_v<uint64_t>,
          type_id_v<unsigned long long>,
          type_id_v<float>,
          type_id_v<double>,
          type_id_v<long double>,
          type_id_v<std::string>,
          type_id_v<std::u16string>,
          type_id_v<std::u32string>,
          type_id_v<std::vector<std::byte>>,
          type_id_v<std::vector<bool>>,
          type_id_v<std::vector<int32_t>>,
          type_id_v<std::vector<int64_t>>,
          type_id_v<std::vector<uint64_t>>,
          type_id_v<std::vector<double>>,
          type_id_v<std::vector<std::string>>,
          type_id_v<troupe::timespan>,
          type_id_v<std::chrono::system_clock::time_point>,
          type_id_v<troupe::unit_t>,
          type_id_v<troupe::errc>,
          type_id_v<troupe::exit_reason>,
          type_id_v<troupe::error>};
}

std::string stringify(type_id_t id, const void* ptr) {
  std::string out;
  global_meta_object(id)->stringify(out, ptr);
  return out;
}

template <class T>
std::string stringify(const T& x) {
  std::string out;
  troupe::detail::stringify_value(out, x);
  return out;
}

} // namespace

// -- IDs -------------------------------------------------------------------------

TEST(type_id, built_in_ids_are_distinct_and_below_the_first_custom_id) {
  auto ids = builtin_ids();
  std::set<type_id_t> unique(ids.begin(), ids.end());
  EXPECT_EQ(unique.size(), ids.size());
  for (auto id : ids)
    EXPECT_LT(id, troupe::first_custom_type_id) << troupe::query_type_name(id);
}

TEST(type_id, the_builtin_block_numbers_its_types_from_zero_without_gaps) {
  using block = troupe::id_block::builtin;
  EXPECT_EQ(block::begin, 0);
  EXPECT_EQ(type_id_v<bool>, block::begin);
  EXPECT_EQ(type_id_v<troupe::none_t>, block::end - 1);
  for (type_id_t id = block::begin; id < block::end; ++id)
    EXPECT_NE(global_meta_object(id), nullptr) << "ID " << id;
}

TEST(type_id, troupes_own_blocks_do_not_overlap_and_stay_below_the_first_custom_id) {
  using troupe::id_block::builtin;
  using troupe::id_block::core_actors;
  using troupe::id_block::core_atoms;
  using troupe::id_block::core_errors;
  using troupe::id_block::core_patterns;
  EXPECT_LE(builtin::end, core_errors::begin);
  EXPECT_LE(core_errors::end, core_actors::begin);
  EXPECT_LE(core_actors::end, core_atoms::begin);
  EXPECT_LE(core_atoms::end, core_patterns::begin);
  EXPECT_LE(core_patterns::end, troupe::id_block::core_stream::begin);
  EXPECT_LE(troupe::id_block::core_stream::end, troupe::id_block::core_more_atoms::begin);
  EXPECT_LE(troupe::id_block::core_more_atoms::end, troupe::first_custom_type_id);
  EXPECT_EQ(core_patterns::end - core_patterns::begin, 3);
  EXPECT_EQ(core_errors::end - core_errors::begin, 3);
  EXPECT_EQ(core_actors::end - core_actors::begin, 7);
}

TEST(type_id, decayed_types_share_the_id_of_the_plain_type) {
  EXPECT_EQ(type_id_v<const int&>, type_id_v<int>);
  EXPECT_EQ(type_id_v<std::string&&>, type_id_v<std::string>);
  EXPECT_EQ(type_id_v<const widget>, type_id_v<widget>);
}

TEST(type_id, has_type_id_is_false_for_types_outside_every_block) {
  EXPECT_TRUE(troupe::has_type_id_v<int>);
  EXPECT_TRUE(troupe::has_type_id_v<widget>);
  EXPECT_FALSE(troupe::has_type_id_v<std::vector<float>>);
  EXPECT_FALSE(troupe::has_type_id_v<unsigned short*>);
}

TEST(type_id, a_user_block_numbers_its_types_consecutively_from_its_first_id) {
  using block = troupe::id_block::type_id_test;
  EXPECT_EQ(block::begin, 1000);
  EXPECT_EQ(type_id_v<widget>, 1000);
  EXPECT_EQ(type_id_v<counted>, 1001);
  EXPECT_EQ(type_id_v<beep_atom>, 1002);
  EXPECT_EQ(type_id_v<boop_atom>, 1003);
  EXPECT_EQ(type_id_v<color>, 1004);
  EXPECT_EQ(type_id_v<shade>, 1005);
  EXPECT_EQ(type_id_v<opaque>, 1006);
  EXPECT_EQ(type_id_v<std::vector<widget>>, 1007);
  // `end` is one past the last ID, like an iterator range.
  EXPECT_EQ(block::end, 1009);
}

TEST(type_id, an_empty_block_has_equal_begin_and_end) {
  using block = troupe::id_block::type_id_test_empty;
  EXPECT_EQ(block::begin, 1040);
  EXPECT_EQ(block::end, block::begin);
}

TEST(type_id, ids_are_compile_time_constants) {
  static_assert(type_id_v<widget> == 1000);
  static_assert(troupe::id_block::type_id_test::end - troupe::id_block::type_id_test::begin
                == 9);
  SUCCEED();
}

// -- names -----------------------------------------------------------------------

TEST(type_id, query_type_name_names_built_in_types) {
  EXPECT_EQ(troupe::query_type_name(type_id_v<int32_t>), "int32_t");
  EXPECT_EQ(troupe::query_type_name(type_id_v<bool>), "bool");
  EXPECT_EQ(troupe::query_type_name(type_id_v<double>), "double");
  EXPECT_EQ(troupe::query_type_name(type_id_v<std::string>), "std::string");
  EXPECT_EQ(troupe::query_type_name(type_id_v<std::vector<std::string>>),
            "std::vector<std::string>");
  EXPECT_EQ(troupe::query_type_name(type_id_v<troupe::timespan>), "troupe::timespan");
  EXPECT_EQ(troupe::query_type_name(type_id_v<troupe::unit_t>), "troupe::unit_t");
  EXPECT_EQ(troupe::query_type_name(type_id_v<troupe::errc>), "troupe::errc");
}

TEST(type_id, query_type_name_names_user_types_as_written_in_the_block) {
  EXPECT_EQ(troupe::query_type_name(type_id_v<widget>), "type_id_test::widget");
  EXPECT_EQ(troupe::query_type_name(type_id_v<std::vector<widget>>),
            "std::vector<type_id_test::widget>");
  EXPECT_EQ(troupe::query_type_name(type_id_v<beep_atom>), "beep_atom");
  EXPECT_EQ(troupe::type_name_v<widget>, "type_id_test::widget");
}

TEST(type_id, query_type_name_of_an_unknown_id_says_unknown) {
  EXPECT_EQ(troupe::query_type_name(troupe::first_custom_type_id + 1), "<unknown>");
  EXPECT_EQ(troupe::query_type_name(troupe::id_block::type_id_test::end), "<unknown>");
  EXPECT_EQ(troupe::query_type_name(troupe::invalid_type_id), "<unknown>");
  EXPECT_EQ(global_meta_object(troupe::invalid_type_id), nullptr);
}

// -- atoms -----------------------------------------------------------------------

TEST(type_id, atoms_have_type_ids_of_their_own) {
  EXPECT_TRUE(troupe::has_type_id_v<beep_atom>);
  EXPECT_NE(type_id_v<beep_atom>, type_id_v<boop_atom>);
  EXPECT_EQ(type_id_v<decltype(beep_atom_v)>, type_id_v<beep_atom>);
}

TEST(type_id, atoms_of_the_same_type_compare_equal) {
  beep_atom a;
  EXPECT_TRUE(a == beep_atom_v);
  EXPECT_TRUE(beep_atom{} == beep_atom{});
  static_assert(beep_atom_v == beep_atom{});
}

TEST(type_id, atoms_print_their_name) {
  EXPECT_EQ(to_string(beep_atom_v), "beep_atom");
  EXPECT_EQ(to_string(boop_atom{}), "boop_atom");
  EXPECT_EQ(stringify(type_id_v<beep_atom>, &beep_atom_v), "beep_atom");
}

// -- meta objects ----------------------------------------------------------------

TEST(type_id, every_registered_type_has_a_meta_object_with_its_name_and_size) {
  auto check = [](type_id_t id, std::string_view name, size_t size) {
    auto* meta = global_meta_object(id);
    ASSERT_NE(meta, nullptr) << name;
    EXPECT_EQ(meta->type_name, name);
    EXPECT_EQ(meta->padded_size, size) << name;
    EXPECT_EQ(meta->padded_size % troupe::detail::element_alignment, 0u) << name;
  };
  using troupe::detail::padded_size_v;
  check(type_id_v<int32_t>, "int32_t", padded_size_v<int32_t>);
  check(type_id_v<std::string>, "std::string", padded_size_v<std::string>);
  check(type_id_v<troupe::error>, "troupe::error", padded_size_v<troupe::error>);
  check(type_id_v<widget>, "type_id_test::widget", padded_size_v<widget>);
  check(type_id_v<counted>, "type_id_test::counted", padded_size_v<counted>);
  check(type_id_v<boop_atom>, "boop_atom", padded_size_v<boop_atom>);
  for (auto id : builtin_ids())
    EXPECT_NE(global_meta_object(id), nullptr) << "ID " << id;
  using block = troupe::id_block::type_id_test;
  for (type_id_t id = block::begin; id < block::end; ++id)
    EXPECT_NE(global_meta_object(id), nullptr) << "ID " << id;
  using errors = troupe::id_block::core_errors;
  for (type_id_t id = errors::begin; id < errors::end; ++id)
    EXPECT_NE(global_meta_object(id), nullptr) << "ID " << id;
  using actors = troupe::id_block::core_actors;
  for (type_id_t id = actors::begin; id < actors::end; ++id)
    EXPECT_NE(global_meta_object(id), nullptr) << "ID " << id;
  EXPECT_EQ(troupe::query_type_name(type_id_v<troupe::down_msg>), "troupe::down_msg");
}

// The library registers Troupe's own types once, before main, each with its
// serialization hooks; no translation unit builds meta objects for them.
TEST(type_id, troupes_own_types_are_registered_by_the_library_with_their_hooks) {
  auto check_block = [](type_id_t begin, type_id_t end) {
    for (auto id = begin; id < end; ++id) {
      auto* meta = global_meta_object(id);
      ASSERT_NE(meta, nullptr) << "ID " << id;
      EXPECT_TRUE(meta->hooks_included) << meta->type_name;
    }
  };
  using namespace troupe::id_block;
  check_block(builtin::begin, builtin::end);
  check_block(core_errors::begin, core_errors::end);
  check_block(core_actors::begin, core_actors::end);
  check_block(core_atoms::begin, core_atoms::end);
  check_block(core_patterns::begin, core_patterns::end);
  check_block(core_stream::begin, core_stream::end);
  auto* error_meta = global_meta_object(type_id_v<troupe::error>);
  EXPECT_NE(error_meta->save_binary, nullptr);
  EXPECT_NE(error_meta->load_json, nullptr);
  EXPECT_NE(global_meta_object(type_id_v<std::vector<std::string>>)->save_json, nullptr);
}

TEST(type_id, padded_sizes_round_up_to_the_element_alignment) {
  using troupe::detail::element_alignment;
  using troupe::detail::padded_size;
  EXPECT_EQ(padded_size(0), 0u);
  EXPECT_EQ(padded_size(1), element_alignment);
  EXPECT_EQ(padded_size(element_alignment), element_alignment);
  EXPECT_EQ(padded_size(element_alignment + 1), 2 * element_alignment);
}

TEST(type_id, a_meta_object_constructs_copies_moves_and_destroys_through_the_type) {
  auto* meta = global_meta_object(type_id_v<counted>);
  ASSERT_NE(meta, nullptr);
  alignas(counted) std::byte a[sizeof(counted)];
  alignas(counted) std::byte b[sizeof(counted)];
  alignas(counted) std::byte c[sizeof(counted)];
  counted::constructed = counted::destroyed = counted::copied = counted::moved = 0;
  meta->default_construct(a);
  EXPECT_EQ(reinterpret_cast<counted*>(a)->value, 7);
  reinterpret_cast<counted*>(a)->value = 42;
  meta->copy_construct(b, a);
  EXPECT_EQ(counted::copied, 1);
  EXPECT_EQ(reinterpret_cast<counted*>(b)->value, 42);
  meta->move_construct(c, b);
  EXPECT_EQ(counted::moved, 1);
  EXPECT_EQ(reinterpret_cast<counted*>(c)->value, 42);
  EXPECT_EQ(reinterpret_cast<counted*>(b)->value, -1);
  EXPECT_EQ(stringify(type_id_v<counted>, c), "counted(42)");
  meta->destroy(a);
  meta->destroy(b);
  meta->destroy(c);
  EXPECT_EQ(counted::constructed, 3);
  EXPECT_EQ(counted::destroyed, 3);
}

TEST(type_id, registering_the_same_meta_object_twice_is_harmless) {
  auto* meta = global_meta_object(type_id_v<widget>);
  EXPECT_TRUE(troupe::detail::register_meta_object(type_id_v<widget>, meta));
  EXPECT_EQ(global_meta_object(type_id_v<widget>), meta);
}

TEST(type_id, a_late_registration_under_a_free_id_is_visible_at_once) {
  // As a dlopen'ed library would do it; 1045 is free in this file's range.
  static constexpr auto meta
    = troupe::detail::meta_object_for<widget>::make("late::widget");
  ASSERT_EQ(global_meta_object(1045), nullptr);
  EXPECT_TRUE(troupe::detail::register_meta_object(1045, &meta));
  EXPECT_EQ(global_meta_object(1045), &meta);
  EXPECT_EQ(troupe::query_type_name(1045), "late::widget");
}

TEST(type_id, two_types_under_one_id_abort_naming_both) {
  static constexpr auto meta
    = troupe::detail::meta_object_for<counted>::make("other::type");
  EXPECT_DEATH(troupe::detail::register_meta_object(type_id_v<widget>, &meta),
               "type ID 1000 is taken by both 'type_id_test::widget' and "
               "'other::type'");
}

// -- printing --------------------------------------------------------------------

TEST(type_id, a_type_without_default_constructor_has_no_default_construct_function) {
  auto* meta = global_meta_object(type_id_v<type_id_test::pinned>);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->default_construct, nullptr);
  EXPECT_NE(global_meta_object(type_id_v<int32_t>)->default_construct, nullptr);
}

TEST(type_id, characters_print_quoted_and_durations_in_nanoseconds) {
  EXPECT_EQ(stringify('x'), "'x'");
  EXPECT_EQ(stringify(std::chrono::milliseconds{3}), "3000000ns");
  EXPECT_EQ(stringify(troupe::timespan{42}), "42ns");
  auto epoch = std::chrono::system_clock::time_point{};
  EXPECT_EQ(stringify(epoch + std::chrono::microseconds{5}), "5000ns");
}

TEST(type_id, arithmetic_values_print_as_numbers) {
  EXPECT_EQ(stringify(true), "true");
  EXPECT_EQ(stringify(false), "false");
  EXPECT_EQ(stringify(int8_t{-5}), "-5");
  EXPECT_EQ(stringify(uint8_t{200}), "200");
  EXPECT_EQ(stringify(int64_t{-9'000'000'000}), "-9000000000");
  EXPECT_EQ(stringify(uint64_t{18'446'744'073'709'551'615u}), "18446744073709551615");
  EXPECT_EQ(stringify(2.5), "2.5");
  EXPECT_EQ(stringify(0.1f), "0.1") << "a float in its shortest form, as CAF prints it";
  EXPECT_EQ(stringify(29.0 / 3), "9.666666666666666");
}

TEST(type_id, strings_print_quoted_with_escapes) {
  EXPECT_EQ(stringify(std::string{"abc"}), "\"abc\"");
  EXPECT_EQ(stringify(std::string{"a\"b\\c\nd\te"}), R"("a\"b\\c\nd\te")");
  EXPECT_EQ(stringify(std::string{}), "\"\"");
}

TEST(type_id, containers_print_their_elements_in_brackets) {
  EXPECT_EQ(stringify(std::vector<int32_t>{1, 2, 3}), "[1, 2, 3]");
  EXPECT_EQ(stringify(std::vector<std::string>{"x", "y"}), R"(["x", "y"])");
  EXPECT_EQ(stringify(std::vector<int32_t>{}), "[]");
  EXPECT_EQ(stringify(std::vector<bool>{true, false}), "[true, false]");
}

TEST(type_id, enums_print_through_to_string_or_as_numbers) {
  auto green = color::green;
  EXPECT_EQ(stringify(type_id_v<color>, &green), "green");
  auto dark = shade::dark;
  EXPECT_EQ(stringify(type_id_v<shade>, &dark), "9");
  auto down = troupe::errc::actor_down;
  EXPECT_EQ(stringify(type_id_v<troupe::errc>, &down), "actor_down");
}

TEST(type_id, types_without_a_printable_form_print_a_placeholder) {
  opaque x;
  EXPECT_EQ(stringify(type_id_v<opaque>, &x), "<unprintable>");
  EXPECT_EQ(stringify(type_id_v<troupe::unit_t>, &troupe::unit), "unit");
}
