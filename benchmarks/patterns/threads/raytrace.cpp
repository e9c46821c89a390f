// raytrace (threads): --threads std::threads take rows from one atomic
// counter, one row at a time (dynamic scheduling, chunk 1), and write them
// straight into the shared frame; the main thread hashes the frame after
// joining them.

#include "patterns/common/raytrace.hpp"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = raytrace::parse(argc, argv, &threads);
  raytrace::print_row_costs(z);
  patterns::compute_timer timer;
  uint64_t h = raytrace::fnv_offset;
  std::vector<int32_t> frame(static_cast<size_t>(z.width) * z.height);
  for (int f = 0; f < z.frames; ++f) {
    auto s = raytrace::make_scene(z.width, z.height, f);
    std::atomic<int> next_row{0};
    std::vector<std::thread> pool;
    for (size_t i = 0; i < threads; ++i)
      pool.emplace_back([&] {
        for (int y = next_row.fetch_add(1, std::memory_order_relaxed); y < z.height;
             y = next_row.fetch_add(1, std::memory_order_relaxed))
          raytrace::render_row(s, y, frame.data() + static_cast<size_t>(y) * z.width);
      });
    for (auto& t : pool)
      t.join();
    h = raytrace::hash_pixels(h, frame.data(), frame.size());
  }
  timer.stop();
  return bench::checksum("image_hash", h, raytrace::expected(z));
}
