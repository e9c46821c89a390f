// wordcount (Troupe plain actors): source -> splitter -> counter (by key
// word) -> sink, --replicas actors per operator, one message per tuple;
// each actor routes to the next operator's replicas itself (see
// actors.hpp).

#include "streaming/common/wordcount.hpp"
#include "streaming/troupe-actors/actors.hpp"

TROUPE_BEGIN_TYPE_ID_BLOCK(streaming_wordcount, troupe::id_block::streaming_actors::end)
  TROUPE_ADD_TYPE_ID(streaming_wordcount, (streaming::wordcount::sentence))
  TROUPE_ADD_TYPE_ID(streaming_wordcount, (streaming::wordcount::word))
  TROUPE_ADD_TYPE_ID(streaming_wordcount, (streaming::wordcount::word_count))
TROUPE_END_TYPE_ID_BLOCK(streaming_wordcount)

using namespace streaming;
using namespace streaming::actors;
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
    troupe::scoped_actor self{sys};
    auto to_sinks = spawn_sinks<word_count>(sys, r, sinks, self);
    auto counters = spawn_replicas<node<counter, output<word_count>, word>>(
      sys, r, r, output<word_count>{to_sinks, route::forward});
    auto splitters = spawn_replicas<node<splitter, output<word>, sentence>>(
      sys, r, r, output<word>{counters, route::by_key, [](const word& w) { return key_of(w); }});
    run_timer timer;
    timer.start();
    for (size_t i = 0; i < r; ++i)
      spawn_source(sys, parts[i].size(), opts.rate() / r,
                   output<sentence>{splitters, route::forward},
                   [&lines, &part = parts[i]](uint64_t k, int64_t ts) {
                     return sentence{lines[part[k]], ts};
                   });
    await_sinks(self, r);
    seconds = timer.stop();
  }
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, lines.size(), seconds, sinks[0], expected(lines));
}
