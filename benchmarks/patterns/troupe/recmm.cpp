// recmm (troupe): Troupe's div_conq pattern over blocks of C. A problem is
// a block of C (row, column, width) with pointers to the shared A, B and C:
// divide makes its four quadrants, the base case computes a block with the
// kernel every version uses, and nothing is left to combine (the quadrants
// are disjoint).

#include "common/options.hpp"
#include "patterns/common/recmm.hpp"
#include "patterns/troupe/run.hpp"

#include <array>
#include <cstdio>
#include <span>

namespace mm = patterns::recmm;
using namespace troupe::patterns;

namespace {

struct block {
  const mm::input* in;
  double* c;
  size_t row;
  size_t col;
  size_t width;
};

} // namespace

TROUPE_BEGIN_TYPE_ID_BLOCK(patterns_recmm, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(patterns_recmm, (block))
TROUPE_END_TYPE_ID_BLOCK(patterns_recmm)

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
  {
    troupe::actor_system_config cfg;
    patterns::troupe_run::configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    auto multiply = spawn_pattern(sys, div_conq(
      [](const block& b) {
        auto h = b.width / 2;
        return std::array{block{b.in, b.c, b.row, b.col, h}, block{b.in, b.c, b.row, b.col + h, h},
                          block{b.in, b.c, b.row + h, b.col, h},
                          block{b.in, b.c, b.row + h, b.col + h, h}};
      },
      [](block&, std::span<block>) {},
      [](block b) { mm::multiply_block_at(*b.in, b.c, b.row, b.col, b.width); },
      [cutoff](const block& b) { return b.width <= cutoff; }));
    patterns::compute_timer timer;
    block whole{&in, c.data(), 0, 0, size};
    if (!patterns::troupe_run::ask(self, multiply, whole, whole))
      return 1;
    timer.stop();
  }
  return bench::checksum("sum_of_c", mm::result_checksum(in, c), expected);
}
