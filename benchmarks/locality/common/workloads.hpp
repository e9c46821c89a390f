#pragma once

// The computations of the locality study, shared by its Troupe and CAF
// programs so that both do the same work and reach the same checksum: a
// seeded generator, the sequential kernels, and the reference results main
// checks against. Plain C++17: the CAF 0.17 programs include it too.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace locality {

/// SplitMix64: the same sequence on every platform, unlike the standard
/// distributions.
class random {
public:
  explicit random(uint64_t seed) noexcept : state_(seed) {}

  uint64_t next() noexcept {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  /// Uniform in [0, bound) (bound much smaller than 2^32).
  uint64_t below(uint64_t bound) noexcept {
    return (next() >> 32) % bound;
  }

private:
  uint64_t state_;
};

// -- LOGM ----------------------------------------------------------------------

inline double logistic_next(double term, double rate) {
  return rate * term * (1 - term);
}

/// Series i starts at i * increment with rate start_rate + i * increment
/// (Savina's logmap); a term in fixed point, so that summing the series in
/// any order gives the same integer.
inline uint64_t logistic_fixed(double term) {
  return static_cast<uint64_t>(std::llround(term * 1e15));
}

inline uint64_t logistic_expected(uint64_t terms, uint64_t series, double start_rate,
                                  double increment) {
  uint64_t sum = 0;
  for (uint64_t i = 0; i < series; ++i) {
    double rate = start_rate + static_cast<double>(i) * increment;
    double term = static_cast<double>(i) * increment;
    for (uint64_t t = 0; t < terms; ++t)
      term = logistic_next(term, rate);
    sum += logistic_fixed(term);
  }
  return sum;
}

// -- APSP ----------------------------------------------------------------------

/// A square block of the distance matrix, row-major.
using apsp_block = std::vector<int64_t>;

/// The symmetric weight matrix of Savina's apsp: weights 1..max_weight, 0 on
/// the diagonal, n * n row-major.
inline std::vector<int64_t> apsp_graph(uint64_t n, uint64_t max_weight) {
  std::vector<int64_t> graph(n * n, 0);
  random rng{n};
  for (uint64_t i = 0; i < n; ++i)
    for (uint64_t j = i + 1; j < n; ++j)
      graph[i * n + j] = graph[j * n + i] = static_cast<int64_t>(rng.below(max_weight) + 1);
  return graph;
}

/// Block (row, col) of an n * n matrix cut into blocks of b * b.
inline apsp_block apsp_block_of(const std::vector<int64_t>& graph, uint64_t n, uint64_t b,
                                uint64_t row, uint64_t col) {
  apsp_block result(b * b);
  for (uint64_t i = 0; i < b; ++i)
    for (uint64_t j = 0; j < b; ++j)
      result[i * b + j] = graph[(row * b + i) * n + col * b + j];
  return result;
}

/// One Floyd-Warshall step k on a block: `own` as of step k - 1, `row_k`
/// the block of the same block row that holds column k, `col_k` the block of
/// the same block column that holds row k (either may be `own`).
inline apsp_block apsp_step(const apsp_block& own, const apsp_block& row_k,
                            const apsp_block& col_k, uint64_t b, uint64_t k) {
  apsp_block next(b * b);
  uint64_t kk = k % b;
  for (uint64_t i = 0; i < b; ++i)
    for (uint64_t j = 0; j < b; ++j)
      next[i * b + j] = std::min(own[i * b + j], row_k[i * b + kk] + col_k[kk * b + j]);
  return next;
}

inline uint64_t apsp_sum(const apsp_block& block) {
  uint64_t sum = 0;
  for (auto x : block)
    sum += static_cast<uint64_t>(x);
  return sum;
}

/// Sum of all shortest distances, sequentially.
inline uint64_t apsp_expected(std::vector<int64_t> d, uint64_t n) {
  for (uint64_t k = 0; k < n; ++k)
    for (uint64_t i = 0; i < n; ++i)
      for (uint64_t j = 0; j < n; ++j)
        d[i * n + j] = std::min(d[i * n + j], d[i * n + k] + d[k * n + j]);
  return apsp_sum(d);
}

// -- CDICT and CSLL ------------------------------------------------------------

/// The value of a key: it never changes, so a read returns the same words
/// whichever writes came first, and the checksum does not depend on timing.
inline std::vector<uint64_t> dictionary_value(uint64_t key, uint64_t words) {
  std::vector<uint64_t> result(words);
  for (uint64_t i = 0; i < words; ++i)
    result[i] = key * 0x9e3779b97f4a7c15ULL + i;
  return result;
}

inline uint64_t words_sum(const std::vector<uint64_t>& xs) {
  uint64_t sum = 0;
  for (auto x : xs)
    sum += x;
  return sum;
}

/// words_sum(dictionary_value(key, words)) without building the value.
inline uint64_t dictionary_value_sum(uint64_t key, uint64_t words) {
  uint64_t triangle = words % 2 == 0 ? (words / 2) * (words - 1) : words * ((words - 1) / 2);
  return words * key * 0x9e3779b97f4a7c15ULL + triangle;
}

/// Seed of worker `id`'s request stream.
inline uint64_t worker_seed(uint64_t id) {
  return 0x5eed0000ULL + id;
}

/// What CDICT's workers sum over the answers to their reads: each replays
/// its request stream (write or read, then the key).
inline uint64_t dictionary_expected(uint64_t workers, uint64_t messages, uint64_t keys,
                                    uint64_t words, uint64_t write_percent) {
  uint64_t sum = 0;
  for (uint64_t id = 0; id < workers; ++id) {
    random rng{worker_seed(id)};
    for (uint64_t i = 0; i < messages; ++i) {
      auto write = rng.below(100) < write_percent;
      auto key = rng.below(keys);
      if (!write)
        sum += dictionary_value_sum(key, words);
    }
  }
  return sum;
}

/// A CSLL request: writes insert odd values, so whether a read (always of
/// an even value) finds its value depends on the initial list alone, never
/// on which writes came first. The list starts with the even values below
/// 2 * initial; reads ask for values below 4 * initial, half of them there.
struct list_request {
  enum kind_t { size, write, contains } kind;
  uint64_t value;
};

inline list_request next_list_request(random& rng, uint64_t initial, uint64_t size_percent,
                                      uint64_t write_percent) {
  auto r = rng.below(100);
  if (r < size_percent)
    return {list_request::size, 0};
  if (r < size_percent + write_percent)
    return {list_request::write, 2 * rng.below(2 * initial) + 1};
  return {list_request::contains, 2 * rng.below(2 * initial)};
}

/// What CSLL's workers count: reads that found their value, plus answers to
/// size requests between the initial size and the final one.
inline uint64_t list_expected(uint64_t workers, uint64_t messages, uint64_t initial,
                              uint64_t size_percent, uint64_t write_percent) {
  uint64_t sum = 0;
  for (uint64_t id = 0; id < workers; ++id) {
    random rng{worker_seed(id)};
    for (uint64_t i = 0; i < messages; ++i) {
      auto req = next_list_request(rng, initial, size_percent, write_percent);
      auto found = req.kind == list_request::contains && req.value < 2 * initial;
      if (req.kind == list_request::size || found)
        ++sum;
    }
  }
  return sum;
}

/// Writes in a CSLL run, for the final size of the list.
inline uint64_t list_writes(uint64_t workers, uint64_t messages, uint64_t initial,
                            uint64_t size_percent, uint64_t write_percent) {
  uint64_t writes = 0;
  for (uint64_t id = 0; id < workers; ++id) {
    random rng{worker_seed(id)};
    for (uint64_t i = 0; i < messages; ++i)
      if (next_list_request(rng, initial, size_percent, write_percent).kind == list_request::write)
        ++writes;
  }
  return writes;
}

// -- NQN -----------------------------------------------------------------------

/// Solutions of the n-queens problem for n = 1..20.
inline constexpr uint64_t nqueens_solutions[] = {
  1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512,
  95815104, 666090624, 4968057848ULL, 39029188884ULL};

/// True if the queen just placed in the last row of `board` (one column per
/// row) attacks none of the others.
inline bool nqueens_valid(const std::vector<int32_t>& board) {
  auto n = board.size();
  if (n < 2)
    return true;
  auto q = board[n - 1];
  for (size_t i = 0; i + 1 < n; ++i) {
    auto p = board[i];
    auto dist = static_cast<int32_t>(n - 1 - i);
    if (p == q || p == q - dist || p == q + dist)
      return false;
  }
  return true;
}

/// Solutions that complete `board` on a size * size board, sequentially.
inline uint64_t nqueens_count(std::vector<int32_t>& board, int32_t size) {
  if (static_cast<int32_t>(board.size()) == size)
    return 1;
  uint64_t result = 0;
  for (int32_t col = 0; col < size; ++col) {
    board.push_back(col);
    if (nqueens_valid(board))
      result += nqueens_count(board, size);
    board.pop_back();
  }
  return result;
}

// -- TRAPR ---------------------------------------------------------------------

/// Savina's trapezoid integrand.
inline double trapezoid_fx(double x) {
  double a = std::sin(std::pow(x, 3) - 1);
  double b = x + 1;
  double d = std::sqrt(1 + std::exp(std::sqrt(2 * x)));
  return a / b * d;
}

/// The trapezoid rule over `pieces` pieces of width h from `left`.
inline double trapezoid_area(double left, double h, uint64_t pieces) {
  double area = 0;
  for (uint64_t i = 0; i < pieces; ++i) {
    double lx = left + static_cast<double>(i) * h;
    area += 0.5 * (trapezoid_fx(lx) + trapezoid_fx(lx + h)) * h;
  }
  return area;
}

/// A worker's area in fixed point (1e-12), so that the master's sum does not
/// depend on the order the results arrive in.
inline int64_t trapezoid_fixed(double area) {
  return std::llround(area * 1e12);
}

/// The integral by Simpson's rule on `intervals` intervals: accurate enough
/// to check the trapezoid sum, at a fraction of its cost.
inline double trapezoid_reference(double left, double right, uint64_t intervals) {
  intervals += intervals % 2;
  double h = (right - left) / static_cast<double>(intervals);
  double sum = trapezoid_fx(left) + trapezoid_fx(right);
  for (uint64_t i = 1; i < intervals; ++i)
    sum += (i % 2 == 1 ? 4 : 2) * trapezoid_fx(left + static_cast<double>(i) * h);
  return sum * h / 3;
}

/// Prints the checksum line `label=value` of a result that is checked
/// against a reference within `tolerance` instead of exactly; returns main's
/// exit status (1: outside the tolerance).
inline int checksum_close(const char* label, double got, double reference, double tolerance,
                          double scale) {
  std::printf("%s=%lld\n", label, static_cast<long long>(std::llround(got * scale)));
  if (std::fabs(got - reference) <= tolerance)
    return 0;
  std::fprintf(stderr, "wrong result: %s=%.12f, expected %.12f within %g\n", label, got,
               reference, tolerance);
  return 1;
}

// -- PUBSUB --------------------------------------------------------------------

/// A latency histogram in nanoseconds: exact below 64 ns, then 32 buckets
/// per power of two (at most 3% off). Subscribers each keep one and main
/// merges them, so a run keeps no sample.
class latency_histogram {
public:
  void record(int64_t ns) {
    auto v = static_cast<uint64_t>(std::max<int64_t>(ns, 0));
    ++counts_[index_of(v)];
    ++count_;
    max_ = std::max(max_, v);
  }

  void merge(const latency_histogram& other) {
    for (size_t i = 0; i < buckets; ++i)
      counts_[i] += other.counts_[i];
    count_ += other.count_;
    max_ = std::max(max_, other.max_);
  }

  uint64_t count() const noexcept {
    return count_;
  }

  uint64_t max() const noexcept {
    return max_;
  }

  /// The smallest recorded value's bucket such that a share q of the
  /// samples is at most it, as the bucket's middle (q in [0, 1]).
  double quantile(double q) const {
    if (count_ == 0)
      return 0;
    auto rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
    rank = std::max<uint64_t>(rank, 1);
    uint64_t seen = 0;
    for (size_t i = 0; i < buckets; ++i) {
      seen += counts_[i];
      if (seen >= rank)
        return std::min(middle_of(i), static_cast<double>(max_));
    }
    return static_cast<double>(max_);
  }

private:
  static constexpr size_t linear = 64;
  static constexpr size_t sub_bits = 5;
  static constexpr size_t buckets = linear + (64 - 6) * (size_t{1} << sub_bits);

  static size_t index_of(uint64_t v) {
    if (v < linear)
      return static_cast<size_t>(v);
    size_t e = 63 - static_cast<size_t>(__builtin_clzll(v));
    size_t sub = static_cast<size_t>(v >> (e - sub_bits)) & ((size_t{1} << sub_bits) - 1);
    return linear + (e - 6) * (size_t{1} << sub_bits) + sub;
  }

  static double middle_of(size_t i) {
    if (i < linear)
      return static_cast<double>(i);
    size_t e = (i - linear) / (size_t{1} << sub_bits) + 6;
    size_t sub = (i - linear) % (size_t{1} << sub_bits);
    double width = std::ldexp(1.0, static_cast<int>(e - sub_bits));
    return std::ldexp(1.0, static_cast<int>(e)) + (static_cast<double>(sub) + 0.5) * width;
  }

  std::array<uint64_t, buckets> counts_{};
  uint64_t count_ = 0;
  uint64_t max_ = 0;
};

/// The subscribers of publisher p: subscriber s subscribes to `per_subscriber`
/// distinct publishers drawn with a seed (the same in every system).
inline std::vector<std::vector<uint64_t>> pubsub_subscriptions(uint64_t publishers,
                                                               uint64_t subscribers,
                                                               uint64_t per_subscriber) {
  std::vector<std::vector<uint64_t>> result(subscribers);
  random rng{0x9b5b};
  per_subscriber = std::min(per_subscriber, publishers);
  for (auto& mine : result) {
    while (mine.size() < per_subscriber) {
      auto p = rng.below(publishers);
      if (std::find(mine.begin(), mine.end(), p) == mine.end())
        mine.push_back(p);
    }
  }
  return result;
}

/// Prints the latency metrics of a PUBSUB run in microseconds.
inline void report_latency(const latency_histogram& h) {
  const struct {
    const char* name;
    double q;
  } points[] = {{"latency_p50", 0.5}, {"latency_p90", 0.9}, {"latency_p99", 0.99},
                {"latency_p999", 0.999}};
  for (auto& p : points)
    std::printf("metric %s %.1f us\n", p.name, h.quantile(p.q) / 1e3);
  std::printf("metric latency_max %.1f us\n", static_cast<double>(h.max()) / 1e3);
}

} // namespace locality
