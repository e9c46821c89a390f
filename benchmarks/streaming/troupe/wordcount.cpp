// wordcount (Troupe streaming): source -> splitter -> counter (by key word)
// -> sink, --replicas replicas of each node; the emitters of each replica
// route to the next node's replicas.

#include "streaming/common/wordcount.hpp"
#include "streaming/troupe/nodes.hpp"

using namespace streaming;
using namespace streaming::troupe_stream;
using namespace streaming::wordcount;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {input_size}};
  auto lines = generate(opts["lines"]);
  lines.resize(opts.tuples_to_replay(lines.size()));
  auto r = opts.replicas();
  auto parts = partition(lines.size(), r, [](size_t i) { return uint64_t{i}; });
  std::vector<sink> sinks(r);
  double seconds = 0;
  {
    troupe::actor_system_config cfg;
    configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::stream::graph g{sys};
    std::atomic<size_t> sources{0}, outs{0};
    auto make = [&lines](size_t i, int64_t ts) { return sentence{lines[i], ts}; };
    auto src = g.add<partitioned_source<sentence, decltype(make)>>(&parts, &sources,
                                                                     opts.rate() / r, make)
                 .replicas(r);
    auto split = g.add<op_node<splitter, sentence, word>>().replicas(r);
    auto count = g.add<op_node<counter, word, word_count>>().replicas(r);
    auto out = g.add<result_sink<word_count>>(&sinks, &outs).replicas(r);
    g.connect(src, split);
    g.connect(split, count, troupe::by_key{[](const word& w) { return key_of(w); }});
    g.connect(count, out);
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
