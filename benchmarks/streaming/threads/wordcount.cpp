// wordcount (threads): source -> splitter -> counter (by key word) -> sink,
// --replicas threads per operator, bounded SPSC queues between every pair
// of replicas of consecutive operators.

#include "streaming/common/wordcount.hpp"
#include "streaming/threads/graph.hpp"

using namespace streaming;
using namespace streaming::wordcount;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {input_size}};
  auto lines = generate(opts["lines"]);
  lines.resize(opts.tuples_to_replay(lines.size()));
  auto r = opts.replicas();
  auto parts = partition(lines.size(), r, [](size_t i) { return uint64_t{i}; });
  threads::pin(opts.threads());
  threads::edge<sentence> to_splitters{r, r};
  threads::edge<word> to_counters{r, r};
  threads::edge<word_count> to_sinks{r, r};
  std::vector<sink> sinks(r);
  run_timer timer;
  timer.start();
  threads::thread_group group;
  for (size_t i = 0; i < r; ++i) {
    group.spawn([&, i] {
      threads::emitter<sentence> out{to_splitters, i, threads::route::forward};
      threads::produce(parts[i].size(), opts.rate() / r, out, [&](uint64_t k, int64_t ts) {
        return sentence{lines[parts[i][k]], ts};
      });
    });
    group.spawn([&, i] {
      splitter op;
      threads::emitter<word> out{to_counters, i, threads::route::by_key,
                                 [](const word& w) { return key_of(w); }};
      threads::consume(
        to_splitters, i, [&](const sentence& x) { op.consume(x, out); }, [&] { out.flush(); });
      out.close();
    });
    group.spawn([&, i] {
      counter op;
      threads::emitter<word_count> out{to_sinks, i, threads::route::forward};
      threads::consume(
        to_counters, i, [&](const word& x) { op.consume(x, out); }, [&] { out.flush(); });
      out.close();
    });
    group.spawn([&, i] {
      threads::consume(to_sinks, i, [&](const word_count& x) { sinks[i].consume(x); }, [] {});
    });
  }
  group.join();
  auto seconds = timer.stop();
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, lines.size(), seconds, sinks[0], expected(lines));
}
