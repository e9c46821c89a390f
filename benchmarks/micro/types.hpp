#pragma once

// What every micro program works on, whatever system it is written for (plain
// C++17: the CAF programs include it too). The types and values follow the
// micro-benchmarks CAF published with 0.18 (seed 004).

#include <cstdint>
#include <string>

namespace micro {

/// A plain pair of integers.
struct foo {
  int32_t a = 0;
  int32_t b = 0;
};

inline bool operator==(const foo& x, const foo& y) {
  return x.a == y.a && x.b == y.b;
}

/// A type holding another custom type, so that inspecting it recurses.
struct bar {
  foo a;
  std::string b;
};

inline bool operator==(const bar& x, const bar& y) {
  return x.a == y.a && x.b == y.b;
}

inline const foo foo_value{10, 20};
inline const bar bar_value{foo{1, 2}, "three"};

/// Integers one actor sends another per iteration of `int_queue`.
inline constexpr int32_t int_queue_ints = 1'000'000;

/// Buffer capacity reserved before each save, as in CAF's benchmarks.
inline constexpr size_t save_reserve = 512;

} // namespace micro
