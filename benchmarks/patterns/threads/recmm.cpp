// recmm (threads): OpenMP tasks. One thread of a team of --threads starts
// the recursion; every split makes three quadrants of C tasks, computes the
// fourth itself, then waits for the tasks.

#include "common/options.hpp"
#include "patterns/common/recmm.hpp"

#include <omp.h>

#include <cstdio>

namespace mm = patterns::recmm;

namespace {

void multiply(const mm::input& in, double* c, size_t row, size_t col, size_t width,
              size_t cutoff) {
  if (width <= cutoff) {
    mm::multiply_block_at(in, c, row, col, width);
    return;
  }
  size_t half = width / 2;
#pragma omp task default(none) firstprivate(c, row, col, half, cutoff) shared(in)
  multiply(in, c, row, col, half, cutoff);
#pragma omp task default(none) firstprivate(c, row, col, half, cutoff) shared(in)
  multiply(in, c, row, col + half, half, cutoff);
#pragma omp task default(none) firstprivate(c, row, col, half, cutoff) shared(in)
  multiply(in, c, row + half, col, half, cutoff);
  multiply(in, c, row + half, col + half, half, cutoff);
#pragma omp taskwait
}

} // namespace

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
  auto threads = static_cast<int>(opts.threads());
  double* out = c.data();
  patterns::compute_timer timer;
#pragma omp parallel num_threads(threads) default(none) shared(in, out, size, cutoff)
#pragma omp single
  multiply(in, out, 0, 0, size, cutoff);
  timer.stop();
  return bench::checksum("sum_of_c", mm::result_checksum(in, c), expected);
}
