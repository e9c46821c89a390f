// spike_detection (Troupe plain actors): source -> moving average (by key
// device) -> detector -> sink, --replicas actors per operator, one message
// per tuple. Each source replays the devices of its part of the input and
// routes them by key.

#include "streaming/common/spike_detection.hpp"
#include "streaming/troupe-actors/actors.hpp"

TROUPE_BEGIN_TYPE_ID_BLOCK(streaming_spike_detection, troupe::id_block::streaming_actors::end)
  TROUPE_ADD_TYPE_ID(streaming_spike_detection, (streaming::spike_detection::reading))
  TROUPE_ADD_TYPE_ID(streaming_spike_detection, (streaming::spike_detection::averaged))
TROUPE_END_TYPE_ID_BLOCK(streaming_spike_detection)

using namespace streaming;
using namespace streaming::actors;
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
    troupe::scoped_actor self{sys};
    auto to_sinks = spawn_sinks<averaged>(sys, r, sinks, self);
    auto detectors = spawn_replicas<node<detector, output<averaged>, averaged>>(
      sys, r, r, output<averaged>{to_sinks, route::forward});
    auto averages = spawn_replicas<node<moving_average, output<averaged>, reading>>(
      sys, r, r, output<averaged>{detectors, route::forward});
    run_timer timer;
    timer.start();
    for (size_t i = 0; i < r; ++i)
      spawn_source(sys, parts[i].size(), opts.rate() / r,
                   output<reading>{averages, route::by_key,
                                   [](const reading& x) { return key_of(x); }},
                   [&lines, &part = parts[i]](uint64_t k, int64_t ts) {
                     return parse(lines[part[k]], ts);
                   });
    await_sinks(self, r);
    seconds = timer.stop();
  }
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, lines.size(), seconds, sinks[0], expected(lines));
}
