// raytrace (CAF 0.17 and 1.x, the "pure actor" way): a master actor hands
// rows to --threads worker actors, one message per row, and every worker
// sends its row's pixels back as a copy; the master keeps two rows in flight
// per worker so that none waits for its next row, and hands a row to whichever
// worker just answered (dynamic scheduling, chunk 1). Workers share nothing:
// each builds its own copy of a frame's scene from the frame number.

#include "common/caf_compat.hpp"
#include "patterns/common/raytrace.hpp"

#include <cstdint>
#include <vector>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(patterns_raytrace, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(patterns_raytrace, (std::vector<int32_t>))
  CAF_ADD_ATOM(patterns_raytrace, row_atom)
  CAF_ADD_ATOM(patterns_raytrace, pixels_atom)
  CAF_ADD_ATOM(patterns_raytrace, done_atom)
CAF_END_TYPE_ID_BLOCK(patterns_raytrace)
#else
using row_atom = caf::atom_constant<caf::atom("row")>;
using pixels_atom = caf::atom_constant<caf::atom("pixels")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
constexpr row_atom row_atom_v{};
constexpr pixels_atom pixels_atom_v{};
constexpr done_atom done_atom_v{};
#endif

namespace {

class worker : public caf::event_based_actor {
public:
  worker(caf::actor_config& cfg, caf::actor master, int32_t index, raytrace::sizes z)
    : caf::event_based_actor(cfg), master_(std::move(master)), index_(index), z_(z) {
  }

  caf::behavior make_behavior() override {
    return {
      [this](row_atom, int32_t frame, int32_t y) {
        if (frame != frame_) {
          scene_ = raytrace::make_scene(z_.width, z_.height, frame);
          frame_ = frame;
        }
        std::vector<int32_t> row(static_cast<size_t>(z_.width));
        raytrace::render_row(scene_, y, row.data());
        caf_compat::tell(this, master_, pixels_atom_v, index_, y, std::move(row));
      },
      [this](done_atom) { quit(); },
    };
  }

private:
  caf::actor master_;
  int32_t index_;
  raytrace::sizes z_;
  int32_t frame_ = -1;
  raytrace::scene scene_;
};

class master : public caf::event_based_actor {
public:
  master(caf::actor_config& cfg, caf::actor client, raytrace::sizes z, size_t workers)
    : caf::event_based_actor(cfg), z_(z), workers_count_(workers), client_(std::move(client)),
      frame_buffer_(static_cast<size_t>(z.width) * z.height) {
  }

  caf::behavior make_behavior() override {
    for (size_t i = 0; i < workers_count_; ++i)
      workers_.push_back(spawn<worker>(caf::actor_cast<caf::actor>(this),
                                       static_cast<int32_t>(i), z_));
    start_frame();
    return {
      [this](pixels_atom, int32_t from, int32_t y, const std::vector<int32_t>& row) {
        std::copy(row.begin(), row.end(),
                  frame_buffer_.begin() + static_cast<ptrdiff_t>(y) * z_.width);
        if (next_row_ < z_.height)
          caf_compat::tell(this, workers_[static_cast<size_t>(from)], row_atom_v,
                           frame_, next_row_++);
        if (++rows_done_ < z_.height)
          return;
        hash_value_ = raytrace::hash_pixels(hash_value_, frame_buffer_.data(),
                                            frame_buffer_.size());
        if (++frame_ < z_.frames) {
          start_frame();
          return;
        }
        caf_compat::tell(this, client_, hash_value_);
        for (auto& w : workers_)
          caf_compat::tell(this, w, done_atom_v);
        quit();
      },
    };
  }

private:
  void start_frame() {
    next_row_ = 0;
    rows_done_ = 0;
    for (int round = 0; round < 2; ++round)
      for (auto& w : workers_)
        if (next_row_ < z_.height)
          caf_compat::tell(this, w, row_atom_v, frame_, next_row_++);
  }

  raytrace::sizes z_;
  size_t workers_count_;
  caf::actor client_; // gets the result
  std::vector<caf::actor> workers_;
  std::vector<int32_t> frame_buffer_;
  uint64_t hash_value_ = raytrace::fnv_offset;
  int32_t frame_ = 0;
  int32_t next_row_ = 0;
  int32_t rows_done_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = raytrace::parse(argc, argv, &threads);
  raytrace::print_row_costs(z);
  BENCH_CAF_INIT_META_OBJECTS(patterns_raytrace);
  uint64_t h = 0;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, threads);
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    patterns::compute_timer timer;
    sys.spawn<master>(caf::actor{self}, z, threads);
    self->receive([&](uint64_t result) { h = result; });
    timer.stop();
  }
  return bench::checksum("image_hash", h, raytrace::expected(z));
}
