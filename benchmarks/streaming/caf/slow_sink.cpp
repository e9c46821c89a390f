// slow_sink (CAF 0.17 and 1.x plain actors): a source actor at full speed sends to a
// sink actor that spins --sink_ns per tuple. Nothing slows the source: the
// sink's mailbox grows. Runs --seconds (or until the resident memory passes
// --max_rss_mib), then the source stops and the sink drains its mailbox
// without its spin.

#include "streaming/caf/micro_types.hpp"

#include <atomic>
#include <limits>

using namespace streaming;
using namespace streaming::actors;
using micro::item;

namespace {

class slow_sink : public caf::event_based_actor {
public:
  slow_sink(caf::actor_config& cfg, sink* result, const micro::spinner* work,
            const std::atomic<bool>* stop, caf::actor done)
    : caf::event_based_actor(cfg), result_(result), work_(work), stop_(stop),
      done_(std::move(done)) {}

public:
  caf::behavior make_behavior() override {
    return {
      [this](const item& x) {
        if (!stop_->load(std::memory_order_relaxed))
          work_->spin();
        result_->consume(x);
      },
      [this](end_atom) {
        caf_compat::tell(this, done_, done_atom_v);
        quit();
      },
    };
  }

private:
  sink* result_;
  const micro::spinner* work_;
  const std::atomic<bool>* stop_;
  caf::actor done_;
};

} // namespace

int main(int argc, char** argv) {
  run_options opts{argc, argv, micro::slow_sink_flags()};
  micro::spinner work{opts["sink_ns"]};
  std::atomic<bool> stop{false};
  sink result;
  uint64_t produced = 0;
  micro::memory_watch watch;
  STREAMING_CAF_INIT(streaming_micro);
  {
    caf::actor_system_config cfg;
    configure(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    actor_list to_sink{sys.spawn<slow_sink>(&result, &work, &stop, caf::actor{self})};
    spawn_source(sys, std::numeric_limits<uint64_t>::max(), 0, output<item>{to_sink, route::forward},
                 [](uint64_t k, int64_t ts) { return micro::make_item(k, ts); }, &stop,
                 &produced);
    watch.run(opts["seconds"], opts["max_rss_mib"], stop);
    await_sinks(self, 1);
  }
  watch.report(produced, result.sum().count);
  return bench::checksum("checksum", result.sum().value(), micro::expected(produced, 1));
}
