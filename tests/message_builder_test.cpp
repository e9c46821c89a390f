#include "troupe/message_builder.hpp"

#include "support/allocations.hpp"
#include "support/element_types.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace message_builder_test {

struct tracked {
  static inline int live = 0;
  static inline int copies = 0;
  static inline int moves = 0;

  explicit tracked(int x = 0) : value(x) {
    ++live;
  }
  tracked(const tracked& other) : value(other.value) {
    ++live;
    ++copies;
  }
  tracked(tracked&& other) noexcept : value(other.value) {
    other.value = -1;
    ++live;
    ++moves;
  }
  ~tracked() {
    --live;
  }

  int value;
};

} // namespace message_builder_test

TROUPE_BEGIN_TYPE_ID_BLOCK(message_builder_test, 1150)
  TROUPE_ADD_TYPE_ID(message_builder_test, (message_builder_test::tracked))
  TROUPE_ADD_ATOM(message_builder_test, put_atom)
TROUPE_END_TYPE_ID_BLOCK(message_builder_test)

namespace {

using namespace message_builder_test;
using troupe::make_message;
using troupe::test::blob;
using troupe::test::fragile;

class message_builder : public testing::Test {
protected:
  void SetUp() override {
    tracked::live = tracked::copies = tracked::moves = 0;
    fragile::live = 0;
    fragile::fail = false;
    allocations_before_ = troupe_test::allocations::large_live();
  }

  void TearDown() override {
    fragile::fail = false;
    EXPECT_EQ(tracked::live, 0);
    EXPECT_EQ(fragile::live, 0);
    EXPECT_EQ(troupe_test::allocations::large_live(), allocations_before_)
      << "message data leaked";
  }

private:
  long allocations_before_ = 0;
};

} // namespace

TEST_F(message_builder, appended_values_of_various_types_end_up_in_the_message_in_order) {
  troupe::message_builder mb;
  std::string name = "name";
  mb.append(42).append(name).append("literal").append(2.5).append(put_atom_v);
  mb.append(std::vector<int32_t>{1, 2, 3}).append(tracked{7});
  EXPECT_EQ(mb.size(), 7u);
  auto msg = mb.to_message();
  ASSERT_TRUE((msg.match_elements<int, std::string, std::string, double, put_atom,
                                  std::vector<int32_t>, tracked>()));
  EXPECT_EQ(msg.get_as<int>(0), 42);
  EXPECT_EQ(msg.get_as<std::string>(1), "name");
  EXPECT_EQ(msg.get_as<std::string>(2), "literal");
  EXPECT_EQ(msg.get_as<double>(3), 2.5);
  EXPECT_EQ(msg.get_as<std::vector<int32_t>>(5), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(msg.get_as<tracked>(6).value, 7);
  EXPECT_EQ(to_string(msg), R"(message(42, "name", "literal", 2.5, put_atom, [1, 2, 3], )"
                            "<unprintable>)");
}

TEST_F(message_builder, the_types_of_the_result_equal_the_static_list) {
  troupe::message_builder mb;
  mb.append(1).append(std::string{"x"});
  auto msg = mb.to_message();
  EXPECT_TRUE((msg.match_elements<int, std::string>()));
  EXPECT_TRUE(msg.types() == (troupe::type_id_list::of<int, std::string>()));
  EXPECT_FALSE((msg.match_elements<std::string, int>()));
  EXPECT_EQ(to_string(msg.types()), "(int32_t, std::string)");
}

TEST_F(message_builder, messages_built_with_the_same_types_share_one_interned_list) {
  troupe::message_builder a;
  a.append(1).append(2.0);
  troupe::message_builder b;
  b.append(3).append(4.0);
  EXPECT_EQ(a.to_message().types().data(), b.to_message().types().data());
}

TEST_F(message_builder, to_message_copies_and_keeps_the_builder) {
  troupe::message_builder mb;
  mb.append(tracked{1}).append(std::string{"kept"});
  EXPECT_EQ(tracked::copies, 0);
  auto first = mb.to_message();
  EXPECT_EQ(tracked::copies, 1);
  EXPECT_EQ(mb.size(), 2u);
  auto second = mb.to_message();
  EXPECT_EQ(tracked::copies, 2);
  EXPECT_NE(first.raw(), second.raw());
  EXPECT_EQ(first.get_as<tracked>(0).value, 1);
  EXPECT_EQ(second.get_as<tracked>(0).value, 1);
  EXPECT_EQ(second.get_as<std::string>(1), "kept");
  EXPECT_EQ(tracked::live, 3);
}

TEST_F(message_builder, move_to_message_moves_the_elements_and_clears_the_builder) {
  troupe::message_builder mb;
  mb.append(tracked{5}).append(std::string(100, 'z'));
  auto copies_before = tracked::copies;
  auto msg = mb.move_to_message();
  EXPECT_EQ(tracked::copies, copies_before) << "moved, not copied";
  EXPECT_TRUE(mb.empty());
  EXPECT_EQ(mb.size(), 0u);
  ASSERT_TRUE((msg.match_elements<tracked, std::string>()));
  EXPECT_EQ(msg.get_as<tracked>(0).value, 5);
  EXPECT_EQ(msg.get_as<std::string>(1), std::string(100, 'z'));
  EXPECT_EQ(tracked::live, 1) << "the moved-from element in the builder is destroyed";
  // The builder can be used again.
  mb.append(6);
  auto next = mb.move_to_message();
  EXPECT_TRUE(next.match_elements<int>());
  EXPECT_EQ(next.get_as<int>(0), 6);
}

TEST_F(message_builder, move_to_message_hands_over_the_elements_without_moving_them) {
  troupe::message_builder mb;
  tracked value{7};
  mb.append(value);
  auto moves_before = tracked::moves;
  auto copies_before = tracked::copies;
  auto msg = mb.move_to_message();
  EXPECT_EQ(tracked::moves, moves_before);
  EXPECT_EQ(tracked::copies, copies_before);
  ASSERT_TRUE(msg.match_elements<tracked>());
  EXPECT_EQ(msg.get_as<tracked>(0).value, 7);
}

TEST_F(message_builder, a_builder_of_one_element_gives_the_interned_list_of_that_type) {
  troupe::message_builder a;
  a.append(put_atom_v);
  troupe::message_builder b;
  b.append(put_atom{});
  auto x = a.move_to_message();
  auto y = b.to_message();
  EXPECT_EQ(x.types().data(), y.types().data());
  EXPECT_TRUE(x.match_elements<put_atom>());
}

TEST_F(message_builder, clear_keeps_the_builder_usable_for_other_types) {
  troupe::message_builder mb;
  mb.append(tracked{1}).append(std::string{"x"});
  mb.clear();
  mb.append(2.5).append(3);
  auto msg = mb.move_to_message();
  ASSERT_TRUE((msg.match_elements<double, int>()));
  EXPECT_EQ(msg.get_as<double>(0), 2.5);
  EXPECT_EQ(msg.get_as<int>(1), 3);
}

TEST_F(message_builder, append_all_copies_every_element_of_a_message) {
  auto source = make_message(1, std::string{"two"}, tracked{3});
  troupe::message_builder mb;
  mb.append(put_atom_v);
  mb.append_all(source);
  mb.append(4.0);
  EXPECT_EQ(mb.size(), 5u);
  auto msg = mb.move_to_message();
  ASSERT_TRUE((msg.match_elements<put_atom, int, std::string, tracked, double>()));
  EXPECT_EQ(msg.get_as<int>(1), 1);
  EXPECT_EQ(msg.get_as<std::string>(2), "two");
  EXPECT_EQ(msg.get_as<tracked>(3).value, 3);
  EXPECT_EQ(msg.get_as<double>(4), 4.0);
  // The source is untouched and still alone.
  EXPECT_TRUE(source.unique());
  EXPECT_EQ(source.get_as<tracked>(2).value, 3);
  EXPECT_EQ(tracked::live, 2);
}

TEST_F(message_builder, append_all_of_an_empty_message_appends_nothing) {
  troupe::message_builder mb;
  mb.append(1);
  mb.append_all(troupe::message{});
  mb.append_all(make_message());
  EXPECT_EQ(mb.size(), 1u);
}

TEST_F(message_builder, an_empty_builder_gives_an_empty_message) {
  troupe::message_builder mb;
  EXPECT_TRUE(mb.empty());
  auto msg = mb.to_message();
  EXPECT_TRUE(msg.empty());
  EXPECT_TRUE(msg.match_elements<>());
  EXPECT_FALSE(msg.match_elements<int>());
  EXPECT_EQ(to_string(msg), "message()");
  EXPECT_TRUE(mb.move_to_message().empty());
}

TEST_F(message_builder, clear_destroys_the_elements) {
  troupe::message_builder mb;
  mb.append(tracked{1}).append(tracked{2});
  EXPECT_EQ(tracked::live, 2);
  mb.clear();
  EXPECT_TRUE(mb.empty());
  EXPECT_EQ(tracked::live, 0);
}

TEST_F(message_builder, a_moved_builder_takes_the_elements_along) {
  troupe::message_builder mb;
  mb.append(tracked{1});
  troupe::message_builder other{std::move(mb)};
  EXPECT_EQ(other.size(), 1u);
  troupe::message_builder third;
  third.append(2);
  third = std::move(other);
  auto msg = third.to_message();
  ASSERT_TRUE(msg.match_elements<tracked>());
  EXPECT_EQ(msg.get_as<tracked>(0).value, 1);
  EXPECT_EQ(tracked::live, 2);
}

TEST_F(message_builder, a_builder_with_many_elements_keeps_them_intact) {
  // 100 IDs: their interned list, kept for good, stays below large_block and
  // so does not count as leaked.
  troupe::message_builder mb;
  for (int i = 0; i < 50; ++i)
    mb.append(tracked{i}).append(std::to_string(i));
  auto msg = mb.to_message();
  ASSERT_EQ(msg.size(), 100u);
  for (size_t i = 0; i < 50; ++i) {
    ASSERT_TRUE(msg.match_element<tracked>(2 * i));
    EXPECT_EQ(msg.get_as<tracked>(2 * i).value, static_cast<int>(i));
    EXPECT_EQ(msg.get_as<std::string>(2 * i + 1), std::to_string(i));
  }
}

TEST_F(message_builder, a_throwing_copy_in_to_message_leaks_nothing_and_keeps_the_builder) {
  troupe::message_builder mb;
  mb.append(tracked{1}).append(fragile{}).append(tracked{2}).append(blob{});
  fragile::fail = true;
  EXPECT_THROW(mb.to_message(), std::runtime_error);
  EXPECT_EQ(tracked::live, 2) << "the copy made before the throw is destroyed";
  EXPECT_EQ(fragile::live, 1);
  EXPECT_EQ(mb.size(), 4u);
  fragile::fail = false;
  auto msg = mb.to_message();
  EXPECT_TRUE((msg.match_elements<tracked, fragile, tracked, blob>()));
}

TEST_F(message_builder, a_throwing_copy_in_append_all_leaks_nothing) {
  auto source = make_message(tracked{1}, fragile{});
  troupe::message_builder mb;
  fragile::fail = true;
  EXPECT_THROW(mb.append_all(source), std::runtime_error);
  fragile::fail = false;
  EXPECT_EQ(fragile::live, 1);
  EXPECT_EQ(static_cast<size_t>(tracked::live), 1 + mb.size());
  mb.clear();
  EXPECT_EQ(tracked::live, 1);
}

// -- allocation failures ---------------------------------------------------------

TEST_F(message_builder, append_leaks_nothing_when_an_allocation_fails) {
  std::string str(100, 's');
  auto fill = [&] {
    troupe::message_builder mb;
    for (int i = 0; i < 5; ++i)
      mb.append(tracked{i}).append(str);
    // Too big for the thread cache: growing the block asks operator new.
    mb.append(blob{});
  };
  auto check = [] { EXPECT_EQ(tracked::live, 0); };
  // Five string copies, the ID array outgrowing its inline room, the block.
  EXPECT_GE(troupe_test::each_allocation_failing(fill, check), 7);
}

TEST_F(message_builder, append_all_leaks_nothing_when_an_allocation_fails) {
  auto source = make_message(tracked{1}, std::string(100, 's'), tracked{2});
  auto fill = [&] {
    troupe::message_builder mb;
    mb.append(0);
    mb.append_all(source);
    mb.append_all(source);
    mb.append_all(make_message(blob{}));
    EXPECT_EQ(mb.size(), 8u);
  };
  auto check = [] { EXPECT_EQ(tracked::live, 2) << "only the source's elements are left"; };
  // Two string copies, the ID array outgrowing its inline room, the block
  // growing beyond the thread cache's sizes (the blob's own message is
  // allocated outside the builder, and may fail too).
  EXPECT_GE(troupe_test::each_allocation_failing(fill, check), 4);
}

TEST_F(message_builder, to_message_leaks_nothing_when_an_allocation_fails) {
  // A type combination no other test builds, so interning its list allocates.
  troupe::message_builder mb;
  mb.append(1.5).append(tracked{1}).append(std::string(100, 's')).append(blob{});
  auto before = troupe_test::allocations::large_live();
  auto build = [&] {
    auto msg = mb.to_message();
    EXPECT_EQ(tracked::live, 2);
  };
  auto check = [&] {
    EXPECT_EQ(tracked::live, 1);
    EXPECT_EQ(troupe_test::allocations::large_live(), before);
    EXPECT_EQ(mb.size(), 4u);
  };
  // At least interning the new list, the message data and the string copy allocate.
  EXPECT_GE(troupe_test::each_allocation_failing(build, check), 3);
}

TEST_F(message_builder, move_to_message_leaks_nothing_when_an_allocation_fails) {
  // Another combination of its own, for the same reason.
  troupe::message_builder mb;
  mb.append(blob{}).append(tracked{1}).append(std::string(100, 's')).append(2.5);
  auto before = troupe_test::allocations::large_live();
  troupe::message msg;
  auto build = [&] { msg = mb.move_to_message(); };
  auto check = [&] {
    EXPECT_EQ(tracked::live, 1);
    EXPECT_EQ(troupe_test::allocations::large_live(), before);
  };
  EXPECT_GE(troupe_test::each_allocation_failing(build, check), 2);
  EXPECT_TRUE(mb.empty());
  EXPECT_TRUE((msg.match_elements<blob, tracked, std::string, double>()));
  EXPECT_EQ(msg.get_as<tracked>(1).value, 1);
  EXPECT_EQ(msg.get_as<std::string>(2), std::string(100, 's'));
}
