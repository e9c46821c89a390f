#pragma once

// The computations of the locality study, shared by its Troupe and CAF
// programs so that both do the same work and reach the same checksum: a
// seeded generator, the sequential kernels, and the reference results main
// checks against. Plain C++17: the CAF 0.17 programs include it too.

#include "common/options.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace locality {

// -- sizes ---------------------------------------------------------------------
// One table per case, shared by every system's program.

/// BIG's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> big_sizes() {
  return {
    {"actors", 700, 1'000, "actors, each pings all others"},
  };
}

/// BANG's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> bang_sizes() {
  return {
    {"senders", 1'000, 1'000, "sending actors"},
    {"messages", 1'000, 1'000, "messages each sender sends"},
  };
}

/// LOGM's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> logm_sizes() {
  return {
    {"terms", 2'500, 25'000, "terms each series computes"},
    {"series", 10, 10, "series: pairs of a worker and a rate computer"},
  };
}

/// APSP's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> apsp_sizes() {
  return {
    {"nodes", 300, 300, "nodes of the graph"},
    {"block", 50, 50, "rows and columns of a block"},
    {"max-weight", 100, 100, "largest edge weight"},
  };
}

/// CDICT's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> cdict_sizes() {
  return {
    {"workers", 20, 20, "workers sending requests"},
    {"messages", 10'000, 10'000, "requests per worker"},
    {"keys", 4'096, 4'096, "keys in the dictionary"},
    {"value-words", 1, 1, "64-bit words per value (the sweep: 8 to 4096)"},
    {"write-percent", 10, 10, "share of writes among the requests"},
  };
}

/// CSLL's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> csll_sizes() {
  return {
    {"workers", 20, 20, "workers sending requests"},
    {"messages", 3'000, 8'000, "requests per worker"},
    {"initial", 1'000, 1'000, "values in the list at the start"},
    {"size-percent", 1, 1, "share of size requests"},
    {"write-percent", 10, 10, "share of writes"},
  };
}

/// NQN's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> nqn_sizes() {
  return {
    {"size", 12, 12, "rows and columns of the board (at most 20)"},
    {"workers", 20, 20, "workers"},
    {"threshold", 4, 4, "queens from which a worker counts on its own"},
    {"priorities", 10, 10, "priority of the first board"},
  };
}

/// TRAPR's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> trapr_sizes() {
  return {
    {"pieces", 10'000'000, 10'000'000, "trapezoids in all"},
    {"workers", 100, 100, "workers, one share each"},
  };
}

/// PUBSUB's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> pubsub_sizes() {
  return {
    {"publishers", 20, 20, "publishers"},
    {"subscribers", 1'000, 1'000, "subscribers"},
    {"subscriptions", 4, 4, "publishers each subscriber joins"},
    {"messages", 200, 2'000, "messages each publisher sends"},
  };
}

/// CHAT's sizes: quick and full defaults (README.md).
inline std::vector<bench::size_flag> chat_sizes() {
  return {
    {"sessions", 100'000, 1'000'000, "users, one session actor each"},
    {"groups", 1'000, 10'000, "chat groups (0: direct messages only)"},
    {"max-friends", 100, 100, "most friends a user has (at least 1)"},
    {"max-groups", 10, 10, "most groups a user joins"},
    {"max-blocked", 5, 5, "most users a user blocks"},
    {"seconds", 2, 10, "timer ticks of each session, one message each"},
  };
}

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

/// Steady-clock nanoseconds: the timestamps of PUBSUB and CHAT messages.
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

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

// -- CHAT ----------------------------------------------------------------------

// The chat server of the seed's section V.C: who is whose friend, who is in
// which group and who blocks whom, drawn with a seed; each session's
// messages, drawn from a generator of its own, so that main knows how many
// deliveries a run makes; the XOR stand-in for encryption; and counters each
// worker thread keeps for itself, summed by main.

namespace locality {

/// A user's lists, ids only (the handles are in a table the actors share):
/// its friends, then its groups, then the users it blocks, each sorted and
/// without repeats, in one vector to keep a million sessions small.
struct chat_user {
  std::vector<uint32_t> ids;
  uint16_t friends = 0;
  uint16_t groups = 0;
  uint16_t blocked = 0;

  const uint32_t* friend_ids() const noexcept {
    return ids.data();
  }

  const uint32_t* group_ids() const noexcept {
    return ids.data() + friends;
  }

  bool blocks(uint32_t user) const noexcept {
    const uint32_t* first = ids.data() + friends + groups;
    return std::find(first, first + blocked, user) != first + blocked;
  }
};

/// Appends `count` distinct values below `range` to `out`, sorted, none of
/// them `skip` (no value is skipped if skip >= range); fewer if the range
/// has fewer.
inline void chat_draw_distinct(random& rng, uint64_t count, uint64_t range, uint64_t skip,
                               std::vector<uint32_t>& out) {
  auto base = static_cast<std::ptrdiff_t>(out.size());
  auto choices = skip < range ? range - 1 : range;
  count = std::min(count, choices);
  while (out.size() - static_cast<size_t>(base) < count) {
    auto missing = count - (out.size() - static_cast<size_t>(base));
    for (uint64_t i = 0; i < missing; ++i) {
      auto v = rng.below(choices);
      if (skip < range && v >= skip)
        ++v;
      out.push_back(static_cast<uint32_t>(v));
    }
    std::sort(out.begin() + base, out.end());
    out.erase(std::unique(out.begin() + base, out.end()), out.end());
  }
}

/// What is wrong with CHAT's sizes, or null: ids are 32 bits with the top
/// one marking groups, and a user's list lengths 16 bits. --groups=0 is
/// allowed (direct messages only); the list lengths are capped by how many
/// users and groups there are.
inline const char* chat_size_error(uint64_t sessions, uint64_t groups, uint64_t max_friends,
                                   uint64_t max_groups, uint64_t max_blocked, uint64_t seconds) {
  constexpr uint64_t max_id = (uint64_t{1} << 31) - 1;
  if (sessions < 2 || sessions > max_id)
    return "--sessions must be 2 to 2^31 - 1 (a user needs a friend)";
  if (groups > max_id)
    return "--groups must be below 2^31";
  if (max_friends == 0 || max_friends > 65'535)
    return "--max-friends must be 1 to 65535";
  if (max_groups > 65'535 || max_blocked > 65'535)
    return "--max-groups and --max-blocked must be at most 65535";
  if (seconds == 0 || seconds > 1'000'000)
    return "--seconds must be 1 to 1000000";
  return nullptr;
}

/// Every user's lists: 1 to max_friends friends, 0 to max_groups groups and
/// 0 to max_blocked blocked users, each count uniform, capped by how many
/// others there are; nobody is their own friend or blocks themself.
inline std::vector<chat_user> chat_users(uint64_t sessions, uint64_t groups, uint64_t max_friends,
                                         uint64_t max_groups, uint64_t max_blocked) {
  std::vector<chat_user> users(sessions);
  random rng{0xc4a75e55};
  for (uint64_t s = 0; s < sessions; ++s) {
    auto& u = users[s];
    auto friends = std::min(1 + rng.below(max_friends), sessions - 1);
    auto memberships = groups == 0 ? 0 : std::min(rng.below(max_groups + 1), groups);
    auto blocked = std::min(rng.below(max_blocked + 1), sessions - 1);
    u.ids.reserve(friends + memberships + blocked);
    chat_draw_distinct(rng, friends, sessions, s, u.ids);
    chat_draw_distinct(rng, memberships, groups, groups, u.ids);
    chat_draw_distinct(rng, blocked, sessions, s, u.ids);
    u.friends = static_cast<uint16_t>(friends);
    u.groups = static_cast<uint16_t>(memberships);
    u.blocked = static_cast<uint16_t>(blocked);
  }
  return users;
}

/// The subscribers of each group, in user order.
inline std::vector<std::vector<uint32_t>> chat_members(const std::vector<chat_user>& users,
                                                       uint64_t groups) {
  std::vector<uint64_t> sizes(groups, 0);
  for (const auto& u : users)
    for (uint16_t i = 0; i < u.groups; ++i)
      ++sizes[u.group_ids()[i]];
  std::vector<std::vector<uint32_t>> result(groups);
  for (uint64_t g = 0; g < groups; ++g)
    result[g].reserve(sizes[g]);
  for (uint64_t s = 0; s < users.size(); ++s)
    for (uint16_t i = 0; i < users[s].groups; ++i)
      result[users[s].group_ids()[i]].push_back(static_cast<uint32_t>(s));
  return result;
}

/// The generator of session s's timer and messages.
inline random chat_session_random(uint64_t session) {
  return random{0x63686174'00000000ULL ^ session};
}

/// Session s's key for the XOR "cipher".
inline uint64_t chat_key(uint64_t session) {
  random rng{0x6b6579'00000000ULL ^ session};
  return rng.next();
}

/// The first draw of a session: when its first tick comes, in nanoseconds
/// after the start (within the first second, in microsteps).
inline int64_t chat_first_tick(random& rng) {
  return static_cast<int64_t>(rng.below(1'000'000)) * 1000;
}

inline constexpr uint32_t chat_max_length = 1023;

/// Group ids travel to the logs with this bit set.
inline constexpr uint32_t chat_group_bit = uint32_t{1} << 31;

/// One message a session makes at a tick.
struct chat_message {
  bool to_group;
  uint32_t target; // a user or a group id
  uint32_t length; // 1 to chat_max_length bytes
  uint64_t fill;   // seed of its words

  /// The receiver as the logs record it.
  uint32_t address() const noexcept {
    return to_group ? target | chat_group_bit : target;
  }
};

/// The next message of a session: 5% to one of its groups (to a friend if
/// it has none), the rest to a friend.
inline chat_message chat_next_message(random& rng, const chat_user& u) {
  chat_message m{};
  m.length = static_cast<uint32_t>(1 + rng.below(chat_max_length));
  m.fill = rng.next();
  if (rng.below(100) < 5 && u.groups > 0) {
    m.to_group = true;
    m.target = u.group_ids()[rng.below(u.groups)];
  } else {
    m.to_group = false;
    m.target = u.friend_ids()[rng.below(u.friends)];
  }
  return m;
}

/// Deliveries of a run: each session makes `ticks` messages; one to a
/// friend is one delivery, one to a group one per subscriber (the sender
/// among them).
inline uint64_t chat_expected_deliveries(const std::vector<chat_user>& users,
                                         const std::vector<std::vector<uint32_t>>& members,
                                         uint64_t ticks) {
  uint64_t result = 0;
  for (uint64_t s = 0; s < users.size(); ++s) {
    auto rng = chat_session_random(s);
    chat_first_tick(rng);
    for (uint64_t t = 0; t < ticks; ++t) {
      auto m = chat_next_message(rng, users[s]);
      result += m.to_group ? members[m.target].size() : 1;
    }
  }
  return result;
}

/// What the client sends: words fill, fill + φ, ... (the tail a part of the
/// next), "encrypted" with the client's key.
inline void chat_client_text(uint8_t* out, size_t len, uint64_t fill, uint64_t key) {
  size_t i = 0;
  for (; i + 8 <= len; i += 8, fill += 0x9e3779b97f4a7c15ULL) {
    uint64_t w = fill ^ key;
    std::memcpy(out + i, &w, 8);
  }
  if (i < len) {
    uint64_t w = fill ^ key;
    std::memcpy(out + i, &w, len - i);
  }
}

/// The cipher stand-in, in place: XOR with the key word by word; applied
/// twice it gives the text back.
inline void chat_xor(uint8_t* data, size_t len, uint64_t key) {
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, data + i, 8);
    w ^= key;
    std::memcpy(data + i, &w, 8);
  }
  if (i < len) {
    uint64_t w = 0;
    std::memcpy(&w, data + i, len - i);
    w ^= key;
    std::memcpy(data + i, &w, len - i);
  }
}

/// The same from `in` into `out` (as long); returns the sum of the words
/// written, which the caller keeps so that the work stays.
inline uint64_t chat_xor_copy(uint8_t* out, const uint8_t* in, size_t len, uint64_t key) {
  uint64_t sum = 0;
  size_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, in + i, 8);
    w ^= key;
    std::memcpy(out + i, &w, 8);
    sum += w;
  }
  if (i < len) {
    uint64_t w = 0;
    std::memcpy(&w, in + i, len - i);
    w ^= key;
    std::memcpy(out + i, &w, len - i);
    sum += w;
  }
  return sum;
}

/// A message's text as it travels inside the server: shared and immutable,
/// so that the logs and a group's fan-out copy no byte.
struct chat_text {
  std::shared_ptr<const std::vector<uint8_t>> bytes;
};

/// The hash of one log entry (FNV-1a over the words).
inline uint64_t chat_log_entry(uint32_t sender, uint32_t to, const chat_text& text) {
  constexpr uint64_t prime = 0x100000001b3ULL;
  const auto& bytes = *text.bytes;
  uint64_t h = 0xcbf29ce484222325ULL;
  h = (h ^ ((uint64_t{sender} << 32) | to)) * prime;
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = (h ^ w) * prime;
  }
  if (i < bytes.size()) {
    uint64_t w = 0;
    std::memcpy(&w, bytes.data() + i, bytes.size() - i);
    h = (h ^ w) * prime;
  }
  h = (h ^ bytes.size()) * prime;
  return h ^ (h >> 29);
}

/// What the actors running on one worker thread count. Each thread makes
/// its own at first use (chat_counters::mine), so that no counter is
/// written by two threads; main sums the atomics while the run goes on and
/// reads the rest once the workers are gone.
struct alignas(64) chat_counters {
  std::atomic<uint64_t> ready{0};      // sessions that have spawned their logger
  std::atomic<uint64_t> deliveries{0}; // messages that reached a session
  std::atomic<uint64_t> logged{0};     // entries the loggers and the registry took
  uint64_t blocked = 0;                // deliveries from a blocked sender
  uint64_t cached = 0;                 // entries the loggers took
  uint64_t cache_digest = 0;           // sum of their chat_log_entry
  uint64_t cipher = 0;                 // sum of chat_xor_copy
  int64_t first_tick = std::numeric_limits<int64_t>::max();
  int64_t last_delivery = std::numeric_limits<int64_t>::min();
  latency_histogram latency;
  std::vector<uint8_t> scratch; // what a session sends its client

  /// Adds one to a counter only this thread writes.
  static void bump(std::atomic<uint64_t>& x) noexcept {
    x.store(x.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }

  /// The counters of the calling thread.
  static chat_counters& mine() {
    thread_local chat_counters* result = nullptr;
    if (result == nullptr) {
      auto& all = registry();
      std::lock_guard<std::mutex> guard{all.mtx};
      all.list.emplace_back(new chat_counters);
      result = all.list.back().get();
      result->scratch.resize(chat_max_length);
    }
    return *result;
  }

  /// Calls f(const chat_counters&) for every thread's counters.
  template <class F>
  static void for_each(F f) {
    auto& all = registry();
    std::lock_guard<std::mutex> guard{all.mtx};
    for (const auto& x : all.list)
      f(*x);
  }

private:
  struct list_type {
    std::mutex mtx;
    std::vector<std::unique_ptr<chat_counters>> list;
  };

  static list_type& registry() {
    static list_type instance;
    return instance;
  }
};

/// A session's tick, the same in every system: its message drawn, the text
/// as the client sent it (encrypted) and as the server has it (decrypted),
/// and the tick counted. The caller sends it.
struct chat_tick {
  int64_t stamp;
  chat_message message;
  chat_text text;
};

inline chat_tick chat_make_tick(random& rng, const chat_user& user, uint64_t key) {
  auto stamp = now_ns();
  auto& c = chat_counters::mine();
  c.first_tick = std::min(c.first_tick, stamp);
  auto m = chat_next_message(rng, user);
  auto bytes = std::make_shared<std::vector<uint8_t>>(m.length);
  chat_client_text(bytes->data(), m.length, m.fill, key);
  chat_xor(bytes->data(), m.length, key);
  return {stamp, m, chat_text{std::move(bytes)}};
}

/// How long until tick `ticked` (counting from 0), due that many seconds
/// after the first however late the last one ran; in ns, at least 0.
inline int64_t chat_next_tick_in(int64_t start, int64_t first_tick, uint32_t ticked) {
  auto due = start + first_tick + static_cast<int64_t>(ticked) * 1'000'000'000;
  return std::max<int64_t>(due - now_ns(), 0);
}

/// What a session does with a message it receives: drops it if it blocks
/// the sender, else encrypts it for its client and records the latency from
/// the sender's tick; counts the delivery either way.
inline void chat_receive(const chat_user& user, uint64_t key, uint32_t sender, int64_t stamp,
                         const chat_text& text) {
  auto& c = chat_counters::mine();
  bool blocked = user.blocks(sender);
  if (blocked) {
    ++c.blocked;
  } else {
    const auto& bytes = *text.bytes;
    c.cipher += chat_xor_copy(c.scratch.data(), bytes.data(), bytes.size(), key);
  }
  auto t = now_ns();
  if (!blocked)
    c.latency.record(t - stamp);
  c.last_delivery = std::max(c.last_delivery, t);
  chat_counters::bump(c.deliveries);
}

/// The live counters summed over the threads.
struct chat_progress {
  uint64_t ready = 0;
  uint64_t deliveries = 0;
  uint64_t logged = 0;

  static chat_progress now() {
    chat_progress result;
    chat_counters::for_each([&](const chat_counters& c) {
      result.ready += c.ready.load(std::memory_order_relaxed);
      result.deliveries += c.deliveries.load(std::memory_order_relaxed);
      result.logged += c.logged.load(std::memory_order_relaxed);
    });
    return result;
  }

  bool operator!=(const chat_progress& other) const noexcept {
    return ready != other.ready || deliveries != other.deliveries || logged != other.logged;
  }
};

/// Polls the counters every 5 ms until done(chat_progress) holds; false if
/// none of them moved for `stall` (prints what it waited for).
template <class Done>
bool chat_wait(const char* what, Done done,
               std::chrono::seconds stall = std::chrono::seconds{300}) {
  auto last = chat_progress::now();
  auto moved = std::chrono::steady_clock::now();
  for (;;) {
    auto p = chat_progress::now();
    if (done(p))
      return true;
    auto t = std::chrono::steady_clock::now();
    if (p != last) {
      last = p;
      moved = t;
    } else if (t - moved > stall) {
      std::fprintf(stderr,
                   "gave up waiting for %s: nothing moved for %lld s (ready %llu, "
                   "deliveries %llu, logged %llu)\n",
                   what, static_cast<long long>(stall.count()),
                   static_cast<unsigned long long>(p.ready),
                   static_cast<unsigned long long>(p.deliveries),
                   static_cast<unsigned long long>(p.logged));
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  }
}

/// What a log keeps: its entries and the sum of their hashes.
struct chat_log {
  uint64_t entries = 0;
  uint64_t digest = 0;
};

/// Prints the metrics of a CHAT run (once the workers are gone) and checks
/// that the registry and the loggers logged the same `messages` entries;
/// returns main's exit status for that check.
inline int chat_report(const chat_log& registry, uint64_t messages) {
  latency_histogram latency;
  uint64_t deliveries = 0;
  uint64_t blocked = 0;
  uint64_t cached = 0;
  uint64_t cache_digest = 0;
  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  chat_counters::for_each([&](const chat_counters& c) {
    latency.merge(c.latency);
    deliveries += c.deliveries.load(std::memory_order_relaxed);
    blocked += c.blocked;
    cached += c.cached;
    cache_digest += c.cache_digest;
    first = std::min(first, c.first_tick);
    last = std::max(last, c.last_delivery);
  });
  double seconds = last > first ? static_cast<double>(last - first) / 1e9 : 0;
  std::printf("metric deliveries %llu count\n", static_cast<unsigned long long>(deliveries));
  std::printf("metric blocked %llu count\n", static_cast<unsigned long long>(blocked));
  std::printf("metric throughput %.0f msg/s\n",
              seconds > 0 ? static_cast<double>(deliveries) / seconds : 0.0);
  report_latency(latency);
  if (registry.entries == messages && cached == messages && registry.digest == cache_digest)
    return 0;
  std::fprintf(stderr,
               "wrong logs: registry %llu entries, loggers %llu, expected %llu; digests %s\n",
               static_cast<unsigned long long>(registry.entries),
               static_cast<unsigned long long>(cached),
               static_cast<unsigned long long>(messages),
               registry.digest == cache_digest ? "agree" : "differ");
  return 1;
}

} // namespace locality
