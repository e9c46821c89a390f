#pragma once

// The types the deserializer fuzzers load: a record with nested strings,
// sequences, optionals, a variant, maps of both JSON forms, an enum by name,
// a duration, a time point, bytes and a message; and an envelope that nests
// messages. Only ordered containers, so that saving a loaded value twice
// gives the same bytes.

#include "troupe/message.hpp"
#include "troupe/serialization/inspect.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace fuzz_types {

struct point {
  int32_t x = 0;
  int32_t y = 0;
};

template <class Inspector>
bool inspect(Inspector& f, point& p) {
  return f.object(p).fields(f.field("x", p.x), f.field("y", p.y));
}

enum class shape : uint8_t { circle, square, triangle };

inline std::string to_string(shape x) {
  switch (x) {
    case shape::circle:
      return "circle";
    case shape::square:
      return "square";
    case shape::triangle:
      return "triangle";
  }
  return "shape(" + std::to_string(static_cast<int>(x)) + ")";
}

inline bool from_string(std::string_view str, shape& x) {
  for (auto s : {shape::circle, shape::square, shape::triangle})
    if (to_string(s) == str) {
      x = s;
      return true;
    }
  return false;
}

struct record {
  std::string name;
  std::vector<int64_t> values;
  std::optional<std::string> note;
  std::variant<int32_t, std::string, point> choice;
  std::map<std::string, double> weights;
  std::map<int32_t, std::vector<point>> groups;
  std::set<std::u16string> tags;
  shape outline = shape::circle;
  uint16_t retries = 3;
  std::chrono::milliseconds timeout{0};
  std::chrono::system_clock::time_point when;
  std::vector<std::byte> payload;
  std::pair<char, float> mark;
  long double precise = 0;
  std::vector<std::optional<bool>> flags;
  troupe::message msg;
};

template <class Inspector>
bool inspect(Inspector& f, record& x) {
  return f.object(x).fields(
    f.field("name", x.name), f.field("values", x.values), f.field("note", x.note),
    f.field("choice", x.choice), f.field("weights", x.weights), f.field("groups", x.groups),
    f.field("tags", x.tags), f.field("outline", x.outline),
    f.field("retries", x.retries).fallback(3).invariant([](uint16_t n) { return n <= 10; }),
    f.field("timeout", x.timeout), f.field("when", x.when), f.field("payload", x.payload),
    f.field("mark", x.mark), f.field("precise", x.precise), f.field("flags", x.flags),
    f.field("msg", x.msg));
}

/// Carries a message, as envelopes and forwarding wrappers do: messages
/// inside messages, as deep as the input likes.
struct envelope {
  troupe::message msg;
};

template <class Inspector>
bool inspect(Inspector& f, envelope& x) {
  return f.object(x).fields(f.field("msg", x.msg));
}

} // namespace fuzz_types

template <>
struct troupe::enum_by_name<fuzz_types::shape> : std::true_type {};

TROUPE_BEGIN_TYPE_ID_BLOCK(fuzz_types, 3000)
  TROUPE_ADD_TYPE_ID(fuzz_types, (fuzz_types::point))
  TROUPE_ADD_TYPE_ID(fuzz_types, (fuzz_types::shape))
  TROUPE_ADD_TYPE_ID(fuzz_types, (fuzz_types::record))
  TROUPE_ADD_TYPE_ID(fuzz_types, (fuzz_types::envelope))
TROUPE_END_TYPE_ID_BLOCK(fuzz_types)
