#include "troupe/serialization/inspect.hpp"

#include "../support/serialization_types.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

using namespace serialization_types;
using troupe::errc;
using troupe::from_binary;
using troupe::to_binary;
using troupe::type_id_t;

namespace {

// A writer that logs every call of the inspector interface, as a JSON
// writer would see them (human-readable: enums by name).
class recorder : public troupe::save_inspector<recorder> {
public:
  static constexpr bool has_human_readable_format = true;

  std::vector<std::string> log;

  void set_error(troupe::error err) {
    if (!err_)
      err_ = std::move(err);
  }

  const troupe::error& get_error() const noexcept {
    return err_;
  }

  bool begin_object(type_id_t id, std::string_view name) {
    return add("object " + std::string{name} + " #" + std::to_string(id));
  }
  bool end_object() {
    return add("end_object");
  }
  bool begin_field(std::string_view name) {
    return add("field " + std::string{name});
  }
  bool begin_field(std::string_view name, bool is_present) {
    return add("field " + std::string{name} + (is_present ? " present" : " absent"));
  }
  bool end_field() {
    return add("end_field");
  }
  bool begin_optional(bool is_present) {
    return add(is_present ? "optional present" : "optional absent");
  }
  bool end_optional() {
    return add("end_optional");
  }
  bool begin_variant(size_t index, std::span<const std::string_view> types) {
    std::string entry = "variant " + std::to_string(index) + " of";
    for (auto name : types)
      entry += " [" + std::string{name} + "]";
    return add(std::move(entry));
  }
  bool end_variant() {
    return add("end_variant");
  }
  bool begin_tuple(size_t size) {
    return add("tuple " + std::to_string(size));
  }
  bool end_tuple() {
    return add("end_tuple");
  }
  bool begin_sequence(size_t size) {
    return add("sequence " + std::to_string(size));
  }
  bool end_sequence() {
    return add("end_sequence");
  }
  bool begin_associative_array(size_t size) {
    return add("map " + std::to_string(size));
  }
  bool end_associative_array() {
    return add("end_map");
  }
  bool begin_key_value_pair() {
    return add("entry");
  }
  bool end_key_value_pair() {
    return add("end_entry");
  }

  template <class T>
    requires std::is_arithmetic_v<T>
  bool value(T x) {
    if constexpr (std::is_same_v<T, bool>)
      return add(x ? "true" : "false");
    else if constexpr (std::is_floating_point_v<T>)
      return add(std::to_string(static_cast<double>(x)));
    else
      return add(std::to_string(+x));
  }
  bool value(std::string_view x) {
    return add('"' + std::string{x} + '"');
  }
  bool value(std::u16string_view x) {
    return add("u16 of " + std::to_string(x.size()));
  }
  bool value(std::u32string_view x) {
    return add("u32 of " + std::to_string(x.size()));
  }
  bool value(std::span<const std::byte> x) {
    return add("bytes of " + std::to_string(x.size()));
  }
  bool value(const troupe::message& x) {
    return add(to_string(x));
  }

private:
  bool add(std::string entry) {
    log.push_back(std::move(entry));
    return true;
  }

  troupe::error err_;
};

template <class T>
std::vector<std::string> record(const T& x) {
  recorder f;
  EXPECT_TRUE(f.apply(x));
  return f.log;
}

using log_t = std::vector<std::string>;

template <class T>
T round_trip(const T& x) {
  auto bytes = to_binary(x);
  EXPECT_TRUE(bytes) << to_string(bytes.error());
  if (!bytes)
    return T{};
  auto result = from_binary<T>(*bytes);
  EXPECT_TRUE(result) << to_string(result.error());
  return result ? std::move(*result) : T{};
}

} // namespace

// -- what inspectors see -------------------------------------------------------------

TEST(inspect, objects_announce_their_type_and_fields_by_name) {
  auto id = std::to_string(troupe::type_id_v<foo>);
  auto bar_id = std::to_string(troupe::type_id_v<bar>);
  EXPECT_EQ(record(bar{foo{1, 2}, "x"}),
            (log_t{"object serialization_types::bar #" + bar_id, "field a",
                   "object serialization_types::foo #" + id, "field a", "1", "end_field",
                   "field b", "2", "end_field", "end_object", "end_field", "field b", "\"x\"",
                   "end_field", "end_object"}));
}

TEST(inspect, a_type_without_type_id_is_anonymous_unless_it_names_itself) {
  struct local {
    int32_t n = 0;
  };
  struct inspector_of_local {
    static bool apply(recorder& f, local& x) {
      return f.object(x).fields(f.field("n", x.n));
    }
  };
  recorder f;
  local x;
  EXPECT_TRUE(inspector_of_local::apply(f, x));
  EXPECT_EQ(f.log.front(), "object anonymous #65535");
  EXPECT_EQ(record(legacy_point{1, 2}).front(),
            "object legacy_point #" + std::to_string(troupe::type_id_v<legacy_point>));
}

TEST(inspect, optional_fields_say_whether_they_are_present) {
  EXPECT_EQ(record(with_optionals{std::string{"l"}, std::nullopt}),
            (log_t{"object serialization_types::with_optionals #"
                     + std::to_string(troupe::type_id_v<with_optionals>),
                   "field label present", "\"l\"", "end_field", "field count absent",
                   "end_field", "end_object"}));
}

TEST(inspect, fields_with_a_fallback_may_be_absent_but_are_always_written) {
  auto log = record(with_fallback{7, "n"});
  EXPECT_EQ(log[1], "field retries present");
  EXPECT_EQ(log[2], "7");
  EXPECT_EQ(log[4], "field name present");
}

TEST(inspect, accessor_fields_are_saved_through_their_getter) {
  counter c;
  ASSERT_TRUE(c.set_value(5));
  EXPECT_EQ(record(c), (log_t{"object serialization_types::counter #"
                                + std::to_string(troupe::type_id_v<counter>),
                              "field value", "5", "end_field", "end_object"}));
}

TEST(inspect, containers_are_framed_as_sequences_maps_and_tuples) {
  EXPECT_EQ(record(std::vector<int32_t>{1, 2}),
            (log_t{"sequence 2", "1", "2", "end_sequence"}));
  EXPECT_EQ(record(std::map<std::string, int32_t>{{"k", 1}}),
            (log_t{"map 1", "entry", "\"k\"", "1", "end_entry", "end_map"}));
  EXPECT_EQ(record(std::pair<int32_t, bool>{3, true}),
            (log_t{"tuple 2", "3", "true", "end_tuple"}));
  EXPECT_EQ(record(std::array<uint8_t, 2>{4, 5}), (log_t{"tuple 2", "4", "5", "end_tuple"}));
  EXPECT_EQ(record(std::vector<bool>{true, false}),
            (log_t{"sequence 2", "true", "false", "end_sequence"}));
}

TEST(inspect, variants_name_every_alternative_that_has_a_type_id) {
  std::variant<int32_t, std::string, std::monostate> x = std::string{"s"};
  EXPECT_EQ(record(x), (log_t{"variant 1 of [int32_t] [std::string] []", "\"s\"",
                              "end_variant"}));
}

TEST(inspect, optionals_outside_fields_are_framed) {
  EXPECT_EQ(record(std::optional<int32_t>{}), (log_t{"optional absent", "end_optional"}));
  EXPECT_EQ(record(std::optional<int32_t>{9}),
            (log_t{"optional present", "9", "end_optional"}));
}

TEST(inspect, opted_in_enums_are_names_in_human_readable_formats_and_others_integers) {
  EXPECT_EQ(record(color::green), (log_t{"\"green\""}));
  EXPECT_EQ(record(level::low), (log_t{"-1"}));
}

TEST(inspect, bytes_strings_durations_and_messages_are_single_values) {
  EXPECT_EQ(record(std::vector<std::byte>(3)), (log_t{"bytes of 3"}));
  EXPECT_EQ(record(std::byte{7}), (log_t{"7"}));
  EXPECT_EQ(record(std::u16string{u"ab"}), (log_t{"u16 of 2"}));
  EXPECT_EQ(record(std::chrono::milliseconds{12}), (log_t{"12"}));
  EXPECT_EQ(record(std::chrono::system_clock::time_point{std::chrono::seconds{1}}).size(), 1u);
  EXPECT_EQ(record(troupe::make_message(int32_t{1})), (log_t{"message(1)"}));
}

TEST(inspect, empty_classes_are_objects_without_fields) {
  EXPECT_EQ(record(beep_atom_v),
            (log_t{"object beep_atom #" + std::to_string(troupe::type_id_v<beep_atom>),
                   "end_object"}));
  EXPECT_EQ(record(troupe::unit).size(), 2u);
}

// -- which types are inspectable --------------------------------------------------------

TEST(inspect, inspectability_follows_the_elements_of_standard_types) {
  using troupe::detail::is_inspectable_v;
  static_assert(is_inspectable_v<foo>);
  static_assert(is_inspectable_v<secret>);
  static_assert(is_inspectable_v<legacy_point>);
  static_assert(is_inspectable_v<everything>);
  static_assert(is_inspectable_v<std::map<int32_t, std::vector<foo>>>);
  static_assert(!is_inspectable_v<opaque>);
  static_assert(!is_inspectable_v<std::vector<opaque>>);
  static_assert(!is_inspectable_v<std::optional<opaque>>);
  static_assert(!is_inspectable_v<std::variant<int32_t, opaque>>);
  static_assert(!is_inspectable_v<std::map<opaque, int32_t>>);
  static_assert(!is_inspectable_v<std::pair<int32_t, opaque>>);
  static_assert(!is_inspectable_v<std::optional<no_default>>,
                "an optional loads by default-constructing its value");
  static_assert(!is_inspectable_v<int*>);
  SUCCEED();
}

TEST(inspect, minimum_binary_sizes_bound_what_a_count_may_claim) {
  using troupe::detail::min_binary_size;
  static_assert(min_binary_size<int64_t>() == 8);
  static_assert(min_binary_size<bool>() == 1);
  static_assert(min_binary_size<level>() == 2);
  static_assert(min_binary_size<std::string>() == 1);
  static_assert(min_binary_size<std::pair<int32_t, int16_t>>() == 6);
  static_assert(min_binary_size<beep_atom>() == 0);
  static_assert(min_binary_size<foo>() == 1);
  static_assert(min_binary_size<std::chrono::milliseconds>() == 8);
  SUCCEED();
}

TEST(inspect, registered_types_without_inspect_have_null_hooks) {
  auto* meta = troupe::detail::global_meta_object(troupe::type_id_v<opaque>);
  ASSERT_NE(meta, nullptr);
  EXPECT_EQ(meta->save_binary, nullptr);
  EXPECT_EQ(meta->load_binary, nullptr);
  auto* foo_meta = troupe::detail::global_meta_object(troupe::type_id_v<foo>);
  EXPECT_NE(foo_meta->save_binary, nullptr);
  EXPECT_NE(foo_meta->load_binary, nullptr);
  auto* int_meta = troupe::detail::global_meta_object(troupe::type_id_v<int32_t>);
  EXPECT_NE(int_meta->save_binary, nullptr);
  auto* nd_meta = troupe::detail::global_meta_object(troupe::type_id_v<no_default>);
  EXPECT_NE(nd_meta->load_binary, nullptr);
  EXPECT_EQ(nd_meta->default_construct, nullptr);
}

// -- round trips through the binary format -------------------------------------------

TEST(inspect, every_supported_type_round_trips) {
  auto x = make_everything();
  EXPECT_EQ(round_trip(x), x);
  EXPECT_EQ(round_trip(everything{}), everything{});
}

TEST(inspect, user_types_round_trip) {
  EXPECT_EQ(round_trip(foo{-1, 1}), (foo{-1, 1}));
  EXPECT_EQ(round_trip(bar{foo{3, 4}, "four"}), (bar{foo{3, 4}, "four"}));
  EXPECT_EQ(round_trip(secret{"s3cr3t"}).code(), "s3cr3t");
  EXPECT_EQ(round_trip(legacy_point{-9, 9}), (legacy_point{-9, 9}));
  EXPECT_EQ(round_trip(with_optionals{}), with_optionals{});
  EXPECT_EQ(round_trip(with_optionals{std::string{""}, 0}),
            (with_optionals{std::string{""}, 0}));
}

TEST(inspect, accessor_fields_round_trip_through_their_setter) {
  counter c;
  ASSERT_TRUE(c.set_value(77));
  EXPECT_EQ(round_trip(c).value(), 77);
  percentage p;
  ASSERT_FALSE(p.set(50));
  p.label = "half";
  auto back = round_trip(p);
  EXPECT_EQ(back.get(), 50);
  EXPECT_EQ(back.label, "half");
}

TEST(inspect, an_absent_fallback_field_loads_its_fallback) {
  // Presence bytes 0: both fields absent.
  std::vector<std::byte> bytes{std::byte{0}, std::byte{0}};
  auto x = from_binary<with_fallback>(bytes);
  ASSERT_TRUE(x) << to_string(x.error());
  EXPECT_EQ(x->retries, 3);
  EXPECT_EQ(x->name, "anonymous");
}

TEST(inspect, a_broken_invariant_fails_with_an_error_naming_the_field) {
  auto bytes = to_binary(with_invariant{-4});
  ASSERT_TRUE(bytes);
  auto x = from_binary<with_invariant>(*bytes);
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error(), errc::invalid_field);
  EXPECT_EQ(x.error().context(),
            "serialization_types::with_invariant.size: the value breaks the field's invariant");
  EXPECT_EQ(round_trip(with_invariant{4}).size, 4);
}

TEST(inspect, an_absent_field_with_fallback_still_passes_its_invariant) {
  std::vector<std::byte> bytes{std::byte{0}};
  auto x = from_binary<with_invariant>(bytes);
  ASSERT_TRUE(x) << to_string(x.error());
  EXPECT_EQ(x->size, 1);
}

TEST(inspect, a_setter_returning_false_fails_with_an_error_naming_the_field) {
  auto bytes = to_binary(int32_t{-3}); // counter is one int32 field
  ASSERT_TRUE(bytes);
  auto x = from_binary<counter>(*bytes);
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error(), errc::invalid_field);
  EXPECT_EQ(x.error().context(), "serialization_types::counter.value: the setter rejected the value");
}

TEST(inspect, a_setter_returning_an_error_passes_it_on_with_the_field_path) {
  troupe::byte_buffer bytes;
  ASSERT_FALSE(to_binary(150.0, bytes));
  ASSERT_FALSE(to_binary(std::string{"l"}, bytes));
  auto x = from_binary<percentage>(bytes);
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error(), errc::invalid_argument);
  EXPECT_EQ(x.error().context(),
            "anonymous.value: a percentage lies between 0 and 100");
}

TEST(inspect, enums_are_their_underlying_integer_in_binary) {
  auto bytes = to_binary(level::high);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, (troupe::byte_buffer{std::byte{1}, std::byte{0}}));
  auto hue = to_binary(color::blue);
  ASSERT_TRUE(hue);
  EXPECT_EQ(*hue, (troupe::byte_buffer{std::byte{2}}));
  EXPECT_EQ(round_trip(color::green), color::green);
  EXPECT_EQ(round_trip(static_cast<level>(1234)), static_cast<level>(1234))
    << "enums without names accept any value of their underlying type";
}

TEST(inspect, an_opted_in_enum_rejects_integers_that_name_no_enumerator) {
  std::vector<std::byte> bytes{std::byte{7}};
  auto x = from_binary<color>(bytes);
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error(), errc::malformed_input);
  EXPECT_EQ(x.error().context(), "no enumerator has the value 7");
}
