#include "troupe/type_id_list.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

namespace type_id_list_test {

struct point {
  int x = 0;
  int y = 0;
};

} // namespace type_id_list_test

TROUPE_BEGIN_TYPE_ID_BLOCK(type_id_list_test, 1050)
  TROUPE_ADD_TYPE_ID(type_id_list_test, (type_id_list_test::point))
  TROUPE_ADD_ATOM(type_id_list_test, get_atom)
TROUPE_END_TYPE_ID_BLOCK(type_id_list_test)

namespace {

using troupe::type_id_list;
using troupe::type_id_t;
using troupe::type_id_v;
using type_id_list_test::point;

} // namespace

TEST(type_id_list, a_static_list_holds_the_ids_of_its_pack_in_order) {
  auto xs = type_id_list::of<int32_t, std::string, point>();
  ASSERT_EQ(xs.size(), 3u);
  EXPECT_FALSE(xs.empty());
  EXPECT_EQ(xs[0], type_id_v<int32_t>);
  EXPECT_EQ(xs[1], type_id_v<std::string>);
  EXPECT_EQ(xs[2], type_id_v<point>);
  std::vector<type_id_t> ids(xs.begin(), xs.end());
  EXPECT_EQ(ids, (std::vector<type_id_t>{type_id_v<int32_t>, type_id_v<std::string>,
                                         type_id_v<point>}));
  // The first slot of the storage is the size.
  EXPECT_EQ(xs.data()[0], 3u);
}

TEST(type_id_list, the_list_of_an_empty_pack_is_empty) {
  auto xs = type_id_list::of<>();
  EXPECT_EQ(xs.size(), 0u);
  EXPECT_TRUE(xs.empty());
  EXPECT_EQ(xs.begin(), xs.end());
}

TEST(type_id_list, lists_of_the_same_pack_share_storage) {
  auto xs = type_id_list::of<int32_t, point>();
  auto ys = type_id_list::of<int32_t, point>();
  EXPECT_EQ(xs.data(), ys.data());
  EXPECT_EQ((troupe::make_type_id_list<int32_t, point>().data()), xs.data());
  // References and cv-qualifiers decay to the same pack.
  EXPECT_EQ((type_id_list::of<const int32_t&, point&&>().data()), xs.data());
}

TEST(type_id_list, lists_of_different_packs_differ) {
  auto xs = type_id_list::of<int32_t, point>();
  EXPECT_FALSE(xs == (type_id_list::of<point, int32_t>()));
  EXPECT_FALSE(xs == type_id_list::of<int32_t>());
  EXPECT_FALSE(xs == (type_id_list::of<int32_t, point, point>()));
  EXPECT_FALSE(xs == type_id_list::of<>());
  EXPECT_FALSE(type_id_list::of<>() == type_id_list::of<int32_t>());
  EXPECT_TRUE(type_id_list::of<>() == type_id_list::of<>());
}

TEST(type_id_list, lists_with_equal_ids_in_different_storage_compare_equal) {
  std::array<type_id_t, 3> storage{2, type_id_v<double>, type_id_v<get_atom>};
  type_id_list xs{storage.data()};
  auto ys = type_id_list::of<double, get_atom>();
  EXPECT_NE(xs.data(), ys.data());
  EXPECT_TRUE(xs == ys);
  EXPECT_TRUE(ys == xs);
  storage[2] = type_id_v<point>;
  EXPECT_FALSE(xs == ys);
}

TEST(type_id_list, intern_returns_the_same_pointer_for_equal_content) {
  std::vector<type_id_t> a{type_id_v<std::string>, type_id_v<point>, type_id_v<int64_t>};
  std::vector<type_id_t> b = a; // equal content, different memory
  auto xs = type_id_list::intern(a);
  auto ys = type_id_list::intern(b);
  EXPECT_EQ(xs.data(), ys.data());
  EXPECT_NE(xs.data(), static_cast<const type_id_t*>(a.data()));
  ASSERT_EQ(xs.size(), 3u);
  EXPECT_EQ(xs[0], type_id_v<std::string>);
  EXPECT_EQ(xs[1], type_id_v<point>);
  EXPECT_EQ(xs[2], type_id_v<int64_t>);
}

TEST(type_id_list, an_interned_list_does_not_depend_on_its_source_buffer) {
  std::vector<type_id_t> ids{type_id_v<uint16_t>, type_id_v<get_atom>};
  auto xs = type_id_list::intern(ids);
  ids.assign(ids.size(), type_id_v<bool>);
  ids.shrink_to_fit();
  EXPECT_EQ(xs[0], type_id_v<uint16_t>);
  EXPECT_EQ(xs[1], type_id_v<get_atom>);
}

TEST(type_id_list, intern_returns_different_pointers_for_different_content) {
  std::vector<type_id_t> a{type_id_v<int32_t>, type_id_v<point>};
  std::vector<type_id_t> b{type_id_v<point>, type_id_v<int32_t>};
  std::vector<type_id_t> prefix{type_id_v<int32_t>};
  auto xs = type_id_list::intern(a);
  auto ys = type_id_list::intern(b);
  auto zs = type_id_list::intern(prefix);
  EXPECT_NE(xs.data(), ys.data());
  EXPECT_NE(xs.data(), zs.data());
  EXPECT_FALSE(xs == ys);
  EXPECT_FALSE(xs == zs);
}

TEST(type_id_list, an_interned_list_equals_the_static_list_of_the_same_pack) {
  std::vector<type_id_t> ids{type_id_v<int32_t>, type_id_v<std::string>, type_id_v<point>};
  auto xs = type_id_list::intern(ids);
  auto ys = type_id_list::of<int32_t, std::string, point>();
  EXPECT_TRUE(xs == ys);
  EXPECT_TRUE(ys == xs);
  EXPECT_FALSE(xs == (type_id_list::of<int32_t, std::string>()));
}

TEST(type_id_list, interning_an_empty_list_gives_the_static_empty_list) {
  auto xs = type_id_list::intern({});
  EXPECT_TRUE(xs.empty());
  EXPECT_EQ(xs.data(), type_id_list::of<>().data());
}

TEST(type_id_list, to_string_lists_the_type_names_in_parentheses) {
  EXPECT_EQ(to_string(type_id_list::of<int32_t, std::string>()), "(int32_t, std::string)");
  EXPECT_EQ(to_string(type_id_list::of<point>()), "(type_id_list_test::point)");
  EXPECT_EQ(to_string(type_id_list::of<get_atom, bool>()), "(get_atom, bool)");
  EXPECT_EQ(to_string(type_id_list::of<>()), "()");
}

TEST(type_id_list, to_string_marks_ids_without_a_type_as_unknown) {
  std::vector<type_id_t> ids{type_id_v<bool>, troupe::invalid_type_id};
  EXPECT_EQ(to_string(type_id_list::intern(ids)), "(bool, <unknown>)");
}
