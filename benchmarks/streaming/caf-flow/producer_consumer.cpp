// producer_consumer (CAF 1.x flow API): a producer actor's observable of N
// 24-byte tuples, observed on a consumer actor (see flow.hpp); the cost per
// tuple is the whole transfer's time divided by N.

#include "streaming/caf-flow/flow.hpp"

using namespace streaming;
using namespace streaming::actors;

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
    run_timer timer;
    timer.start();
    auto [producer, launch_producer] = sys.spawn_inactive();
    auto [consumer, launch_consumer] = sys.spawn_inactive();
    auto consumed = flow::source(producer, n, 0)
                      .observe_on(consumer, flow::buffer_size, flow::min_request_size);
    flow::into_sink(std::move(consumed), consumer, &sinks[0], caf::actor{self});
    launch_consumer();
    launch_producer();
    await_sinks(self, 1);
    seconds = timer.stop();
  }
  micro::report_cost(n, seconds);
  return report(opts, n, seconds, sinks[0], micro::expected(n, 1));
}
