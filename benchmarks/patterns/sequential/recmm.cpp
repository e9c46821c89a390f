// recmm (sequential): every block of C in turn, with the block kernel the
// parallel versions use; one thread, no runtime.

#include "common/options.hpp"
#include "patterns/common/recmm.hpp"

#include <cstdio>

namespace mm = patterns::recmm;

int main(int argc, char** argv) {
  auto opts = mm::parse_options(argc, argv);
  size_t size = opts["size"], cutoff = opts["cutoff"];
  if (!mm::valid_sizes(size, cutoff)) {
    std::fprintf(stderr, "--size must be --cutoff times a power of two\n");
    return 2;
  }
  auto in = mm::make_input(size);
  auto expected = mm::expected_checksum(in);
  std::vector<double> c(size * size, 0.0);
  patterns::compute_timer timer;
  for (size_t row = 0; row < size; row += cutoff)
    for (size_t col = 0; col < size; col += cutoff)
      mm::multiply_block_at(in, c.data(), row, col, cutoff);
  timer.stop();
  return bench::checksum("sum_of_c", mm::result_checksum(in, c), expected);
}
