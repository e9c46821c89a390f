// spike_detection (Troupe streaming): source -> moving average (by key
// device) -> detector -> sink, --replicas replicas of each node.

#include "streaming/common/spike_detection.hpp"
#include "streaming/troupe/nodes.hpp"

using namespace streaming;
using namespace streaming::troupe_stream;
using namespace streaming::spike_detection;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {input_size}};
  auto lines = generate(opts["lines"]);
  lines.resize(opts.tuples_to_replay(lines.size()));
  auto r = opts.replicas();
  auto parts = partition(lines.size(), r, [&](size_t i) { return line_key(lines[i]); });
  std::vector<sink> sinks(r, sink{sample_every});
  double seconds = 0;
  {
    troupe::actor_system_config cfg;
    configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::stream::graph g{sys};
    std::atomic<size_t> sources{0}, outs{0};
    auto make = [&lines](size_t i, int64_t ts) { return parse(lines[i], ts); };
    auto src = g.add<partitioned_source<reading, decltype(make)>>(&parts, &sources,
                                                                    opts.rate() / r, make)
                 .replicas(r);
    auto average = g.add<op_node<moving_average, reading, averaged>>().replicas(r);
    auto detect = g.add<op_node<detector, averaged, averaged>>().replicas(r);
    auto out = g.add<result_sink<averaged>>(&sinks, &outs).replicas(r);
    g.connect(src, average, troupe::by_key{[](const reading& x) { return key_of(x); }});
    g.connect(average, detect);
    g.connect(detect, out);
    run_timer timer;
    timer.start();
    if (!run(g))
      return 1;
    seconds = timer.stop();
  }
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, lines.size(), seconds, sinks[0], expected(lines));
}
