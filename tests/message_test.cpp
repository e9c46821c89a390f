#include "troupe/message.hpp"

#include "troupe/error.hpp"
// Printing `position` through its inspect() needs the serialization hooks,
// built only where a serialization header is included.
#include "troupe/deep_to_string.hpp"

#include "support/allocations.hpp"
#include "support/element_types.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace message_test {

// Counts its live instances and notices a second destruction of the same
// object (the magic number is gone by then).
struct tracked {
  static inline int live = 0;
  static inline int copies = 0;
  static inline int double_destructions = 0;
  static constexpr uint32_t alive_magic = 0x600dcafe;

  tracked() : tracked(0) {}
  explicit tracked(int x) : value(x) {
    ++live;
  }
  tracked(const tracked& other) : value(other.value) {
    ++live;
    ++copies;
  }
  tracked(tracked&& other) noexcept : value(other.value) {
    ++live;
  }
  tracked& operator=(const tracked&) = default;
  ~tracked() {
    if (magic != alive_magic)
      ++double_destructions;
    magic = 0;
    --live;
  }

  int value;
  uint32_t magic = alive_magic;
};

std::string to_string(const tracked& x) {
  return "tracked(" + std::to_string(x.value) + ")";
}

// Printable only through inspect().
struct position {
  int32_t x = 0;
  int32_t y = 0;
};

template <class Inspector>
bool inspect(Inspector& f, position& p) {
  return f.object(p).fields(f.field("x", p.x), f.field("y", p.y));
}

// Neither inspect() nor to_string().
struct handle {
  int fd = -1;
};

} // namespace message_test

TROUPE_BEGIN_TYPE_ID_BLOCK(message_test, 1100)
  TROUPE_ADD_TYPE_ID(message_test, (message_test::tracked))
  TROUPE_ADD_ATOM(message_test, ok_atom)
  TROUPE_ADD_TYPE_ID(message_test, (message_test::position))
  TROUPE_ADD_TYPE_ID_WITH_NAME(message_test, (std::vector<message_test::position>),
                               "std::vector<message_test::position>")
  TROUPE_ADD_TYPE_ID(message_test, (message_test::handle))
TROUPE_END_TYPE_ID_BLOCK(message_test)

namespace {

using namespace message_test;
using troupe::make_message;
using troupe::test::blob;
using troupe::test::fragile;

// Resets the counters and checks on exit that nothing leaked.
class message : public testing::Test {
protected:
  void SetUp() override {
    tracked::live = 0;
    tracked::copies = 0;
    tracked::double_destructions = 0;
    fragile::live = 0;
    fragile::fail = false;
    allocations_before_ = troupe_test::allocations::large_live();
  }

  void TearDown() override {
    fragile::fail = false;
    EXPECT_EQ(tracked::live, 0) << "tracked elements leaked or destroyed too often";
    EXPECT_EQ(tracked::double_destructions, 0);
    EXPECT_EQ(fragile::live, 0);
    EXPECT_EQ(troupe_test::allocations::large_live(), allocations_before_)
      << "message data leaked";
  }

private:
  long allocations_before_ = 0;
};

} // namespace

// -- construction ----------------------------------------------------------------

TEST_F(message, make_message_stores_ints_in_order) {
  auto msg = make_message(1, 2, 3);
  ASSERT_EQ(msg.size(), 3u);
  EXPECT_FALSE(msg.empty());
  EXPECT_TRUE((msg.match_elements<int, int, int>()));
  EXPECT_EQ(msg.get_as<int>(0), 1);
  EXPECT_EQ(msg.get_as<int>(1), 2);
  EXPECT_EQ(msg.get_as<int>(2), 3);
}

TEST_F(message, strings_are_copied_into_the_message) {
  std::string str = "hello";
  auto msg = make_message(str, std::string{"world"});
  str[0] = 'j';
  ASSERT_TRUE((msg.match_elements<std::string, std::string>()));
  EXPECT_EQ(msg.get_as<std::string>(0), "hello");
  EXPECT_EQ(msg.get_as<std::string>(1), "world");
}

TEST_F(message, string_literals_and_c_strings_become_std_string) {
  const char* c_str = "pointer";
  char buffer[] = "array";
  auto msg = make_message("literal", c_str, buffer);
  ASSERT_TRUE((msg.match_elements<std::string, std::string, std::string>()));
  EXPECT_EQ(msg.get_as<std::string>(0), "literal");
  EXPECT_EQ(msg.get_as<std::string>(1), "pointer");
  EXPECT_EQ(msg.get_as<std::string>(2), "array");
}

TEST_F(message, vectors_are_stored_by_value) {
  std::vector<int32_t> xs{1, 2, 3};
  std::vector<std::string> names{"a", "b"};
  auto msg = make_message(xs, names);
  xs.push_back(4);
  names.clear();
  ASSERT_TRUE((msg.match_elements<std::vector<int32_t>, std::vector<std::string>>()));
  EXPECT_EQ(msg.get_as<std::vector<int32_t>>(0), (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(msg.get_as<std::vector<std::string>>(1), (std::vector<std::string>{"a", "b"}));
}

TEST_F(message, elements_of_mixed_sizes_are_read_back_intact) {
  auto msg = make_message(char{'x'}, static_cast<long double>(1.25), int16_t{-7},
                          std::string{"mid"}, 2.5, true, ok_atom_v);
  ASSERT_TRUE((msg.match_elements<char, long double, int16_t, std::string, double, bool,
                                  ok_atom>()));
  EXPECT_EQ(msg.get_as<char>(0), 'x');
  EXPECT_EQ(msg.get_as<long double>(1), 1.25L);
  EXPECT_EQ(msg.get_as<int16_t>(2), -7);
  EXPECT_EQ(msg.get_as<std::string>(3), "mid");
  EXPECT_EQ(msg.get_as<double>(4), 2.5);
  EXPECT_TRUE(msg.get_as<bool>(5));
  for (size_t i = 0; i < msg.size(); ++i)
    EXPECT_EQ(reinterpret_cast<uintptr_t>(msg.data_at(i))
                % troupe::detail::element_alignment,
              0u)
      << "element " << i;
}

TEST_F(message, a_user_type_with_a_destructor_is_constructed_once_per_message) {
  {
    auto msg = make_message(tracked{7});
    EXPECT_EQ(tracked::live, 1);
    EXPECT_EQ(tracked::copies, 0) << "an rvalue argument is moved, not copied";
    EXPECT_EQ(msg.get_as<tracked>(0).value, 7);
    tracked lvalue{8};
    auto msg2 = make_message(lvalue);
    EXPECT_EQ(tracked::copies, 1);
    EXPECT_EQ(tracked::live, 3);
  }
  EXPECT_EQ(tracked::live, 0);
}

// -- sharing and copy-on-write ---------------------------------------------------

TEST_F(message, copying_a_message_shares_its_data) {
  auto msg = make_message(tracked{1}, std::string{"x"});
  EXPECT_TRUE(msg.unique());
  auto copy = msg;
  EXPECT_EQ(copy.raw(), msg.raw());
  EXPECT_FALSE(msg.unique());
  EXPECT_FALSE(copy.unique());
  EXPECT_EQ(&copy.get_as<tracked>(0), &msg.get_as<tracked>(0));
  EXPECT_EQ(tracked::copies, 0);
  EXPECT_EQ(tracked::live, 1);
  copy = troupe::message{};
  EXPECT_TRUE(msg.unique());
}

TEST_F(message, moving_a_message_hands_over_its_data) {
  auto msg = make_message(tracked{1});
  auto* raw = msg.raw();
  auto moved = std::move(msg);
  EXPECT_EQ(moved.raw(), raw);
  EXPECT_EQ(msg.raw(), nullptr); // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(msg.empty());
  EXPECT_TRUE(moved.unique());
  troupe::message target = make_message(2);
  target = std::move(moved);
  EXPECT_EQ(target.raw(), raw);
  EXPECT_EQ(tracked::copies, 0);
  EXPECT_EQ(tracked::live, 1);
}

TEST_F(message, assigning_a_message_to_itself_keeps_its_data) {
  auto msg = make_message(tracked{3});
  auto& alias = msg;
  msg = alias;
  ASSERT_TRUE(msg.match_elements<tracked>());
  EXPECT_EQ(msg.get_as<tracked>(0).value, 3);
  EXPECT_TRUE(msg.unique());
}

TEST_F(message, get_mutable_as_on_an_unshared_message_writes_in_place) {
  auto msg = make_message(tracked{1}, 10);
  auto* raw = msg.raw();
  msg.get_mutable_as<tracked>(0).value = 2;
  msg.get_mutable_as<int>(1) = 20;
  EXPECT_EQ(msg.raw(), raw);
  EXPECT_EQ(tracked::copies, 0);
  EXPECT_EQ(msg.get_as<tracked>(0).value, 2);
  EXPECT_EQ(msg.get_as<int>(1), 20);
}

TEST_F(message, get_mutable_as_on_a_shared_message_unshares_it_first) {
  auto msg = make_message(tracked{1}, std::string{"old"});
  auto copy = msg;
  copy.get_mutable_as<std::string>(1) = "new";
  EXPECT_NE(copy.raw(), msg.raw());
  EXPECT_TRUE(copy.unique());
  EXPECT_TRUE(msg.unique());
  EXPECT_EQ(msg.get_as<std::string>(1), "old");
  EXPECT_EQ(copy.get_as<std::string>(1), "new");
  EXPECT_EQ(copy.get_as<tracked>(0).value, 1);
  EXPECT_EQ(tracked::copies, 1);
  EXPECT_EQ(tracked::live, 2);
  // The copy is now alone: writing again does not copy again.
  auto* raw = copy.raw();
  copy.get_mutable_as<tracked>(0).value = 5;
  EXPECT_EQ(copy.raw(), raw);
  EXPECT_EQ(tracked::copies, 1);
  EXPECT_EQ(msg.get_as<tracked>(0).value, 1);
}

TEST_F(message, unshare_with_three_owners_leaves_the_other_two_sharing) {
  auto a = make_message(tracked{1});
  auto b = a;
  auto c = a;
  c.unshare();
  EXPECT_NE(c.raw(), a.raw());
  EXPECT_EQ(b.raw(), a.raw());
  EXPECT_FALSE(a.unique());
  EXPECT_TRUE(c.unique());
  EXPECT_EQ(tracked::live, 2);
}

TEST_F(message, every_element_is_destroyed_exactly_once) {
  {
    auto msg = make_message(tracked{1}, tracked{2}, std::string{"s"}, tracked{3}, blob{});
    EXPECT_EQ(tracked::live, 3);
    std::vector<troupe::message> copies(4, msg);
    copies[1].get_mutable_as<tracked>(0).value = 10; // unshares: three copies
    EXPECT_EQ(tracked::live, 6);
    copies[2].unshare();
    EXPECT_EQ(tracked::live, 9);
    auto moved = std::move(copies[3]);
    copies.clear();
    EXPECT_EQ(tracked::live, 3) << "only msg's data is left (held by msg and moved)";
    EXPECT_EQ(moved.raw(), msg.raw());
  }
  EXPECT_EQ(tracked::live, 0);
  EXPECT_EQ(tracked::double_destructions, 0);
}

TEST_F(message, unshare_and_unique_are_harmless_on_an_empty_message) {
  troupe::message msg;
  EXPECT_TRUE(msg.unique());
  msg.unshare();
  EXPECT_EQ(msg.raw(), nullptr);
}

TEST_F(message, release_hands_the_data_to_the_caller) {
  auto msg = make_message(tracked{4});
  auto* raw = msg.release();
  EXPECT_EQ(msg.raw(), nullptr);
  EXPECT_EQ(tracked::live, 1);
  troupe::message adopted{raw};
  ASSERT_TRUE(adopted.match_elements<tracked>());
  EXPECT_EQ(adopted.get_as<tracked>(0).value, 4);
}

// -- matching and access ---------------------------------------------------------

TEST_F(message, match_elements_requires_exactly_the_given_types_in_order) {
  auto msg = make_message(1, std::string{"x"});
  EXPECT_TRUE((msg.match_elements<int, std::string>()));
  EXPECT_TRUE((msg.match_elements<const int&, std::string&&>()));
  EXPECT_FALSE((msg.match_elements<std::string, int>()));
  EXPECT_FALSE(msg.match_elements<int>());
  EXPECT_FALSE((msg.match_elements<int, std::string, int>()));
  EXPECT_FALSE((msg.match_elements<int64_t, std::string>()));
  EXPECT_FALSE(msg.match_elements<>());
}

TEST_F(message, match_element_checks_one_position_and_rejects_out_of_range_indexes) {
  auto msg = make_message(1, std::string{"x"}, ok_atom_v);
  EXPECT_TRUE(msg.match_element<int>(0));
  EXPECT_TRUE(msg.match_element<std::string>(1));
  EXPECT_TRUE(msg.match_element<ok_atom>(2));
  EXPECT_FALSE(msg.match_element<std::string>(0));
  EXPECT_FALSE(msg.match_element<int>(1));
  EXPECT_FALSE(msg.match_element<int>(3));
  EXPECT_FALSE(msg.match_element<int>(100));
  EXPECT_EQ(msg.type_at(2), troupe::type_id_v<ok_atom>);
}

TEST_F(message, types_lists_the_element_type_ids) {
  auto msg = make_message(1, 2.0, "three");
  EXPECT_TRUE(msg.types() == (troupe::type_id_list::of<int, double, std::string>()));
  EXPECT_EQ(msg.types().data(),
            (troupe::type_id_list::of<int, double, std::string>().data()));
}

TEST_F(message, get_as_tuple_returns_references_to_the_elements) {
  auto msg = make_message(1, std::string{"two"}, tracked{3});
  auto [x, str, t] = msg.get_as_tuple<int, std::string, tracked>();
  EXPECT_EQ(x, 1);
  EXPECT_EQ(str, "two");
  EXPECT_EQ(t.value, 3);
  EXPECT_EQ(&x, &msg.get_as<int>(0));
  EXPECT_EQ(&str, &msg.get_as<std::string>(1));
  EXPECT_EQ(&t, &msg.get_as<tracked>(2));
  EXPECT_EQ(tracked::copies, 0);
}

// -- empty messages --------------------------------------------------------------

TEST_F(message, a_default_message_is_empty) {
  troupe::message msg;
  EXPECT_TRUE(msg.empty());
  EXPECT_EQ(msg.size(), 0u);
  EXPECT_TRUE(msg.types().empty());
  EXPECT_TRUE(msg.match_elements<>());
  EXPECT_FALSE(msg.match_elements<int>());
  EXPECT_FALSE(msg.match_element<int>(0));
  EXPECT_EQ(to_string(msg), "message()");
}

TEST_F(message, make_message_without_arguments_is_empty) {
  auto msg = make_message();
  EXPECT_TRUE(msg.empty());
  EXPECT_TRUE(msg.match_elements<>());
  EXPECT_EQ(to_string(msg), "message()");
  auto copy = msg;
  copy.unshare();
  EXPECT_TRUE(copy.empty());
}

// -- printing --------------------------------------------------------------------

TEST_F(message, to_string_prints_every_element) {
  EXPECT_EQ(to_string(make_message(1, "two", 3.5, true)), R"(message(1, "two", 3.5, true))");
  EXPECT_EQ(to_string(make_message(std::vector<int32_t>{1, 2}, ok_atom_v)),
            "message([1, 2], ok_atom)");
  EXPECT_EQ(to_string(make_message(tracked{9})), "message(tracked(9))");
  EXPECT_EQ(to_string(make_message("say \"hi\"")), R"(message("say \"hi\""))");
}

TEST_F(message, to_string_prints_the_fields_of_types_with_inspect_and_a_placeholder_for_others) {
  EXPECT_EQ(to_string(make_message(position{1, -2}, 3)),
            "message(message_test::position(1, -2), 3)");
  EXPECT_EQ(to_string(make_message(std::vector<position>{{1, 2}, {3, 4}})),
            "message([message_test::position(1, 2), "
            "message_test::position(3, 4)])");
  EXPECT_EQ(to_string(make_message(handle{3}, position{})),
            "message(<unprintable>, message_test::position(0, 0))");
}

TEST_F(message, to_string_prints_errors_and_error_codes) {
  auto msg = make_message(troupe::errc::actor_down,
                          troupe::error{troupe::errc::request_timeout, "late"});
  EXPECT_EQ(to_string(msg),
            "message(actor_down, troupe::errc::request_timeout: late)");
}

// -- exceptions ------------------------------------------------------------------

TEST_F(message, a_throwing_copy_during_unshare_propagates_and_leaks_nothing) {
  {
    auto msg = make_message(tracked{1}, fragile{}, tracked{2}, blob{});
    auto copy = msg;
    auto* raw = msg.raw();
    fragile::fail = true;
    EXPECT_THROW(copy.get_mutable_as<tracked>(0).value = 5, std::runtime_error);
    // The first element was copied before the failure and is gone again.
    EXPECT_EQ(tracked::copies, 1);
    EXPECT_EQ(tracked::live, 2);
    EXPECT_EQ(fragile::live, 1);
    // Both handles still share the untouched original.
    EXPECT_EQ(copy.raw(), raw);
    EXPECT_EQ(msg.raw(), raw);
    EXPECT_FALSE(msg.unique());
    EXPECT_EQ(copy.get_as<tracked>(0).value, 1);
    EXPECT_THROW(copy.unshare(), std::runtime_error);
    fragile::fail = false;
    copy.get_mutable_as<tracked>(0).value = 5;
    EXPECT_NE(copy.raw(), raw);
    EXPECT_EQ(msg.get_as<tracked>(0).value, 1);
    EXPECT_EQ(tracked::live, 4);
    EXPECT_EQ(fragile::live, 2);
  }
  EXPECT_EQ(tracked::live, 0);
  EXPECT_EQ(fragile::live, 0);
}

TEST_F(message, make_message_with_a_throwing_constructor_leaks_nothing) {
  fragile source;
  fragile::fail = true;
  EXPECT_THROW(make_message(tracked{1}, tracked{2}, source, tracked{3}, blob{}),
               std::runtime_error);
  fragile::fail = false;
  EXPECT_EQ(tracked::live, 0) << "the two elements built before the throw are destroyed";
  EXPECT_EQ(fragile::live, 1) << "only the source is left";
  EXPECT_EQ(tracked::double_destructions, 0);
}

TEST_F(message, make_message_throwing_at_the_first_element_leaks_nothing) {
  fragile source;
  fragile::fail = true;
  EXPECT_THROW(make_message(source, tracked{1}, blob{}), std::runtime_error);
  fragile::fail = false;
  EXPECT_EQ(tracked::live, 0);
  EXPECT_EQ(fragile::live, 1);
}

// -- allocation failures ---------------------------------------------------------

TEST_F(message, make_message_leaks_nothing_when_an_allocation_fails) {
  tracked t{1};
  std::string str(100, 's');
  std::vector<int32_t> xs{1, 2, 3};
  blob b;
  auto before = troupe_test::allocations::large_live();
  auto make = [&] {
    auto msg = make_message(t, str, xs, b);
    EXPECT_EQ(msg.get_as<std::string>(1), str);
  };
  auto check = [&] {
    EXPECT_EQ(tracked::live, 1);
    EXPECT_EQ(troupe_test::allocations::large_live(), before);
  };
  auto failures = troupe_test::each_allocation_failing(make, check);
  // The message data, the string and the vector each allocate.
  EXPECT_GE(failures, 3);
}

TEST_F(message, unshare_leaks_nothing_and_keeps_sharing_when_an_allocation_fails) {
  auto msg = make_message(tracked{1}, std::string(100, 's'), std::vector<int32_t>{1, 2},
                          blob{});
  auto copy = msg;
  auto before = troupe_test::allocations::large_live();
  auto unshare = [&] { copy.unshare(); };
  auto check = [&] {
    EXPECT_EQ(copy.raw(), msg.raw()) << "a failed unshare keeps sharing";
    EXPECT_EQ(tracked::live, 1);
    EXPECT_EQ(troupe_test::allocations::large_live(), before);
  };
  auto failures = troupe_test::each_allocation_failing(unshare, check);
  EXPECT_GE(failures, 3);
  EXPECT_NE(copy.raw(), msg.raw());
  EXPECT_EQ(copy.get_as<std::string>(1), std::string(100, 's'));
  EXPECT_EQ(tracked::live, 2);
}
