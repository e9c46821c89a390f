// idle_graph (Troupe streaming): a graph whose input has nothing to give
// for --seconds. Pushes a burst first (so every node ran and went idle),
// then measures the CPU time the whole process uses while the graph waits:
// an idle graph must sleep (target: under 0.05 % of one CPU).

#include "streaming/common/micro.hpp"
#include "streaming/troupe/nodes.hpp"

#include <sys/resource.h>

#include <chrono>
#include <thread>

using namespace streaming;
using namespace streaming::troupe_stream;
using micro::item;

namespace {

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto secs = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return secs(usage.ru_utime) + secs(usage.ru_stime);
}

} // namespace

int main(int argc, char** argv) {
  run_options opts{argc, argv, {{"seconds", 10, 10, "how long the graph waits for input"}}};
  std::vector<sink> sinks(2);
  constexpr uint64_t burst = 10'000;
  double idle_pct = 0;
  {
    troupe::actor_system_config cfg;
    configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::stream::graph g{sys};
    std::atomic<size_t> claimed{0};
    auto in = g.add_input<item>();
    auto fwd = g.add<op_node<micro::forwarder, item, item>>().replicas(2);
    auto out = g.add<result_sink<item>>(&sinks, &claimed).replicas(2);
    g.connect(in, fwd);
    g.connect(fwd, out);
    auto running = g.start();
    if (!running) {
      std::fprintf(stderr, "cannot start: %s\n", to_string(running.error()).c_str());
      return 1;
    }
    for (uint64_t k = 0; k < burst; ++k)
      if (auto err = in.push(micro::make_item(k, 0))) {
        std::fprintf(stderr, "push failed: %s\n", to_string(err).c_str());
        return 1;
      }
    // Let the burst drain and the workers park, then measure the wait.
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
    auto cpu0 = cpu_seconds();
    auto t0 = now_ns();
    std::this_thread::sleep_for(std::chrono::seconds{opts["seconds"]});
    auto cpu = cpu_seconds() - cpu0;
    auto wall = static_cast<double>(now_ns() - t0) * 1e-9;
    idle_pct = cpu / wall * 100.0;
    in.close();
    troupe::scoped_actor self{sys};
    self->monitor(*running);
    self->receive([](const troupe::down_msg&) {});
  }
  std::printf("metric idle_cpu_pct %.4f %%\n", idle_pct);
  sinks[0].merge(sinks[1]);
  return bench::checksum("checksum", sinks[0].sum().value(), micro::expected(burst, 1));
}
