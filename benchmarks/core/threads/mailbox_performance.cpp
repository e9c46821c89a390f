// mailbox_performance (threads): one std::thread per sender, all pushing into
// one multi-producer queue (moodycamel's BlockingConcurrentQueue, one
// producer token per thread); the main thread drains it in bulk until every
// message has arrived. The operating system schedules the senders, so
// --threads is accepted for a uniform command line only.

#include "common/options.hpp"

#include <concurrentqueue/blockingconcurrentqueue.h>

#include <array>
#include <cstdint>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"senders", 100, 100, "sending threads"},
                       {"messages", 100'000, 100'000,
                        "messages each sender sends"}}};
  auto senders = opts["senders"];
  auto messages = opts["messages"];
  moodycamel::BlockingConcurrentQueue<uint32_t> mailbox;
  std::vector<std::thread> threads;
  threads.reserve(senders);
  for (uint64_t i = 0; i < senders; ++i)
    threads.emplace_back([&] {
      moodycamel::ProducerToken token{mailbox};
      for (uint64_t j = 0; j < messages; ++j)
        mailbox.enqueue(token, 1);
    });
  moodycamel::ConsumerToken token{mailbox};
  std::array<uint32_t, 256> batch;
  uint64_t received = 0;
  auto expected = senders * messages;
  while (received < expected) {
    auto n = mailbox.wait_dequeue_bulk(token, batch.data(), batch.size());
    for (size_t i = 0; i < n; ++i)
      received += batch[i];
  }
  for (auto& thread : threads)
    thread.join();
  return bench::checksum("received", received, expected);
}
