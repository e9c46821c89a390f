// pipeline3 (CAF 1.x flow API): source -> forwarder -> sink, one actor each,
// the items moving from actor to actor by observe_on (see flow.hpp); with
// --replicas=R, R such pipelines side by side (a flow has one consumer per
// observe_on, so the plain actors' round robin over all next replicas has no
// counterpart here; the work per tuple is the same).

#include "streaming/caf-flow/flow.hpp"

using namespace streaming;
using namespace streaming::actors;
using micro::item;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {micro::tuple_count}};
  auto n = opts.tuples_to_replay(opts["tuples"]);
  auto r = opts.replicas();
  std::vector<sink> sinks(r);
  double seconds = 0;
  STREAMING_CAF_INIT(streaming_micro);
  {
    caf::actor_system_config cfg;
    configure(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    run_timer timer;
    timer.start();
    for (size_t i = 0; i < r; ++i) {
      auto [src, launch_src] = sys.spawn_inactive();
      auto [fwd, launch_fwd] = sys.spawn_inactive();
      auto [snk, launch_snk] = sys.spawn_inactive();
      auto forwarded = flow::source(src, n, opts.rate() / r)
                         .observe_on(fwd, flow::buffer_size, flow::min_request_size)
                         .map([](const item& x) { return x; })
                         .observe_on(snk, flow::buffer_size, flow::min_request_size);
      flow::into_sink(std::move(forwarded), snk, &sinks[i], caf::actor{self});
      launch_snk();
      launch_fwd();
      launch_src();
    }
    await_sinks(self, r);
    seconds = timer.stop();
  }
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, n * r, seconds, sinks[0], micro::expected(n, r));
}
