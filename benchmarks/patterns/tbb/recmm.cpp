// recmm (tbb): oneTBB's parallel_invoke computes the four quadrants of C of
// every split as four tasks, inside a task_arena of --threads.

#include "common/options.hpp"
#include "patterns/common/recmm.hpp"

#include <tbb/parallel_invoke.h>
#include <tbb/task_arena.h>

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
  tbb::parallel_invoke([&, c] { multiply(in, c, row, col, half, cutoff); },
                       [&, c] { multiply(in, c, row, col + half, half, cutoff); },
                       [&, c] { multiply(in, c, row + half, col, half, cutoff); },
                       [&, c] { multiply(in, c, row + half, col + half, half, cutoff); });
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
  tbb::task_arena arena{static_cast<int>(opts.threads())};
  patterns::compute_timer timer;
  arena.execute([&] { multiply(in, c.data(), 0, 0, size, cutoff); });
  timer.stop();
  return bench::checksum("sum_of_c", mm::result_checksum(in, c), expected);
}
