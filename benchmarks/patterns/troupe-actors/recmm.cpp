// recmm (troupe-actors): Troupe's plain actors the "pure" actor way: one
// actor per block of C, and the data travel in messages as copies. A
// multiplier gets the rows of A and the columns of B its block needs; a
// block no wider than the cutoff is computed with the shared block kernel
// and sent up; a wider one spawns four children, one per quadrant, each
// with copies of its half of the rows and of the columns, and assembles
// their blocks as they return.
// caf/recmm.cpp is the same program against CAF's API.

#include "common/options.hpp"
#include "patterns/common/recmm.hpp"

#include <troupe/all.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace mm = patterns::recmm;

namespace {

using matrix = std::vector<double>;

// Messages: `(matrix rows, matrix columns)` (a block to compute, to a new
// multiplier: width x inner rows of A and inner x width columns of B, row-
// major) and `(int32_t quadrant, matrix block)` (a computed block, to the
// parent; quadrant 2 * i + j is row half i, column half j).
class multiplier : public troupe::event_based_actor {
public:
  multiplier(troupe::actor_config& cfg, troupe::actor parent, int32_t quadrant,
             size_t width, size_t inner, size_t cutoff)
    : troupe::event_based_actor(cfg), parent_(std::move(parent)), quadrant_(quadrant),
      width_(width), inner_(inner), cutoff_(cutoff) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](const matrix& rows, const matrix& columns) { start(rows, columns); },
      [this](int32_t quadrant, const matrix& block) { merge(quadrant, block); },
    };
  }

private:
  void start(const matrix& rows, const matrix& columns) {
    if (width_ <= cutoff_) {
      matrix block(width_ * width_, 0.0);
      mm::multiply_block(rows.data(), inner_, columns.data(), width_, block.data(), width_,
                         width_, width_, inner_);
      send(parent_, quadrant_, std::move(block));
      quit();
      return;
    }
    size_t half = width_ / 2;
    result_.assign(width_ * width_, 0.0);
    for (size_t i = 0; i < 2; ++i) {
      for (size_t j = 0; j < 2; ++j) {
        matrix my_rows(rows.begin() + static_cast<ptrdiff_t>(i * half * inner_),
                       rows.begin() + static_cast<ptrdiff_t>((i + 1) * half * inner_));
        matrix my_columns(inner_ * half);
        for (size_t k = 0; k < inner_; ++k)
          std::copy_n(columns.begin() + static_cast<ptrdiff_t>(k * width_ + j * half), half,
                      my_columns.begin() + static_cast<ptrdiff_t>(k * half));
        auto child = spawn<multiplier>(self_handle(), static_cast<int32_t>(2 * i + j), half,
                                       inner_, cutoff_);
        send(child, std::move(my_rows), std::move(my_columns));
      }
    }
    pending_ = 4;
  }

  void merge(int32_t quadrant, const matrix& block) {
    size_t half = width_ / 2;
    size_t row = static_cast<size_t>(quadrant / 2) * half;
    size_t col = static_cast<size_t>(quadrant % 2) * half;
    for (size_t i = 0; i < half; ++i)
      std::copy_n(block.begin() + static_cast<ptrdiff_t>(i * half), half,
                  result_.begin() + static_cast<ptrdiff_t>((row + i) * width_ + col));
    if (--pending_ == 0) {
      send(parent_, quadrant_, std::move(result_));
      quit();
    }
  }

  troupe::actor parent_;
  int32_t quadrant_;
  size_t width_;
  size_t inner_;
  size_t cutoff_;
  matrix result_;
  int pending_ = 0; // quadrants not yet back
};

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
  matrix c;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = opts.threads();
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    patterns::compute_timer timer;
    auto root = sys.spawn<multiplier>(troupe::actor{self}, int32_t{0}, size, size, cutoff);
    self->send(root, matrix(in.a), matrix(in.b));
    self->receive([&](int32_t, matrix& block) { c = std::move(block); });
    timer.stop();
  }
  return bench::checksum("sum_of_c", mm::result_checksum(in, c), expected);
}
