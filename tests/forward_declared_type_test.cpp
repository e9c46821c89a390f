// A type ID block may name types that are only declared at that point, as
// CAF's examples do; the types are defined (with inspect) after the block.
#include "troupe/message.hpp"
#include "troupe/binary_deserializer.hpp"
#include "troupe/binary_serializer.hpp"
#include "troupe/json_reader.hpp"
#include "troupe/json_writer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fwd_test {
struct order;
enum class side : uint8_t;
} // namespace fwd_test

TROUPE_BEGIN_TYPE_ID_BLOCK(forward_declared_type_test, 2500)
  TROUPE_ADD_TYPE_ID(forward_declared_type_test, (fwd_test::order))
  TROUPE_ADD_TYPE_ID(forward_declared_type_test, (fwd_test::side))
TROUPE_END_TYPE_ID_BLOCK(forward_declared_type_test)

namespace fwd_test {

enum class side : uint8_t { buy, sell };

std::string to_string(side x) {
  return x == side::buy ? "buy" : "sell";
}

struct order {
  std::string symbol;
  std::vector<int32_t> lots;
  side direction = side::buy;

  friend bool operator==(const order&, const order&) = default;
};

template <class Inspector>
bool inspect(Inspector& f, order& x) {
  return f.object(x).fields(f.field("symbol", x.symbol), f.field("lots", x.lots),
                            f.field("direction", x.direction));
}

} // namespace fwd_test

namespace {

using fwd_test::order;
using fwd_test::side;

TEST(forward_declared_type, gets_the_id_and_name_of_its_block) {
  EXPECT_EQ(troupe::type_id_v<order>, 2500);
  EXPECT_EQ(troupe::type_id_v<side>, 2501);
  EXPECT_EQ(troupe::query_type_name(2500), "fwd_test::order");
  EXPECT_EQ(troupe::query_type_id("fwd_test::side"), 2501);
}

TEST(forward_declared_type, travels_in_a_message_and_prints_through_inspect) {
  auto msg = troupe::make_message(order{"ACME", {1, 2}, side::sell}, side::buy);
  ASSERT_TRUE((msg.match_elements<order, side>()));
  EXPECT_EQ(msg.get_as<order>(0), (order{"ACME", {1, 2}, side::sell}));
  EXPECT_EQ(troupe::deep_to_string(msg),
            "message(fwd_test::order(\"ACME\", [1, 2], sell), buy)");
}

TEST(forward_declared_type, round_trips_through_binary_and_json) {
  auto msg = troupe::make_message(order{"XYZ", {7}, side::buy});
  auto bytes = troupe::to_binary(msg);
  ASSERT_TRUE(bytes) << to_string(bytes.error());
  auto from_bytes = troupe::from_binary<troupe::message>(*bytes);
  ASSERT_TRUE(from_bytes) << to_string(from_bytes.error());
  EXPECT_EQ(from_bytes->get_as<order>(0), (order{"XYZ", {7}, side::buy}));
  auto text = troupe::to_json(msg);
  ASSERT_TRUE(text) << to_string(text.error());
  auto from_text = troupe::from_json<troupe::message>(*text);
  ASSERT_TRUE(from_text) << to_string(from_text.error());
  EXPECT_EQ(from_text->get_as<order>(0), (order{"XYZ", {7}, side::buy}));
}

} // namespace
