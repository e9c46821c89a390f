#pragma once

// What every program of the streaming study shares besides its application:
// the command line, the source's pacing, the sink's checksum and latency
// samples, and the report. Plain C++17: the CAF 0.17 programs include it.
//
// Every tuple carries `ts`, the time (steady clock, ns) its source emitted
// it, or 0 at full speed, where reading the clock per tuple would cost more
// than some operators do.

#include "common/memory.hpp"
#include "common/options.hpp"
#include "patterns/common/util.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace streaming {

using patterns::mix;
using patterns::random;

inline int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
           std::chrono::steady_clock::now().time_since_epoch())
    .count();
}

/// FNV-1a: the key of a string, the same in every program (std::hash is not
/// specified).
inline uint64_t fnv1a(std::string_view s) noexcept {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

/// Order-independent checksum of a multiset of tuple hashes: a sum of mixed
/// hashes, so sink replicas add their parts and the arrival order does not
/// matter.
struct checksum {
  uint64_t sum = 0;
  uint64_t count = 0;

  void add(uint64_t h) noexcept {
    sum += mix(h + 0x9e3779b97f4a7c15ULL);
    ++count;
  }

  void merge(const checksum& other) noexcept {
    sum += other.sum;
    count += other.count;
  }

  /// One number for the checksum line: the count matters too.
  uint64_t value() const noexcept {
    return sum ^ mix(count);
  }
};

/// Latencies (ns) of every `every`-th tuple a sink receives, when the
/// tuples carry timestamps.
class latency_sampler {
public:
  explicit latency_sampler(uint64_t every = 100) noexcept : every_(every) {}

  void record(int64_t ts) {
    if (ts != 0 && seen_++ % every_ == 0)
      samples_.push_back(now_ns() - ts);
  }

  void merge(const latency_sampler& other) {
    samples_.insert(samples_.end(), other.samples_.begin(), other.samples_.end());
  }

  /// The p-th percentile (0 < p < 100) in microseconds, or -1 without samples.
  double percentile_us(double p) {
    if (samples_.empty())
      return -1.0;
    auto index = static_cast<size_t>(p / 100.0 * static_cast<double>(samples_.size() - 1));
    std::nth_element(samples_.begin(), samples_.begin() + static_cast<long>(index),
                     samples_.end());
    return static_cast<double>(samples_[index]) / 1000.0;
  }

  size_t size() const noexcept {
    return samples_.size();
  }

private:
  uint64_t every_;
  uint64_t seen_ = 0;
  std::vector<int64_t> samples_;
};

/// The state of one sink replica: the checksum of what it received and
/// latency samples: of every 100th tuple, or of every tuple where the sink
/// gets only a few per 100 source tuples (FraudDetection's outliers,
/// SpikeDetection's spikes: `sample_every` in their headers).
/// `tuple_hash(x)` is found by ADL in the tuple's namespace.
class sink {
public:
  explicit sink(uint64_t sample_every = 100) : latency_(sample_every) {}

  template <class T>
  void consume(const T& x) {
    sum_.add(tuple_hash(x));
    latency_.record(x.ts);
  }

  void merge(sink& other) {
    sum_.merge(other.sum_);
    latency_.merge(other.latency_);
  }

  checksum& sum() noexcept {
    return sum_;
  }

  latency_sampler& latency() noexcept {
    return latency_;
  }

private:
  checksum sum_;
  latency_sampler latency_;
};

/// The command line of every program:
///
///   <case> --threads=T [--scale=quick|full] [--replicas=R] [--rate=N] [--<size>=N]
///
/// --replicas=0 (the default) replicates every operator to --threads,
/// --replicas=1 runs one replica per operator. --rate=0 (the default) runs
/// the sources at full speed; --rate=N paces them to N tuples/s in all,
/// stamps every tuple, and the sinks sample the latency of every 100th.
/// At a rate, the sources replay at most `rate_seconds` of tuples.
class run_options {
public:
  run_options(int argc, char** argv, std::initializer_list<bench::size_flag> sizes)
    : opts_(argc, argv, with_common(sizes)) {}

  size_t threads() const noexcept {
    return opts_.threads();
  }

  /// Replicas of every operator.
  size_t replicas() const {
    auto r = static_cast<size_t>(opts_["replicas"]);
    return r == 0 ? threads() : r;
  }

  /// Tuples per second over all sources, 0 for full speed.
  uint64_t rate() const {
    return opts_["rate"];
  }

  uint64_t operator[](std::string_view name) const {
    return opts_[name];
  }

  /// How many of `available` input tuples the sources replay: all at full
  /// speed, at most `rate_seconds` worth at a rate. Programs cut their input
  /// to it before anything else, so the reference sees the same tuples.
  size_t tuples_to_replay(size_t available) const {
    if (rate() == 0)
      return available;
    return static_cast<size_t>(std::min<uint64_t>(available, rate() * opts_["rate_seconds"]));
  }

private:
  static std::vector<bench::size_flag> with_common(std::initializer_list<bench::size_flag> sizes) {
    std::vector<bench::size_flag> all(sizes);
    all.push_back({"replicas", 0, 0, "replicas per operator, 0 = --threads"});
    all.push_back({"rate", 0, 0, "tuples/s over all sources, 0 = full speed"});
    all.push_back({"rate_seconds", 1, 10, "seconds of tuples replayed at a rate"});
    return all;
  }

  bench::options opts_;
};

/// Paces one source replica to `rate` tuples/s (0: full speed) and gives
/// each tuple its timestamp.
class pacer {
public:
  explicit pacer(uint64_t rate) noexcept
    : interval_ns_(rate == 0 ? 0.0 : 1e9 / static_cast<double>(rate)), start_(now_ns()) {}

  bool paced() const noexcept {
    return interval_ns_ > 0.0;
  }

  /// When tuple `i` is due (ns, steady clock).
  int64_t due(uint64_t i) const noexcept {
    return start_ + static_cast<int64_t>(interval_ns_ * static_cast<double>(i));
  }

  /// The timestamp of tuple `i`: 0 at full speed; else spins until it is
  /// due and returns now.
  int64_t stamp(uint64_t i) const noexcept {
    if (!paced())
      return 0;
    auto when = due(i);
    auto now = now_ns();
    while (now < when)
      now = now_ns();
    return now;
  }

private:
  double interval_ns_;
  int64_t start_;
};

/// The replica of `replicas` that a key goes to, on every by-key edge and
/// when the input is split among sources: SplitMix64's finaliser modulo the
/// replicas, as troupe::by_key picks for an integer key, so the Troupe
/// streaming version's by-key edges agree with the split of the input too.
inline size_t replica_of(uint64_t key, size_t replicas) noexcept {
  key = (key ^ (key >> 30)) * 0xbf58476d1ce4e5b9ULL;
  key = (key ^ (key >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<size_t>((key ^ (key >> 31)) % replicas);
}

/// Splits input tuples (by index) among `replicas` source replicas: each
/// key's tuples all go to one replica, in their order, so that a keyed
/// operator sees every key's tuples in input order whatever the replicas.
template <class KeyOf>
std::vector<std::vector<uint32_t>> partition(size_t count, size_t replicas, KeyOf key_of) {
  std::vector<std::vector<uint32_t>> parts(replicas);
  for (size_t i = 0; i < count; ++i)
    parts[replica_of(key_of(i), replicas)].push_back(static_cast<uint32_t>(i));
  return parts;
}

/// Measures the time from the first source tuple to the last sink tuple.
class run_timer {
public:
  void start() noexcept {
    start_ = now_ns();
  }

  double stop() noexcept {
    return static_cast<double>(now_ns() - start_) / 1e9;
  }

private:
  int64_t start_ = 0;
};

/// Prints the metrics of a run and the checksum line; returns main's status.
/// `tuples` is what the sources emitted, `seconds` from the first source
/// tuple to the end of the last sink.
inline int report(const run_options& opts, uint64_t tuples, double seconds, sink& result,
                  uint64_t expected) {
  bench::report_metric("tuples_per_s", static_cast<double>(tuples) / seconds, "tuples/s");
  std::printf("metric seconds %.6f s\n", seconds);
  if (opts.rate() != 0) {
    auto& lat = result.latency();
    std::printf("metric latency_p50_us %.2f us\n", lat.percentile_us(50));
    std::printf("metric latency_p99_us %.2f us\n", lat.percentile_us(99));
    std::printf("latency_samples=%zu\n", lat.size());
  }
  std::printf("sink_tuples=%llu\n", static_cast<unsigned long long>(result.sum().count));
  return bench::checksum("checksum", result.sum().value(), expected);
}

} // namespace streaming
