// ping_pong (threads): the same sequential round trips between two plain
// threads over moodycamel's lock-free single-producer queues, each thread
// spinning on its queue: the fastest two threads can answer each other, at
// the price of two busy cores (a queue that sleeps when empty pays a kernel
// wake-up per hop, some 35 us on a virtual machine).
// Always two threads: --threads is accepted for a uniform command line.

#include "common/options.hpp"

#include <readerwriterqueue/readerwriterqueue.h>

#include <cstdint>
#include <thread>

namespace {

void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"round-trips", 1'000'000, 1'000'000,
                        "sequential request/response round trips"}}};
  auto rounds = static_cast<int32_t>(opts["round-trips"]);
  moodycamel::ReaderWriterQueue<int32_t> requests;
  moodycamel::ReaderWriterQueue<int32_t> responses;
  auto wait_dequeue = [](moodycamel::ReaderWriterQueue<int32_t>& q, int32_t& value) {
    while (!q.try_dequeue(value))
      cpu_pause();
  };
  std::thread pong{[&] {
    // 0 ends the conversation; real requests count down from `rounds`.
    for (;;) {
      int32_t value = 0;
      wait_dequeue(requests, value);
      if (value == 0)
        return;
      responses.enqueue(value);
    }
  }};
  uint64_t sum = 0;
  for (int32_t left = rounds; left > 0; --left) {
    requests.enqueue(left);
    int32_t value = 0;
    wait_dequeue(responses, value);
    sum += static_cast<uint64_t>(value);
  }
  requests.enqueue(0);
  pong.join();
  auto n = static_cast<uint64_t>(rounds);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
