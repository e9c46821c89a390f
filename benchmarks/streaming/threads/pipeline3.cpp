// pipeline3 (threads): source -> forwarder -> sink, one thread each (the
// seed's Fig. 4 baseline), bounded SPSC queues between them; with
// --replicas=R, R of each, the sources' tuples round-robin over the
// forwarders and each forwarder's over the sinks.

#include "streaming/common/micro.hpp"
#include "streaming/threads/graph.hpp"

using namespace streaming;
using micro::item;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {micro::tuple_count}};
  auto n = opts.tuples_to_replay(opts["tuples"]);
  auto r = opts.replicas();
  threads::pin(opts.threads());
  threads::edge<item> to_forwarders{r, r};
  threads::edge<item> to_sinks{r, r};
  std::vector<sink> sinks(r);
  run_timer timer;
  timer.start();
  threads::thread_group group;
  for (size_t i = 0; i < r; ++i) {
    group.spawn([&, i] {
      threads::emitter<item> out{to_forwarders, i, threads::route::forward};
      threads::produce(n, opts.rate() / r, out,
                       [](uint64_t k, int64_t ts) { return micro::make_item(k, ts); });
    });
    group.spawn([&, i] {
      micro::forwarder op;
      threads::emitter<item> out{to_sinks, i, threads::route::forward};
      threads::consume(
        to_forwarders, i, [&](const item& x) { op.consume(x, out); }, [&] { out.flush(); });
      out.close();
    });
    group.spawn([&, i] {
      threads::consume(to_sinks, i, [&](const item& x) { sinks[i].consume(x); }, [] {});
    });
  }
  group.join();
  auto seconds = timer.stop();
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, n * r, seconds, sinks[0], micro::expected(n, r));
}
