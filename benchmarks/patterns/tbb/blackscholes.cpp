// blackscholes (tbb): each run is one oneTBB parallel_for over the
// portfolio with the static_partitioner (one contiguous chunk per thread of
// the task_arena of --threads); parallel_for returning ends the run.

#include "common/options.hpp"
#include "patterns/common/blackscholes.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

namespace bs = patterns::blackscholes;

int main(int argc, char** argv) {
  auto opts = bs::parse_options(argc, argv);
  auto options = bs::make_input(opts["options"]);
  auto expected = bs::expected_checksum(options);
  std::vector<float> prices(options.size());
  tbb::task_arena arena{static_cast<int>(opts.threads())};
  patterns::compute_timer timer;
  arena.execute([&] {
    for (uint64_t run = 0; run < opts["runs"]; ++run)
      tbb::parallel_for(
        tbb::blocked_range<size_t>{0, options.size()},
        [&](const tbb::blocked_range<size_t>& r) {
          bs::price_range(options.data(), prices.data(), r.begin(), r.end());
        },
        tbb::static_partitioner{});
  });
  timer.stop();
  return bench::checksum("prices", bs::result_checksum(prices), expected);
}
