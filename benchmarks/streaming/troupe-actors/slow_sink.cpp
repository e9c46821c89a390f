// slow_sink (Troupe plain actors): a source actor at full speed sends to a
// sink actor that spins --sink_ns per tuple. Nothing slows the source: the
// sink's mailbox grows. Runs --seconds (or until the resident memory passes
// --max_rss_mib), then the source stops and the sink drains its mailbox
// without its spin.

#include "streaming/common/micro.hpp"
#include "streaming/troupe-actors/actors.hpp"

#include <atomic>
#include <limits>

TROUPE_BEGIN_TYPE_ID_BLOCK(streaming_micro, troupe::id_block::streaming_actors::end)
  TROUPE_ADD_TYPE_ID(streaming_micro, (streaming::micro::item))
TROUPE_END_TYPE_ID_BLOCK(streaming_micro)

using namespace streaming;
using namespace streaming::actors;
using micro::item;

namespace {

class slow_sink : public troupe::event_based_actor {
public:
  slow_sink(troupe::actor_config& cfg, sink* result, const micro::spinner* work,
            const std::atomic<bool>* stop, troupe::actor done)
    : troupe::event_based_actor(cfg), result_(result), work_(work), stop_(stop),
      done_(std::move(done)) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](const item& x) {
        if (!stop_->load(std::memory_order_relaxed))
          work_->spin();
        result_->consume(x);
      },
      [this](end_atom) {
        send(done_, done_atom_v);
        quit();
      },
    };
  }

private:
  sink* result_;
  const micro::spinner* work_;
  const std::atomic<bool>* stop_;
  troupe::actor done_;
};

} // namespace

int main(int argc, char** argv) {
  run_options opts{argc, argv, micro::slow_sink_flags()};
  micro::spinner work{opts["sink_ns"]};
  std::atomic<bool> stop{false};
  sink result;
  uint64_t produced = 0;
  micro::memory_watch watch;
  {
    troupe::actor_system_config cfg;
    configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    actor_list to_sink{sys.spawn<slow_sink>(&result, &work, &stop, troupe::actor{self})};
    spawn_source(sys, std::numeric_limits<uint64_t>::max(), 0, output<item>{to_sink, route::forward},
                 [](uint64_t k, int64_t ts) { return micro::make_item(k, ts); }, &stop,
                 &produced);
    watch.run(opts["seconds"], opts["max_rss_mib"], stop);
    await_sinks(self, 1);
  }
  watch.report(produced, result.sum().count);
  return bench::checksum("checksum", result.sum().value(), micro::expected(produced, 1));
}
