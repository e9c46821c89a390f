#pragma once

// What every program of the latency study measures with: the monotonic clock,
// the process's CPU time and context switches over an interval (getrusage),
// quantiles of samples, a log-linear histogram for samples too many to keep,
// and the JSON lines of DESIGN.md's results format. Linux only; plain C++17
// (the CAF 0.17 programs include it too).

#include <sched.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace latency {

// -- clock ---------------------------------------------------------------------------

/// CLOCK_MONOTONIC in nanoseconds: one clock for every thread and CPU (the
/// one std::chrono::steady_clock reads on Linux), so a timestamp taken on one
/// thread can be subtracted from one taken on another.
inline int64_t now_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// Sleeps until now_ns() reads `deadline`. The deadline is absolute, so a
/// late wake-up does not push back the ones after it.
inline void sleep_until_ns(int64_t deadline) noexcept {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(deadline / 1'000'000'000);
  ts.tv_nsec = static_cast<long>(deadline % 1'000'000'000);
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

// -- resource usage ------------------------------------------------------------------

/// The CPUs this process may run on (its affinity mask, as a container or
/// taskset limits it).
inline unsigned usable_cpus() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0)
    return 1;
  auto n = CPU_COUNT(&set);
  return n > 0 ? static_cast<unsigned>(n) : 1;
}

/// CPU time the calling thread has used, in nanoseconds.
inline int64_t thread_cpu_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// The process's clock and kernel accounting at one moment.
struct usage_snapshot {
  int64_t wall_ns = 0;
  /// User + system CPU time of all threads of the process.
  int64_t cpu_ns = 0;
  /// Voluntary context switches of all threads: each time one blocked.
  int64_t voluntary_switches = 0;
};

inline usage_snapshot take_usage() noexcept {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto ns = [](const timeval& tv) {
    return static_cast<int64_t>(tv.tv_sec) * 1'000'000'000
           + static_cast<int64_t>(tv.tv_usec) * 1000;
  };
  usage_snapshot result;
  result.wall_ns = now_ns();
  result.cpu_ns = ns(ru.ru_utime) + ns(ru.ru_stime);
  result.voluntary_switches = ru.ru_nvcsw;
  return result;
}

/// What the process used between two snapshots.
struct interval_usage {
  double seconds = 0;
  /// CPU time over wall time, as a share of all usable CPUs (100 = all busy).
  double cpu_percent = 0;
  /// Voluntary context switches per second.
  double ctx_switches = 0;
};

/// `cpu_ns` of CPU time over `wall_ns` of wall time, as a share of all
/// usable CPUs (100 = all busy).
inline double percent_of_machine(int64_t cpu_ns, int64_t wall_ns) noexcept {
  return static_cast<double>(cpu_ns) / static_cast<double>(wall_ns)
         / static_cast<double>(usable_cpus()) * 100.0;
}

inline interval_usage usage_between(const usage_snapshot& from, const usage_snapshot& to) {
  interval_usage result;
  auto wall = static_cast<double>(to.wall_ns - from.wall_ns);
  if (wall <= 0)
    return result;
  result.seconds = wall / 1e9;
  result.cpu_percent = percent_of_machine(to.cpu_ns - from.cpu_ns, to.wall_ns - from.wall_ns);
  result.ctx_switches = static_cast<double>(to.voluntary_switches - from.voluntary_switches)
                        / result.seconds;
  return result;
}

// -- samples -----------------------------------------------------------------------

/// Mean, median, 99th percentile and maximum of exact samples.
struct summary {
  double mean = 0;
  int64_t median = 0;
  int64_t p99 = 0;
  int64_t max = 0;
};

/// Nearest rank: the p-th percentile of n sorted samples is the one at rank
/// ceil(p * n / 100) (1-based), so the median of 30 samples is the 15th and
/// their p99 the largest.
inline uint64_t nearest_rank(uint64_t n, unsigned percent) noexcept {
  return std::max<uint64_t>((percent * n + 99) / 100, 1);
}

/// Sorts `xs`, which must not be empty.
inline summary summarise(std::vector<int64_t>& xs) {
  std::sort(xs.begin(), xs.end());
  auto at = [&](unsigned percent) { return xs[nearest_rank(xs.size(), percent) - 1]; };
  summary result;
  long double sum = 0;
  for (auto x : xs)
    sum += x;
  result.mean = static_cast<double>(sum / static_cast<long double>(xs.size()));
  result.median = at(50);
  result.p99 = at(99);
  result.max = xs.back();
  return result;
}

/// Counts non-negative nanosecond values in buckets 1/64 of a power of two
/// wide (exact below 128 ns, within 0.8% above), up to 2^40 ns (18 min).
/// One writer; a reader after the writer is done (merge, quantile).
class histogram {
public:
  void record(int64_t ns) noexcept {
    ++counts_[index_of(ns)];
    ++total_;
  }

  void merge(const histogram& other) noexcept {
    for (size_t i = 0; i < buckets; ++i)
      counts_[i] += other.counts_[i];
    total_ += other.total_;
  }

  uint64_t total() const noexcept {
    return total_;
  }

  /// The middle of the bucket holding the `percent`-th percentile (nearest
  /// rank, as summarise); 0 if empty.
  int64_t percentile(unsigned percent) const noexcept {
    if (total_ == 0)
      return 0;
    auto rank = nearest_rank(total_, percent);
    uint64_t seen = 0;
    for (size_t i = 0; i < buckets; ++i) {
      seen += counts_[i];
      if (seen >= rank)
        return middle_of(i);
    }
    return middle_of(buckets - 1);
  }

private:
  static constexpr int sub_bits = 6;
  static constexpr int64_t sub_count = int64_t{1} << sub_bits;
  static constexpr int max_bits = 40;
  static constexpr size_t buckets = (max_bits - sub_bits + 1) * sub_count;

  // Below 2 * sub_count the index is the value; above, a value whose top bit
  // is b lands at (b - sub_bits) * sub_count + (value >> (b - sub_bits)).
  static size_t index_of(int64_t ns) noexcept {
    auto v = static_cast<uint64_t>(std::clamp<int64_t>(ns, 0, (int64_t{1} << max_bits) - 1));
    if (v < 2 * sub_count)
      return static_cast<size_t>(v);
    int top = 63 - __builtin_clzll(v);
    int shift = top - sub_bits;
    return static_cast<size_t>(shift) * sub_count + static_cast<size_t>(v >> shift);
  }

  static int64_t middle_of(size_t index) noexcept {
    auto i = static_cast<int64_t>(index);
    if (i < 2 * sub_count)
      return i;
    int64_t shift = i / sub_count - 1;
    int64_t lower = (i - shift * sub_count) << shift;
    return lower + (int64_t{1} << shift) / 2;
  }

  std::array<uint64_t, buckets> counts_{};
  uint64_t total_ = 0;
};

// -- results -----------------------------------------------------------------------

/// Which measurement a JSON line belongs to.
struct result_id {
  std::string case_name;
  std::string system;
  std::string config;
};

inline void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

/// Prints one line of DESIGN.md's results format (study "latency", one run).
inline void emit(const result_id& id, std::string_view metric, double value,
                 std::string_view unit) {
  std::string line = "{\"study\":\"latency\",\"case\":";
  append_json_string(line, id.case_name);
  line += ",\"system\":";
  append_json_string(line, id.system);
  line += ",\"config\":";
  append_json_string(line, id.config);
  line += ",\"metric\":";
  append_json_string(line, metric);
  char number[64];
  std::snprintf(number, sizeof(number), ",\"value\":%.7g,\"unit\":", value);
  line += number;
  append_json_string(line, unit);
  line += ",\"runs\":1}\n";
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
}

/// Nanoseconds as microseconds.
inline double us(double ns) noexcept {
  return ns / 1000.0;
}

} // namespace latency
