// wake_floor (threads): how long one thread takes to wake another that is
// parked in the kernel, the least a runtime with sleeping workers pays to
// answer a message. Two threads play futex ping-pong: each wakes the other,
// then parks until woken back.
//
//   wake_floor [--rounds=N] [--gap-us=G]
//
// One-way, with timestamps: the waker reads the clock, sets the other's
// word and calls FUTEX_WAKE; the woken thread reads the clock as soon as
// FUTEX_WAIT returns. A sample counts only if that FUTEX_WAIT returned 0,
// i.e. the thread was asleep in the kernel and this wake-up woke it (if the
// word changed before it slept, FUTEX_WAIT fails with EAGAIN and the sample
// is dropped). CLOCK_MONOTONIC is one clock across CPUs, so the two readings
// compare. Prints the median and 99th percentile in µs, and the share of
// wake-ups that ended a sleep.
//
// Back to back, the parked thread's CPU has just gone idle and wakes fast.
// --gap-us=G makes each waker sleep G µs first, so the woken thread has been
// parked about that long, as a runtime's worker is between messages at a low
// rate (its CPU may have entered a deeper idle state).

#include "latency/common/command_line.hpp"
#include "latency/common/measure.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

namespace {

long futex(std::atomic<uint32_t>* word, int op, uint32_t value) {
  return syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), op | FUTEX_PRIVATE_FLAG, value,
                 nullptr, nullptr, 0);
}

/// One direction of the ping-pong: the word the receiver parks on and the
/// time its waker read the clock.
struct channel {
  alignas(64) std::atomic<uint32_t> word{0};
  std::atomic<int64_t> sent_at{0};
};

void wake(channel& to, int64_t gap_ns) {
  if (gap_ns > 0)
    latency::sleep_until_ns(latency::now_ns() + gap_ns);
  to.sent_at.store(latency::now_ns(), std::memory_order_relaxed);
  to.word.store(1, std::memory_order_release);
  futex(&to.word, FUTEX_WAKE, 1);
}

/// Parks until `self` is set; appends the one-way latency if a wake-up
/// really ended a sleep.
void park(channel& self, std::vector<int64_t>& samples) {
  bool slept = false;
  while (self.word.load(std::memory_order_acquire) == 0)
    slept = futex(&self.word, FUTEX_WAIT, 0) == 0;
  auto now = latency::now_ns();
  if (slept)
    samples.push_back(now - self.sent_at.load(std::memory_order_relaxed));
  self.word.store(0, std::memory_order_relaxed);
}

} // namespace

int main(int argc, char** argv) {
  latency::command_line cl{argc, argv, "[--rounds=N] [--gap-us=G]"};
  const uint64_t default_rounds = 20'000;
  const uint64_t no_gap = 0;
  auto rounds = cl.integer("rounds", &default_rounds, 1, 100'000'000);
  auto gap_us = cl.integer("gap-us", &no_gap, 0, 10'000'000);
  cl.finish();
  auto gap_ns = static_cast<int64_t>(gap_us) * 1000;
  channel to_a;
  channel to_b;
  std::vector<int64_t> samples_a;
  std::vector<int64_t> samples_b;
  samples_a.reserve(rounds);
  samples_b.reserve(rounds);
  std::thread b{[&] {
    for (uint64_t i = 0; i < rounds; ++i) {
      park(to_b, samples_b);
      wake(to_a, gap_ns);
    }
  }};
  for (uint64_t i = 0; i < rounds; ++i) {
    wake(to_b, gap_ns);
    park(to_a, samples_a);
  }
  b.join();
  auto samples = std::move(samples_a);
  samples.insert(samples.end(), samples_b.begin(), samples_b.end());
  if (samples.empty()) {
    std::fprintf(stderr, "%s: no round trip ended a sleep\n", argv[0]);
    return 1;
  }
  auto share = static_cast<double>(samples.size()) / static_cast<double>(2 * rounds) * 100;
  auto s = latency::summarise(samples);
  std::string case_name = "wake_floor";
  if (gap_us > 0)
    case_name += ",gap=" + std::to_string(gap_us) + "us";
  latency::result_id id{case_name, "threads", "futex"};
  latency::emit(id, "wake_floor", latency::us(static_cast<double>(s.median)), "us");
  latency::emit(id, "wake_floor_p99", latency::us(static_cast<double>(s.p99)), "us");
  latency::emit(id, "wake_floor_slept", share, "%");
  return 0;
}
