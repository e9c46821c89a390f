// handoff_floor (threads): what it costs to hand a value from one core to
// another, the least a runtime pays when the actor that reads a message runs
// on another core than the one that wrote it. Two threads, pinned to two
// different CPUs, pass a buffer of `words` 64-bit words back and forth: one
// writes it and hands it over, the other sums it and hands it back, so each
// round moves the buffer's cache lines to the other core and back.
//
//   handoff_floor [--rounds=N] [--words=W]
//
// For comparison, one thread does the same writing and summing round after
// round on one CPU, where the buffer stays in its caches. Prints the median
// and 99th percentile of a round in µs, and the median on one core.
//
// On a virtual machine this floor is not fixed: the host may run the two
// virtual CPUs on cores that share a cache, or on cores that do not, and
// moves them while the guest runs; a study samples it around its runs.

#include "latency/common/command_line.hpp"
#include "latency/common/measure.hpp"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

/// The first two CPUs of the affinity mask, if there are two.
bool two_cpus(int& first, int& second) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    return false;
  first = second = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE && second < 0; ++cpu) {
    if (!CPU_ISSET(cpu, &set))
      continue;
    (first < 0 ? first : second) = cpu;
  }
  return second >= 0;
}

bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void fill(std::vector<uint64_t>& buffer, uint64_t round) noexcept {
  for (size_t i = 0; i < buffer.size(); ++i)
    buffer[i] = round ^ i;
}

uint64_t sum(const std::vector<uint64_t>& buffer) noexcept {
  uint64_t total = 0;
  for (auto x : buffer)
    total += x;
  return total;
}

/// Rounds between two CPUs: `turn` is 2r while the writer has the buffer in
/// round r, 2r + 1 while the reader has it.
std::vector<int64_t> across(int writer_cpu, int reader_cpu, uint64_t rounds, uint64_t words,
                            uint64_t& checksum) {
  std::vector<uint64_t> buffer(words);
  alignas(64) std::atomic<uint64_t> turn{0};
  std::vector<int64_t> samples;
  samples.reserve(rounds);
  uint64_t reader_sum = 0;
  bool reader_pinned = false;
  std::thread reader{[&] {
    reader_pinned = pin_to(reader_cpu);
    for (uint64_t r = 0; r < rounds; ++r) {
      while (turn.load(std::memory_order_acquire) != 2 * r + 1)
        spin_pause();
      reader_sum += sum(buffer);
      turn.store(2 * r + 2, std::memory_order_release);
    }
  }};
  bool writer_pinned = pin_to(writer_cpu);
  for (uint64_t r = 0; r < rounds; ++r) {
    auto start = latency::now_ns();
    fill(buffer, r);
    turn.store(2 * r + 1, std::memory_order_release);
    while (turn.load(std::memory_order_acquire) != 2 * r + 2)
      spin_pause();
    samples.push_back(latency::now_ns() - start);
  }
  reader.join();
  if (!writer_pinned || !reader_pinned)
    samples.clear();
  checksum += reader_sum;
  return samples;
}

std::vector<int64_t> on_one_core(int cpu, uint64_t rounds, uint64_t words, uint64_t& checksum) {
  std::vector<uint64_t> buffer(words);
  std::vector<int64_t> samples;
  samples.reserve(rounds);
  if (!pin_to(cpu))
    return samples;
  for (uint64_t r = 0; r < rounds; ++r) {
    auto start = latency::now_ns();
    fill(buffer, r);
    checksum += sum(buffer);
    samples.push_back(latency::now_ns() - start);
  }
  return samples;
}

} // namespace

int main(int argc, char** argv) {
  latency::command_line cl{argc, argv, "[--rounds=N] [--words=W]"};
  const uint64_t default_rounds = 20'000;
  const uint64_t default_words = 4'096;
  auto rounds = cl.integer("rounds", &default_rounds, 1, 100'000'000);
  auto words = cl.integer("words", &default_words, 1, uint64_t{1} << 24);
  cl.finish();
  int first = -1;
  int second = -1;
  if (!two_cpus(first, second)) {
    std::fprintf(stderr, "%s: needs two CPUs in its affinity mask\n", argv[0]);
    return 1;
  }
  uint64_t checksum = 0;
  auto cross = across(first, second, rounds, words, checksum);
  auto local = on_one_core(first, rounds, words, checksum);
  if (cross.empty() || local.empty()) {
    std::fprintf(stderr, "%s: could not pin a thread to CPU %d or %d\n", argv[0], first,
                 second);
    return 1;
  }
  // Both loops sum the same values: round r's buffer holds r ^ i.
  uint64_t expected = 0;
  for (uint64_t r = 0; r < rounds; ++r)
    for (uint64_t i = 0; i < words; ++i)
      expected += r ^ i;
  if (checksum != 2 * expected) {
    std::fprintf(stderr, "%s: checksum mismatch\n", argv[0]);
    return 1;
  }
  auto c = latency::summarise(cross);
  auto l = latency::summarise(local);
  latency::result_id id{"handoff_floor", "threads", "value-words=" + std::to_string(words)};
  latency::emit(id, "handoff_floor", latency::us(static_cast<double>(c.median)), "us");
  latency::emit(id, "handoff_floor_p99", latency::us(static_cast<double>(c.p99)), "us");
  latency::emit(id, "handoff_one_core", latency::us(static_cast<double>(l.median)), "us");
  return 0;
}
