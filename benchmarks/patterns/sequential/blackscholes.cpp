// blackscholes (sequential): `runs` passes over the portfolio on one thread,
// no runtime.

#include "common/options.hpp"
#include "patterns/common/blackscholes.hpp"

namespace bs = patterns::blackscholes;

int main(int argc, char** argv) {
  auto opts = bs::parse_options(argc, argv);
  auto options = bs::make_input(opts["options"]);
  auto expected = bs::expected_checksum(options);
  std::vector<float> prices(options.size());
  patterns::compute_timer timer;
  for (uint64_t run = 0; run < opts["runs"]; ++run)
    bs::price_range(options.data(), prices.data(), 0, options.size());
  timer.stop();
  return bench::checksum("prices", bs::result_checksum(prices), expected);
}
