#pragma once

// What every program of the patterns study shares besides its application:
// the seeded generator, the timer of the parallel part, and hashing of
// results. Plain C++17: the CAF 0.17 programs include it too.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace patterns {

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): tiny, and the same sequence on every platform,
/// unlike the standard distributions.
class random {
public:
  explicit random(uint64_t seed) noexcept : state_(seed) {}

  uint64_t next() noexcept {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, 1) with 24 significant bits, exact in a float.
  float unit_float() noexcept {
    return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
  }

  /// Uniform integer in [lo, hi] (hi - lo much smaller than 2^32).
  int64_t between(int64_t lo, int64_t hi) noexcept {
    auto span = static_cast<uint64_t>(hi - lo + 1);
    return lo + static_cast<int64_t>((next() >> 32) % span);
  }

private:
  uint64_t state_;
};

/// The finaliser of SplitMix64: spreads the bits of one value.
inline uint64_t mix(uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

/// Order-dependent hash of the bit patterns of `n` floats: two results are
/// equal only if every element is bit-identical.
inline uint64_t hash_floats(const float* xs, size_t n) noexcept {
  uint64_t h = 0x84222325cbf29ce4ULL;
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, xs + i, sizeof bits);
    h = mix(h ^ (bits + 0x9e3779b97f4a7c15ULL * (i + 1)));
  }
  return h;
}

/// Times the parallel computation alone (input generation and the check
/// excluded) and prints it as `metric compute <seconds> s`, which
/// tools/bench.py records as the metric `compute`.
class compute_timer {
public:
  compute_timer() noexcept : start_(std::chrono::steady_clock::now()) {}

  double stop() const noexcept {
    std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start_;
    std::printf("metric compute %.6f s\n", elapsed.count());
    return elapsed.count();
  }

private:
  std::chrono::steady_clock::time_point start_;
};

} // namespace patterns
