// pipeline3 (Troupe plain actors): source -> forwarder -> sink, one actor
// each (seed 002's Fig. 4), one message per tuple; with --replicas=R, R of
// each, every actor sending round robin over the next operator's replicas.

#include "streaming/common/micro.hpp"
#include "streaming/troupe-actors/actors.hpp"

TROUPE_BEGIN_TYPE_ID_BLOCK(streaming_micro, troupe::id_block::streaming_actors::end)
  TROUPE_ADD_TYPE_ID(streaming_micro, (streaming::micro::item))
TROUPE_END_TYPE_ID_BLOCK(streaming_micro)

using namespace streaming;
using namespace streaming::actors;
using micro::item;

int main(int argc, char** argv) {
  run_options opts{argc, argv, {micro::tuple_count}};
  auto n = opts.tuples_to_replay(opts["tuples"]);
  auto r = opts.replicas();
  std::vector<sink> sinks(r);
  double seconds = 0;
  {
    troupe::actor_system_config cfg;
    configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    auto to_sinks = spawn_sinks<item>(sys, r, sinks, self);
    auto forwarders = spawn_replicas<node<micro::forwarder, output<item>, item>>(
      sys, r, r, output<item>{to_sinks, route::forward});
    run_timer timer;
    timer.start();
    for (size_t i = 0; i < r; ++i)
      spawn_source(sys, n, opts.rate() / r, output<item>{forwarders, route::forward},
                   [](uint64_t k, int64_t ts) { return micro::make_item(k, ts); });
    await_sinks(self, r);
    seconds = timer.stop();
  }
  for (size_t i = 1; i < r; ++i)
    sinks[0].merge(sinks[i]);
  return report(opts, n * r, seconds, sinks[0], micro::expected(n, r));
}
