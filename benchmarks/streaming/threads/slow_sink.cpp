// slow_sink (threads): a source at full speed into a sink that spins
// --sink_ns per tuple, through one bounded SPSC queue: the source waits
// when the queue is full, so memory stays flat. Runs --seconds, then the
// source stops and the sink drains what is queued.

#include "streaming/common/micro.hpp"
#include "streaming/threads/graph.hpp"

#include <atomic>

using namespace streaming;
using micro::item;

int main(int argc, char** argv) {
  run_options opts{argc, argv, micro::slow_sink_flags()};
  threads::pin(opts.threads());
  micro::spinner work{opts["sink_ns"]};
  std::atomic<bool> stop{false};
  threads::edge<item> channel{1, 1};
  sink result;
  uint64_t produced = 0;
  threads::thread_group group;
  group.spawn([&] {
    threads::emitter<item> out{channel, 0, threads::route::forward};
    while (!stop.load(std::memory_order_relaxed))
      out(micro::make_item(produced++, 0));
    out.close();
  });
  group.spawn([&] {
    threads::consume(
      channel, 0,
      [&](const item& x) {
        if (!stop.load(std::memory_order_relaxed))
          work.spin();
        result.consume(x);
      },
      [] {});
  });
  micro::memory_watch watch;
  watch.run(opts["seconds"], opts["max_rss_mib"], stop);
  group.join();
  watch.report(produced, result.sum().count);
  return bench::checksum("checksum", result.sum().value(), micro::expected(produced, 1));
}
