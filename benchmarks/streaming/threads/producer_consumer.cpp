// producer_consumer (threads): one producer thread sends N 24-byte tuples
// through one bounded SPSC queue (in batches) to one consumer thread; the
// cost per tuple is the whole transfer's time divided by N.

#include "streaming/common/micro.hpp"
#include "streaming/threads/graph.hpp"

using namespace streaming;
using micro::item;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {micro::tuple_count}};
  auto n = opts["tuples"];
  threads::pin(opts.threads());
  threads::edge<item> channel{1, 1};
  sink result;
  run_timer timer;
  timer.start();
  threads::thread_group group;
  group.spawn([&] {
    threads::emitter<item> out{channel, 0, threads::route::forward};
    threads::produce(n, 0, out, [](uint64_t k, int64_t ts) { return micro::make_item(k, ts); });
  });
  group.spawn([&] {
    threads::consume(channel, 0, [&](const item& x) { result.consume(x); }, [] {});
  });
  group.join();
  auto seconds = timer.stop();
  micro::report_cost(n, seconds);
  return report(opts, n, seconds, result, micro::expected(n, 1));
}
