// raytrace (sequential): every row of every frame in order on one thread,
// the baseline of the parallel versions. --threads is accepted for a uniform
// command line only.

#include "patterns/common/raytrace.hpp"

#include <cstdint>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = raytrace::parse(argc, argv, &threads);
  raytrace::print_row_costs(z);
  patterns::compute_timer timer;
  uint64_t h = raytrace::render_all(z);
  timer.stop();
  return bench::checksum("image_hash", h, raytrace::expected(z));
}
