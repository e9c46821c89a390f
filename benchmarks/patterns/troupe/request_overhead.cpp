// request_overhead (troupe): what a pattern adds to a request over calling
// the same function inside one actor. One client keeps one request in flight
// at a time (round trips, so latency, not throughput) into
//   actor      one event-based actor whose handler calls the function
//   farm2      farm(seq(fn), 2)
//   pipeline3  pipeline(seq(fn), seq(fn), seq(fn))
// and prints the median round trip of each, and the difference to `actor`.

#include "common/options.hpp"
#include "patterns/common/util.hpp"
#include "patterns/troupe/run.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

using namespace troupe::patterns;

namespace {

int32_t work(int32_t x) {
  return x + 1;
}

/// Median round trip in microseconds over `rounds` requests, measured in
/// batches of 1,000 so the clock is read rarely.
template <class Handle>
double median_rtt_us(troupe::scoped_actor& self, const Handle& h, uint64_t rounds) {
  constexpr uint64_t batch = 1000;
  std::vector<double> per_batch;
  int32_t x = 0;
  for (uint64_t done = 0; done < rounds; done += batch) {
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < batch; ++i)
      patterns::troupe_run::ask(self, h, x, x);
    std::chrono::duration<double, std::micro> dt = std::chrono::steady_clock::now() - t0;
    per_batch.push_back(dt.count() / batch);
  }
  std::sort(per_batch.begin(), per_batch.end());
  return per_batch[per_batch.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv, {{"rounds", 20'000, 200'000, "requests per configuration"}}};
  auto rounds = std::max<uint64_t>(opts["rounds"], 1000);
  troupe::actor_system_config cfg;
  patterns::troupe_run::configure(cfg, opts.threads());
  troupe::actor_system sys{cfg};
  troupe::scoped_actor self{sys};
  auto plain = sys.spawn([] { return troupe::behavior{[](int32_t x) { return work(x); }}; });
  auto farm2 = spawn_pattern(sys, farm(seq(work), 2));
  auto pipeline3 = spawn_pattern(sys, pipeline(seq(work), seq(work), seq(work)));
  patterns::compute_timer timer;
  // Warm up every path once (allocator caches, first wake-ups).
  median_rtt_us(self, plain, 1000);
  median_rtt_us(self, farm2, 1000);
  median_rtt_us(self, pipeline3, 1000);
  auto a = median_rtt_us(self, plain, rounds);
  auto f = median_rtt_us(self, farm2, rounds);
  auto p = median_rtt_us(self, pipeline3, rounds);
  timer.stop();
  std::printf("metric actor_rtt %.3f us\n", a);
  std::printf("metric farm2_rtt %.3f us\n", f);
  std::printf("metric pipeline3_rtt %.3f us\n", p);
  std::printf("metric farm2_overhead %.3f us\n", f - a);
  std::printf("metric pipeline3_overhead %.3f us\n", p - a);
  // The sum of answers proves every request came back.
  int32_t check = 0;
  patterns::troupe_run::ask(self, pipeline3, int32_t{0}, check);
  return bench::checksum("answer", static_cast<uint64_t>(check), 3);
}
