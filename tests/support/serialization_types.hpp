#pragma once

// Types with inspect() overloads for the serialization tests, each showing
// one feature of the inspect API, with their own type-ID block.

#include "troupe/message.hpp"
#include "troupe/binary_deserializer.hpp"
#include "troupe/binary_serializer.hpp"
#include "troupe/serialization/inspect.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

namespace serialization_types {

// The two types of the CAF micro-benchmarks (seed 004).
struct foo {
  int32_t a = 0;
  int32_t b = 0;
  friend bool operator==(const foo&, const foo&) = default;
  friend auto operator<=>(const foo&, const foo&) = default;
};

template <class Inspector>
bool inspect(Inspector& f, foo& x) {
  return f.object(x).fields(f.field("a", x.a), f.field("b", x.b));
}

struct bar {
  foo a;
  std::string b;
  friend bool operator==(const bar&, const bar&) = default;
};

template <class Inspector>
bool inspect(Inspector& f, bar& x) {
  return f.object(x).fields(f.field("a", x.a), f.field("b", x.b));
}

// Private state, inspected by a hidden friend.
class secret {
public:
  secret() = default;
  explicit secret(std::string code) : code_(std::move(code)) {}

  const std::string& code() const {
    return code_;
  }

  friend bool operator==(const secret&, const secret&) = default;

  template <class Inspector>
  friend bool inspect(Inspector& f, secret& x) {
    return f.object(x).fields(f.field("code", x.code_));
  }

private:
  std::string code_;
};

// Private state behind accessors; the setter refuses negative values.
class counter {
public:
  int32_t value() const {
    return value_;
  }

  bool set_value(int32_t x) {
    if (x < 0)
      return false;
    value_ = x;
    return true;
  }

  friend bool operator==(const counter&, const counter&) = default;

private:
  int32_t value_ = 0;
};

template <class Inspector>
bool inspect(Inspector& f, counter& x) {
  return f.object(x).fields(f.field(
    "value", [&x] { return x.value(); }, [&x](int32_t v) { return x.set_value(v); }));
}

// A setter that explains its refusal with an error, and one returning void.
class percentage {
public:
  double get() const {
    return value_;
  }

  troupe::error set(double x) {
    if (x < 0 || x > 100)
      return troupe::make_error(troupe::errc::invalid_argument,
                                "a percentage lies between 0 and 100");
    value_ = x;
    return {};
  }

  std::string label;

  friend bool operator==(const percentage&, const percentage&) = default;

private:
  double value_ = 0;
};

template <class Inspector>
bool inspect(Inspector& f, percentage& x) {
  return f.object(x).fields(
    f.field("value", [&x] { return x.get(); }, [&x](double v) { return x.set(v); }),
    f.field("label", [&x]() -> const std::string& { return x.label; },
            [&x](std::string str) { x.label = std::move(str); }));
}

struct with_optionals {
  std::optional<std::string> label;
  std::optional<int32_t> count;
  friend bool operator==(const with_optionals&, const with_optionals&) = default;
};

template <class Inspector>
bool inspect(Inspector& f, with_optionals& x) {
  return f.object(x).fields(f.field("label", x.label), f.field("count", x.count));
}

struct with_fallback {
  int32_t retries = 0;
  std::string name;
  friend bool operator==(const with_fallback&, const with_fallback&) = default;
};

template <class Inspector>
bool inspect(Inspector& f, with_fallback& x) {
  return f.object(x).fields(f.field("retries", x.retries).fallback(3),
                            f.field("name", x.name).fallback("anonymous"));
}

struct with_invariant {
  int32_t size = 0;
  friend bool operator==(const with_invariant&, const with_invariant&) = default;
};

template <class Inspector>
bool inspect(Inspector& f, with_invariant& x) {
  return f.object(x).fields(
    f.field("size", x.size).fallback(1).invariant([](int32_t v) { return v >= 0; }));
}

// An enum that opts in to names.
enum class color : uint8_t { red, green, blue };

inline std::string to_string(color x) {
  switch (x) {
    case color::red:
      return "red";
    case color::green:
      return "green";
    case color::blue:
      return "blue";
  }
  return "color(" + std::to_string(static_cast<int>(x)) + ")";
}

inline bool from_string(std::string_view str, color& x) {
  for (auto c : {color::red, color::green, color::blue})
    if (to_string(c) == str) {
      x = c;
      return true;
    }
  return false;
}

// An enum that stays an integer.
enum class level : int16_t { low = -1, mid = 0, high = 1 };

// A type we pretend not to own: inspected through inspector_access.
struct legacy_point {
  int64_t x = 0;
  int64_t y = 0;
  friend bool operator==(const legacy_point&, const legacy_point&) = default;
};

// A registered type without inspect(): its hooks are null.
struct opaque {
  int32_t handle = 0;
};

// A registered type with inspect() but no default constructor.
struct no_default {
  explicit no_default(int32_t x) : value(x) {}
  int32_t value;
};

template <class Inspector>
bool inspect(Inspector& f, no_default& x) {
  return f.object(x).fields(f.field("value", x.value));
}

// Every standard type the inspect API knows, in one object.
struct everything {
  bool flag = false;
  char letter = 'a';
  int8_t i8 = 0;
  uint16_t u16 = 0;
  int32_t i32 = 0;
  uint64_t u64 = 0;
  long long ll = 0;
  float f32 = 0;
  double f64 = 0;
  long double f80 = 0;
  std::byte byte{};
  std::string str;
  std::u16string str16;
  std::u32string str32;
  std::wstring wide;
  std::vector<std::byte> bytes;
  std::vector<int32_t> ints;
  std::vector<bool> bits;
  std::list<std::string> names;
  std::deque<double> reals;
  std::array<int16_t, 3> triple{};
  std::set<int32_t> set;
  std::multiset<int32_t> multiset;
  std::unordered_set<std::string> hash_set;
  std::map<std::string, int32_t> map;
  std::multimap<int32_t, int32_t> multimap;
  std::unordered_map<int32_t, std::string> hash_map;
  std::optional<std::vector<int32_t>> maybe_ints;
  std::optional<foo> maybe_foo;
  std::variant<int32_t, std::string, foo> choice;
  std::variant<std::monostate, double> maybe_real;
  std::tuple<int32_t, std::string, double> tuple;
  std::pair<char, bool> pair;
  std::chrono::milliseconds timeout{0};
  std::chrono::duration<double> seconds{0};
  std::chrono::system_clock::time_point when;
  color hue = color::red;
  level grade = level::mid;
  std::vector<std::vector<foo>> nested;
  std::map<foo, std::vector<std::string>> by_foo;
  troupe::message msg;
  legacy_point point;

  friend bool operator==(const everything& x, const everything& y) {
    // troupe::message has no operator==: compare its printed form.
    auto fields = [](const everything& e) {
      return std::tie(e.flag, e.letter, e.i8, e.u16, e.i32, e.u64, e.ll, e.f32, e.f64, e.f80,
                      e.byte, e.str, e.str16, e.str32, e.wide, e.bytes, e.ints, e.bits, e.names,
                      e.reals, e.triple, e.set, e.multiset, e.hash_set, e.map, e.multimap,
                      e.hash_map, e.maybe_ints, e.maybe_foo, e.choice, e.maybe_real, e.tuple,
                      e.pair, e.timeout, e.seconds, e.when, e.hue, e.grade, e.nested, e.by_foo,
                      e.point);
    };
    return fields(x) == fields(y) && to_string(x.msg) == to_string(y.msg);
  }
};

template <class Inspector>
bool inspect(Inspector& f, everything& x) {
  return f.object(x).fields(
    f.field("flag", x.flag), f.field("letter", x.letter), f.field("i8", x.i8),
    f.field("u16", x.u16), f.field("i32", x.i32), f.field("u64", x.u64), f.field("ll", x.ll),
    f.field("f32", x.f32), f.field("f64", x.f64), f.field("f80", x.f80),
    f.field("byte", x.byte), f.field("str", x.str), f.field("str16", x.str16),
    f.field("str32", x.str32), f.field("wide", x.wide), f.field("bytes", x.bytes),
    f.field("ints", x.ints), f.field("bits", x.bits), f.field("names", x.names),
    f.field("reals", x.reals), f.field("triple", x.triple), f.field("set", x.set),
    f.field("multiset", x.multiset), f.field("hash_set", x.hash_set), f.field("map", x.map),
    f.field("multimap", x.multimap), f.field("hash_map", x.hash_map),
    f.field("maybe_ints", x.maybe_ints), f.field("maybe_foo", x.maybe_foo),
    f.field("choice", x.choice), f.field("maybe_real", x.maybe_real),
    f.field("tuple", x.tuple), f.field("pair", x.pair), f.field("timeout", x.timeout),
    f.field("seconds", x.seconds), f.field("when", x.when), f.field("hue", x.hue),
    f.field("grade", x.grade), f.field("nested", x.nested), f.field("by_foo", x.by_foo),
    f.field("msg", x.msg), f.field("point", x.point));
}

} // namespace serialization_types

template <>
struct troupe::enum_by_name<serialization_types::color> : std::true_type {};

template <>
struct troupe::inspector_access<serialization_types::legacy_point> {
  template <class Inspector>
  static bool apply(Inspector& f, serialization_types::legacy_point& x) {
    return f.object(x).pretty_name("legacy_point").fields(f.field("x", x.x), f.field("y", x.y));
  }
};

TROUPE_BEGIN_TYPE_ID_BLOCK(serialization_types, 2000)
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::foo))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::bar))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::secret))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::counter))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::with_optionals))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::with_invariant))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::color))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::level))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::opaque))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::no_default))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::everything))
  TROUPE_ADD_TYPE_ID(serialization_types, (serialization_types::legacy_point))
  TROUPE_ADD_ATOM(serialization_types, beep_atom)
TROUPE_END_TYPE_ID_BLOCK(serialization_types)

namespace serialization_types {

/// An `everything` with a value in each field.
inline everything make_everything() {
  everything x;
  x.flag = true;
  x.letter = 'z';
  x.i8 = -128;
  x.u16 = 65535;
  x.i32 = -123456;
  x.u64 = 0xFEDCBA9876543210ull;
  x.ll = -1;
  x.f32 = 1.5f;
  x.f64 = -0.1;
  x.f80 = 1.0L / 3;
  x.byte = std::byte{0xAB};
  x.str = std::string{"with \0 zero", 11};
  x.str16 = u"h\u00e9llo";
  x.str32 = std::u32string(1, U'\U0001F600'); // (GCC 12 warns on the literal)
  x.wide = L"wide";
  x.bytes = {std::byte{0}, std::byte{255}};
  x.ints = {1, -2, 3};
  x.bits = {true, false, true};
  x.names = {"a", "", "c"};
  x.reals = {0.5, -2.25};
  x.triple = {1, 2, -3};
  x.set = {3, 1, 2};
  x.multiset = {1, 1, 2};
  x.hash_set = {"x", "y"};
  x.map = {{"one", 1}, {"two", 2}};
  x.multimap = {{1, 10}, {1, 11}, {2, 20}};
  x.hash_map = {{7, "seven"}};
  x.maybe_ints = std::vector<int32_t>{4, 5};
  x.maybe_foo = std::nullopt;
  x.choice = foo{1, 2};
  x.maybe_real = 2.5;
  x.tuple = {42, "answer", 4.2};
  x.pair = {'p', true};
  x.timeout = std::chrono::milliseconds{1500};
  x.seconds = std::chrono::duration<double>{0.25};
  x.when = std::chrono::system_clock::time_point{std::chrono::seconds{1700000000}};
  x.hue = color::blue;
  x.grade = level::low;
  x.nested = {{foo{1, 1}}, {}, {foo{2, 2}, foo{3, 3}}};
  x.by_foo = {{foo{1, 2}, {"a"}}, {foo{0, 0}, {}}};
  x.msg = troupe::make_message(int32_t{7}, std::string{"seven"}, bar{foo{1, 2}, "b"});
  x.point = legacy_point{-5, 5};
  return x;
}

} // namespace serialization_types
