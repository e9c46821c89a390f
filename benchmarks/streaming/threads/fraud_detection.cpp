// fraud_detection (threads): source -> predictor (by key entity) -> sink,
// --replicas threads per operator, bounded SPSC queues between every pair
// of replicas of consecutive operators. Each source replays the entities
// of its part of the input, and routes them by key.

#include "streaming/common/fraud_detection.hpp"
#include "streaming/threads/graph.hpp"

using namespace streaming;
using namespace streaming::fraud_detection;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {input_size}};
  auto lines = generate(opts["lines"]);
  lines.resize(opts.tuples_to_replay(lines.size()));
  auto r = opts.replicas();
  auto parts = partition(lines.size(), r, [&](size_t i) { return line_key(lines[i]); });
  threads::pin(opts.threads());
  threads::edge<transaction> to_predictors{r, r};
  threads::edge<prediction> to_sinks{r, r};
  std::vector<sink> sinks(r, sink{sample_every});
  run_timer timer;
  timer.start();
  threads::thread_group group;
  for (size_t i = 0; i < r; ++i) {
    group.spawn([&, i] {
      threads::emitter<transaction> out{to_predictors, i, threads::route::by_key,
                                        [](const transaction& t) { return key_of(t); }};
      threads::produce(parts[i].size(), opts.rate() / r, out, [&](uint64_t k, int64_t ts) {
        return parse(lines[parts[i][k]], ts);
      });
    });
    group.spawn([&, i] {
      predictor op;
      threads::emitter<prediction> out{to_sinks, i, threads::route::forward};
      threads::consume(
        to_predictors, i, [&](const transaction& x) { op.consume(x, out); },
        [&] { out.flush(); });
      out.close();
    });
    group.spawn([&, i] {
      threads::consume(to_sinks, i, [&](const prediction& x) { sinks[i].consume(x); }, [] {});
    });
  }
  group.join();
  auto seconds = timer.stop();
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, lines.size(), seconds, sinks[0], expected(lines));
}
