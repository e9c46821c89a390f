#pragma once

// quicksort (after Savina's parallelism benchmark QuickSort): sort `size`
// int32 values from a seeded generator. A problem of at most `cutoff`
// elements is sorted sequentially; a larger one is partitioned in place
// around a pivot into [< pivot | == pivot | > pivot] and the outer two parts
// are sorted independently (in parallel, except in `sequential`).
// Plain C++17: the CAF 0.17 programs include it too.

#include "common/options.hpp"
#include "patterns/common/util.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace patterns::quicksort {

inline constexpr uint64_t quick_size = 4'000'000;
inline constexpr uint64_t full_size = 10'000'000;
inline constexpr uint64_t default_cutoff = 2'000;
inline constexpr uint64_t seed = 0x5eed0001;

inline std::vector<int32_t> make_input(size_t size) {
  random rng{seed};
  std::vector<int32_t> xs(size);
  for (auto& x : xs)
    x = static_cast<int32_t>(static_cast<uint32_t>(rng.next() >> 32));
  return xs;
}

/// Order-independent hash of the multiset of values: the same for the input
/// and for any permutation of it, so a sort that loses, duplicates or
/// changes an element changes it.
inline uint64_t multiset_hash(const int32_t* xs, size_t n) noexcept {
  uint64_t sum = 0;
  for (size_t i = 0; i < n; ++i)
    sum += mix(static_cast<uint64_t>(static_cast<uint32_t>(xs[i])) + 0x9e3779b97f4a7c15ULL);
  return sum;
}

/// What every version must print: the input's multiset hash.
inline uint64_t expected_checksum(const std::vector<int32_t>& input) noexcept {
  return multiset_hash(input.data(), input.size());
}

/// The multiset hash of `xs` if it is sorted, else 0 (and says where not).
inline uint64_t result_checksum(const std::vector<int32_t>& xs) {
  for (size_t i = 1; i < xs.size(); ++i) {
    if (xs[i - 1] > xs[i]) {
      std::fprintf(stderr, "not sorted at index %zu\n", i);
      return 0;
    }
  }
  return multiset_hash(xs.data(), xs.size());
}

/// The base case: a problem no larger than the cutoff.
inline void sort_base(int32_t* first, size_t n) {
  std::sort(first, first + n);
}

/// Three-way partition of [first, first + n) in place around the median of
/// the first, middle and last element. Returns {lt, gt}: [0, lt) is below
/// the pivot, [lt, gt) equal to it, [gt, n) above. [lt, gt) is never empty,
/// so every recursion makes progress.
inline std::pair<size_t, size_t> partition(int32_t* first, size_t n) noexcept {
  int32_t a = first[0], b = first[n / 2], c = first[n - 1];
  int32_t pivot = std::max(std::min(a, b), std::min(std::max(a, b), c));
  size_t lt = 0, i = 0, gt = n;
  while (i < gt) {
    if (first[i] < pivot)
      std::swap(first[lt++], first[i++]);
    else if (first[i] > pivot)
      std::swap(first[i], first[--gt]);
    else
      ++i;
  }
  return {lt, gt};
}

/// The whole sort on one thread: what `sequential` runs.
inline void sort_sequential(int32_t* first, size_t n, size_t cutoff) {
  while (n > cutoff) {
    auto [lt, gt] = partition(first, n);
    sort_sequential(first, lt, cutoff);
    first += gt;
    n -= gt;
  }
  sort_base(first, n);
}

/// The command line every version of quicksort takes.
inline bench::options parse_options(int argc, char** argv) {
  return bench::options{argc, argv,
                        {{"size", quick_size, full_size, "int32 values to sort"},
                       {"cutoff", default_cutoff, default_cutoff,
                        "largest problem sorted without splitting it"}}};
}

} // namespace patterns::quicksort
