// producer_consumer (Troupe streaming): one source node sends N 24-byte
// tuples through one edge to one sink node; the cost per tuple is the whole
// transfer's time divided by N.

#include "streaming/common/micro.hpp"
#include "streaming/troupe/nodes.hpp"

using namespace streaming;
using namespace streaming::troupe_stream;
using micro::item;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {micro::tuple_count}};
  auto n = opts["tuples"];
  std::vector<sink> sinks(1);
  double seconds = 0;
  {
    troupe::actor_system_config cfg;
    configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::stream::graph g{sys};
    auto make = [](uint64_t k, int64_t ts) { return micro::make_item(k, ts); };
    auto src = g.add<replay_source<item, decltype(make)>>(n, uint64_t{0}, make);
    std::atomic<size_t> claimed{0};
    auto out = g.add<result_sink<item>>(&sinks, &claimed);
    g.connect(src, out);
    run_timer timer;
    timer.start();
    if (!run(g))
      return 1;
    seconds = timer.stop();
  }
  micro::report_cost(n, seconds);
  return report(opts, n, seconds, sinks[0], micro::expected(n, 1));
}
