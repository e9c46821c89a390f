#pragma once

// The micro-benchmarks of seed 002 (its Fig. 4, 5, 9 and 10): 24-byte tuples
// through producer -> consumer, source -> forwarder -> sink, and a source
// feeding a sink ten times slower than itself. Plain C++17.

#include "streaming/common/stream.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <initializer_list>
#include <thread>
#include <vector>
#include <cstdint>
#include <cstdio>

namespace streaming::micro {

/// The size flag of producer_consumer and pipeline3, quick / full.
constexpr bench::size_flag tuple_count{"tuples", 1'000'000, 10'000'000, "tuples per source"};

/// The 24-byte tuple of seed 002's pipelines.
struct item {
  uint64_t seq;     // 0, 1, 2, ... per source
  int64_t ts;       // see stream.hpp
  uint64_t payload; // a value derived from seq
};

static_assert(sizeof(item) == 24, "seed 002's tuples are 24 bytes");

inline item make_item(uint64_t seq, int64_t ts) noexcept {
  return item{seq, ts, mix(seq)};
}

inline uint64_t tuple_hash(const item& x) noexcept {
  return x.seq * 0x9e3779b97f4a7c15ULL ^ x.payload;
}

/// The middle node of the pipeline: passes every tuple on.
class forwarder {
public:
  template <class Emit>
  void consume(const item& x, Emit&& emit) {
    emit(x);
  }
};

/// Prints the cost per tuple of producer_consumer.
inline void report_cost(uint64_t tuples, double seconds) {
  std::printf("metric ns_per_tuple %.2f ns\n", seconds * 1e9 / static_cast<double>(tuples));
}

/// The checksum the sink(s) must reach after `count` tuples 0..count-1 from
/// each of `sources` sources.
inline uint64_t expected(uint64_t count, uint64_t sources) {
  checksum sum;
  for (uint64_t s = 0; s < sources; ++s)
    for (uint64_t i = 0; i < count; ++i)
      sum.add(tuple_hash(make_item(i, 0)));
  return sum.value();
}

/// A busy wait of about `ns` nanoseconds per call, calibrated once: the slow
/// sink's work per tuple. Counting loop iterations rather than reading the
/// clock keeps the cost per tuple steady and the clock out of the sink.
class spinner {
public:
  explicit spinner(uint64_t ns) : iterations_(calibrate(ns)) {}

  void spin() const noexcept {
    for (uint64_t i = 0; i < iterations_; ++i)
      asm volatile("" ::: "memory");
  }

private:
  // The fastest of several probes: another process may take the core
  // during one of them.
  static uint64_t calibrate(uint64_t ns) {
    if (ns == 0)
      return 0;
    constexpr uint64_t probe = 2'000'000;
    double best = 1e18;
    for (int round = 0; round < 8; ++round) {
      auto start = now_ns();
      for (uint64_t i = 0; i < probe; ++i)
        asm volatile("" ::: "memory");
      best = std::min(best, static_cast<double>(now_ns() - start));
    }
    return static_cast<uint64_t>(static_cast<double>(ns) * static_cast<double>(probe) / best) + 1;
  }

  uint64_t iterations_;
};

/// slow_sink's watch over the process's memory: samples the resident set
/// once a second for `seconds`, or until it passes `cap_mib` (a program
/// whose queues grow without bound would otherwise take the machine's
/// memory); then sets `stop`, which ends the source and lets the sink drain
/// its backlog without its spin.
class memory_watch {
public:
  void run(uint64_t seconds, uint64_t cap_mib, std::atomic<bool>& stop) {
    auto start = now_ns();
    for (uint64_t s = 1; s <= seconds; ++s) {
      auto due = start + static_cast<int64_t>(s) * 1'000'000'000;
      while (now_ns() < due)
        std::this_thread::sleep_for(std::chrono::milliseconds{5});
      samples_.push_back(static_cast<double>(bench::resident_bytes()) / (1024.0 * 1024.0));
      if (samples_.back() > static_cast<double>(cap_mib)) {
        capped_ = true;
        break;
      }
    }
    stop.store(true, std::memory_order_relaxed);
  }

  /// Prints the metrics: resident MiB after the first second and at the
  /// end, the growth between them, tuples the sink did not get (must be
  /// 0), and the sink's rate while it spun.
  void report(uint64_t produced, uint64_t consumed) const {
    std::printf("rss_mib_series=");
    for (size_t i = 0; i < samples_.size(); ++i)
      std::printf("%s%.1f", i == 0 ? "" : ",", samples_[i]);
    std::printf("\n");
    if (samples_.empty())
      return;
    double first = samples_.front();
    double last = samples_.back();
    std::printf("metric rss_mib_first %.2f MiB\n", first);
    std::printf("metric rss_mib_last %.2f MiB\n", last);
    std::printf("metric rss_growth_pct %.2f %%\n", (last - first) / first * 100.0);
    std::printf("metric dropped %llu tuples\n",
                static_cast<unsigned long long>(produced - consumed));
    std::printf("metric capped %d flag\n", capped_ ? 1 : 0);
  }

private:
  std::vector<double> samples_;
  bool capped_ = false;
};

/// The size flags of slow_sink.
inline std::initializer_list<bench::size_flag> slow_sink_flags() {
  static const std::initializer_list<bench::size_flag> flags = {
    {"seconds", 10, 60, "how long the source runs"},
    {"sink_ns", 5'000, 5'000, "the sink's spin per tuple (ns)"},
    {"max_rss_mib", 4'096, 4'096, "stop early when resident memory passes this"},
  };
  return flags;
}

} // namespace streaming::micro
