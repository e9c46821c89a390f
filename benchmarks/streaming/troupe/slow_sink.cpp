// slow_sink (Troupe streaming): a source node at full speed emits into a
// sink node that spins --sink_ns per tuple. The edge's bounded rings make
// the source wait (back-pressure), so memory stays flat. Runs --seconds,
// then the source stops and the sink drains without its spin.

#include "streaming/common/micro.hpp"
#include "streaming/troupe/nodes.hpp"

#include <atomic>

using namespace streaming;
using namespace streaming::troupe_stream;
using micro::item;

namespace {

/// Emits until told to stop; counts what it emitted.
class endless_source : public troupe::stream::source_node<item> {
public:
  endless_source(const std::atomic<bool>* stop, uint64_t* produced)
    : stop_(stop), produced_(produced) {}

  bool generate(troupe::stream::emitter<item>& out) override {
    if (stop_->load(std::memory_order_relaxed))
      return false;
    out.emit(micro::make_item((*produced_)++, 0));
    return true;
  }

private:
  const std::atomic<bool>* stop_;
  uint64_t* produced_; // one replica: no lock; read after the graph ended
};

class spinning_sink : public troupe::stream::sink_node<item> {
public:
  spinning_sink(sink* result, const micro::spinner* work, const std::atomic<bool>* stop)
    : result_(result), work_(work), stop_(stop) {}

  void consume(item&& x) override {
    if (!stop_->load(std::memory_order_relaxed))
      work_->spin();
    result_->consume(x);
  }

private:
  sink* result_;
  const micro::spinner* work_;
  const std::atomic<bool>* stop_;
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
    troupe::stream::graph g{sys};
    auto src = g.add<endless_source>(&stop, &produced);
    auto out = g.add<spinning_sink>(&result, &work, &stop);
    g.connect(src, out);
    auto running = g.start();
    if (!running) {
      std::fprintf(stderr, "cannot start: %s\n", to_string(running.error()).c_str());
      return 1;
    }
    troupe::scoped_actor self{sys};
    self->monitor(*running);
    watch.run(opts["seconds"], opts["max_rss_mib"], stop);
    self->receive([](const troupe::down_msg&) {});
  }
  watch.report(produced, result.sum().count);
  return bench::checksum("checksum", result.sum().value(), micro::expected(produced, 1));
}
