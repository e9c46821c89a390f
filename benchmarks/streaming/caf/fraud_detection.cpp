// fraud_detection (CAF 0.17 and 1.x plain actors): source -> predictor (by key
// entity) -> sink, --replicas actors per operator, one message per tuple.
// Each source replays the entities of its part of the input and routes
// them by key.

#include "streaming/common/fraud_detection.hpp"
#include "streaming/caf/actors.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(streaming::fraud_detection::transaction)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(streaming::fraud_detection::prediction)

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(streaming_fraud_detection, STREAMING_CAF_FIRST_TYPE_ID)
  CAF_ADD_TYPE_ID(streaming_fraud_detection, (streaming::fraud_detection::transaction))
  CAF_ADD_TYPE_ID(streaming_fraud_detection, (streaming::fraud_detection::prediction))
CAF_END_TYPE_ID_BLOCK(streaming_fraud_detection)
#endif

using namespace streaming;
using namespace streaming::actors;
using namespace streaming::fraud_detection;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {input_size}};
  auto lines = generate(opts["lines"]);
  lines.resize(opts.tuples_to_replay(lines.size()));
  auto r = opts.replicas();
  auto parts = partition(lines.size(), r, [&](size_t i) { return line_key(lines[i]); });
  std::vector<sink> sinks(r, sink{sample_every});
  double seconds = 0;
  STREAMING_CAF_INIT(streaming_fraud_detection);
  {
    caf::actor_system_config cfg;
    configure(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    auto to_sinks = spawn_sinks<prediction>(sys, r, sinks, self);
    auto predictors = spawn_replicas<node<predictor, output<prediction>, transaction>>(
      sys, r, r, output<prediction>{to_sinks, route::forward});
    run_timer timer;
    timer.start();
    for (size_t i = 0; i < r; ++i)
      spawn_source(sys, parts[i].size(), opts.rate() / r,
                   output<transaction>{predictors, route::by_key,
                                       [](const transaction& t) { return key_of(t); }},
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
