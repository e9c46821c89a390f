// blackscholes (threads): one OpenMP team of --threads for all runs; each
// run is a worksharing loop with a static schedule (one contiguous chunk
// per thread, as PARSEC's pthreads version splits it), and its implicit
// barrier ends the run.

#include "common/options.hpp"
#include "patterns/common/blackscholes.hpp"

#include <omp.h>

namespace bs = patterns::blackscholes;

int main(int argc, char** argv) {
  auto opts = bs::parse_options(argc, argv);
  auto options = bs::make_input(opts["options"]);
  auto expected = bs::expected_checksum(options);
  std::vector<float> prices(options.size());
  auto count = static_cast<int64_t>(options.size());
  auto runs = opts["runs"];
  const bs::option_data* xs = options.data();
  float* out = prices.data();
  auto threads = static_cast<int>(opts.threads());
  patterns::compute_timer timer;
#pragma omp parallel num_threads(threads) default(none) shared(xs, out, count, runs)
  for (uint64_t run = 0; run < runs; ++run) {
#pragma omp for schedule(static)
    for (int64_t i = 0; i < count; ++i)
      out[i] = bs::price(xs[i]);
  }
  timer.stop();
  return bench::checksum("prices", bs::result_checksum(prices), expected);
}
