// raytrace (tbb): one parallel_for over the rows of each frame with a
// simple_partitioner and grain 1, so that TBB splits down to single rows and
// its work stealing balances the uneven rows; at most --threads workers
// (global_control).

#include "patterns/common/raytrace.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = raytrace::parse(argc, argv, &threads);
  raytrace::print_row_costs(z);
  tbb::global_control limit{tbb::global_control::max_allowed_parallelism, threads};
  patterns::compute_timer timer;
  uint64_t h = raytrace::fnv_offset;
  std::vector<int32_t> frame(static_cast<size_t>(z.width) * z.height);
  for (int f = 0; f < z.frames; ++f) {
    auto s = raytrace::make_scene(z.width, z.height, f);
    tbb::parallel_for(
      tbb::blocked_range<int>{0, z.height, 1},
      [&](const tbb::blocked_range<int>& rows) {
        for (int y = rows.begin(); y < rows.end(); ++y)
          raytrace::render_row(s, y, frame.data() + static_cast<size_t>(y) * z.width);
      },
      tbb::simple_partitioner{});
    h = raytrace::hash_pixels(h, frame.data(), frame.size());
  }
  timer.stop();
  return bench::checksum("image_hash", h, raytrace::expected(z));
}
