// pipeline3 (Troupe streaming): source -> forwarder -> sink as seq_nodes
// (seed 002's Fig. 9); with --replicas=R, R replicas of each node and
// round-robin edges, the routing done in the upstream replicas.

#include "streaming/common/micro.hpp"
#include "streaming/troupe/nodes.hpp"

using namespace streaming;
using namespace streaming::troupe_stream;
using micro::item;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {micro::tuple_count}};
  auto n = opts.tuples_to_replay(opts["tuples"]);
  auto r = opts.replicas();
  std::vector<sink> sinks(r);
  double seconds = 0;
  {
    troupe::actor_system_config cfg;
    configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::stream::graph g{sys};
    auto make = [](uint64_t k, int64_t ts) { return micro::make_item(k, ts); };
    auto src = g.add<replay_source<item, decltype(make)>>(n, opts.rate() / r, make).replicas(r);
    auto fwd = g.add<op_node<micro::forwarder, item, item>>().replicas(r);
    std::atomic<size_t> claimed{0};
    auto out = g.add<result_sink<item>>(&sinks, &claimed).replicas(r);
    g.connect(src, fwd);
    g.connect(fwd, out);
    run_timer timer;
    timer.start();
    if (!run(g))
      return 1;
    seconds = timer.stop();
  }
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, n * r, seconds, sinks[0], micro::expected(n, r));
}
