// raytrace (troupe): Troupe's map pattern with dynamic partitioning, one row
// per chunk, one request per frame. The frame (its pixels and the scene) is
// moved into the request and back; the workers take rows from a shared
// counter and write them in place.

#include "patterns/common/raytrace.hpp"
#include "patterns/troupe/run.hpp"

#include <cstdint>
#include <vector>

using namespace troupe::patterns;

namespace {

/// One frame to render: its size() is the number of rows, what the map's
/// slices index.
struct frame {
  std::vector<int32_t> pixels;
  size_t width = 0;
  size_t height = 0;
  const raytrace::scene* scene = nullptr;

  size_t size() const noexcept {
    return height;
  }
};

} // namespace

TROUPE_BEGIN_TYPE_ID_BLOCK(patterns_raytrace, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(patterns_raytrace, (frame))
TROUPE_END_TYPE_ID_BLOCK(patterns_raytrace)

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = raytrace::parse(argc, argv, &threads);
  raytrace::print_row_costs(z);
  uint64_t h = raytrace::fnv_offset;
  {
    troupe::actor_system_config cfg;
    patterns::troupe_run::configure(cfg, threads);
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    auto render = spawn_pattern(sys, map(
      [](slice<frame> rows) {
        auto& f = rows.container();
        for (auto y = rows.first(); y < rows.last(); ++y)
          raytrace::render_row(*f.scene, static_cast<int>(y), f.pixels.data() + y * f.width);
      },
      dynamic_partitioning{1}));
    patterns::compute_timer timer;
    frame f;
    f.width = static_cast<size_t>(z.width);
    f.height = static_cast<size_t>(z.height);
    f.pixels.resize(f.width * f.height);
    for (int i = 0; i < z.frames; ++i) {
      auto s = raytrace::make_scene(z.width, z.height, i);
      f.scene = &s;
      if (!patterns::troupe_run::ask(self, render, std::move(f), f))
        return 1;
      h = raytrace::hash_pixels(h, f.pixels.data(), f.pixels.size());
    }
    timer.stop();
  }
  return bench::checksum("image_hash", h, raytrace::expected(z));
}
