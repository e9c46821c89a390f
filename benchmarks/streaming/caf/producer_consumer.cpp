// producer_consumer (CAF 0.17 and 1.x plain actors): a producer actor sends N 24-byte
// tuples, one message each, to a consumer actor; the cost per tuple is the
// whole transfer's time divided by N.

#include "streaming/caf/micro_types.hpp"

using namespace streaming;
using namespace streaming::actors;
using micro::item;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {micro::tuple_count}};
  auto n = opts["tuples"];
  std::vector<sink> sinks(1);
  double seconds = 0;
  STREAMING_CAF_INIT(streaming_micro);
  {
    caf::actor_system_config cfg;
    configure(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    auto consumer = spawn_sinks<item>(sys, 1, sinks, self);
    run_timer timer;
    timer.start();
    spawn_source(sys, n, 0, output<item>{consumer, route::forward},
                 [](uint64_t k, int64_t ts) { return micro::make_item(k, ts); });
    await_sinks(self, 1);
    seconds = timer.stop();
  }
  micro::report_cost(n, seconds);
  return report(opts, n, seconds, sinks[0], micro::expected(n, 1));
}
