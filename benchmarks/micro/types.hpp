#pragma once

// What every micro program works on, whatever system it is written for (plain
// C++17: the CAF programs include it too). The types and values follow the
// micro-benchmarks CAF published with 0.18 (seed 004).

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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

/// Iterations of `int_queue` per repetition, the same in every program. On
/// glibc's malloc the time per int grows from one iteration to the next (a
/// million messages in flight fragment the heap: CAF 1.1 measured 229 ms for
/// the first and about 500 for the 25th; Troupe, before it linked mimalloc,
/// 73 and about 200), so a count set by time would make the faster system
/// run more, and slower, iterations.
inline constexpr int64_t int_queue_iterations = 3;

/// Buffer capacity reserved before each save, as in CAF's benchmarks.
inline constexpr size_t save_reserve = 512;

/// Bytes `alloc_copy_floor` copies: more than any save case writes (foo 8,
/// bar 14, a message of two int32 13 in Troupe's format).
inline constexpr size_t floor_payload = 16;

/// The floor of a save case, the same in every program: reserve a buffer
/// as the save cases do, copy a payload into it, free it. Seed 004's
/// targets exempt a case within 2x of this.
inline void alloc_copy_floor(benchmark::State& state) {
  std::array<std::byte, floor_payload> payload{};
  benchmark::DoNotOptimize(payload);
  for (auto _ : state) {
    std::vector<std::byte> buf;
    buf.reserve(save_reserve);
    buf.insert(buf.end(), payload.begin(), payload.end());
    benchmark::DoNotOptimize(buf);
  }
}

} // namespace micro
