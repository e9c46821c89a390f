// quicksort (sequential): the recursion of common/quicksort.hpp on one
// thread, no runtime: the baseline every speed-up divides.

#include "common/options.hpp"
#include "patterns/common/quicksort.hpp"

namespace qs = patterns::quicksort;

int main(int argc, char** argv) {
  auto opts = qs::parse_options(argc, argv);
  auto data = qs::make_input(opts["size"]);
  auto expected = qs::expected_checksum(data);
  patterns::compute_timer timer;
  qs::sort_sequential(data.data(), data.size(), opts["cutoff"]);
  timer.stop();
  return bench::checksum("sorted", qs::result_checksum(data), expected);
}
