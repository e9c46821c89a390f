// ping_pong (threads): the same sequential round trips between two plain
// threads, each waiting on a blocking single-producer queue (moodycamel's
// BlockingReaderWriterQueue: spins briefly, then sleeps on a semaphore).
// Always two threads: --threads is accepted for a uniform command line.

#include "common/options.hpp"

#include <readerwriterqueue/readerwriterqueue.h>

#include <cstdint>
#include <thread>

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"round-trips", 1'000'000, 1'000'000,
                        "sequential request/response round trips"}}};
  auto rounds = static_cast<int32_t>(opts["round-trips"]);
  moodycamel::BlockingReaderWriterQueue<int32_t> requests;
  moodycamel::BlockingReaderWriterQueue<int32_t> responses;
  std::thread pong{[&] {
    // 0 ends the conversation; real requests count down from `rounds`.
    for (;;) {
      int32_t value = 0;
      requests.wait_dequeue(value);
      if (value == 0)
        return;
      responses.enqueue(value);
    }
  }};
  uint64_t sum = 0;
  for (int32_t left = rounds; left > 0; --left) {
    requests.enqueue(left);
    int32_t value = 0;
    responses.wait_dequeue(value);
    sum += static_cast<uint64_t>(value);
  }
  requests.enqueue(0);
  pong.join();
  auto n = static_cast<uint64_t>(rounds);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
