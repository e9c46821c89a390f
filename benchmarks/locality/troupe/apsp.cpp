// APSP (Troupe), after Savina's apsp: Floyd-Warshall on a `nodes` x `nodes`
// weight matrix cut into blocks of `block` x `block`, one actor per block.
// After each step k an actor sends its block to every actor of its block
// row and block column, and takes step k + 1 once it has all of theirs for
// step k. Neighbours run at most one step ahead, so an actor keeps the
// blocks of two steps.

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_apsp, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(locality_apsp, (std::vector<troupe::actor>))
  TROUPE_ADD_ATOM(locality_apsp, block_atom)
  TROUPE_ADD_ATOM(locality_apsp, result_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_apsp)

namespace {

using locality::apsp_block;

struct grid {
  uint64_t nodes;
  uint64_t block;
  uint64_t per_dim; // blocks per row and column
};

class block_actor : public troupe::event_based_actor {
public:
  block_actor(troupe::actor_config& cfg, grid g, uint64_t row, uint64_t col, apsp_block data,
              troupe::actor report_to)
    : troupe::event_based_actor(cfg), grid_(g), row_(row), col_(col), own_(std::move(data)),
      report_to_(std::move(report_to)), current_(g.per_dim * g.per_dim),
      next_(g.per_dim * g.per_dim) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](const std::vector<troupe::actor>& neighbors) {
        neighbors_ = neighbors;
        publish();
        advance();
      },
      [this](block_atom, uint64_t version, uint64_t row, uint64_t col, apsp_block& data) {
        auto& slot = version == steps_ ? current_ : next_;
        auto& count = version == steps_ ? current_count_ : next_count_;
        slot[row * grid_.per_dim + col] = std::move(data);
        ++count;
        if (!neighbors_.empty())
          advance();
      },
    };
  }

private:
  void publish() {
    for (const auto& x : neighbors_)
      send(x, block_atom_v, steps_, row_, col_, own_);
  }

  // Takes every step whose blocks are all in.
  void advance() {
    while (current_count_ == neighbors_.size()) {
      auto k = steps_;
      auto k_block = k / grid_.block;
      const auto& row_k = k_block == col_ ? own_ : current_[row_ * grid_.per_dim + k_block];
      const auto& col_k = k_block == row_ ? own_ : current_[k_block * grid_.per_dim + col_];
      own_ = locality::apsp_step(own_, row_k, col_k, grid_.block, k);
      ++steps_;
      std::swap(current_, next_);
      current_count_ = next_count_;
      next_count_ = 0;
      if (steps_ == grid_.nodes) {
        send(report_to_, result_atom_v, locality::apsp_sum(own_));
        quit();
        return;
      }
      publish();
    }
  }

  grid grid_;
  uint64_t row_;
  uint64_t col_;
  apsp_block own_;
  troupe::actor report_to_;
  std::vector<troupe::actor> neighbors_;
  uint64_t steps_ = 0;
  // Blocks of the neighbours for step steps_ and steps_ + 1, by position.
  std::vector<apsp_block> current_;
  std::vector<apsp_block> next_;
  size_t current_count_ = 0;
  size_t next_count_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::apsp_sizes()};
  grid g{opts["nodes"], opts["block"], 0};
  auto max_weight = opts["max-weight"];
  if (g.block == 0 || g.nodes % g.block != 0 || g.nodes / g.block < 2 || max_weight == 0) {
    std::fprintf(stderr, "--block must divide --nodes into at least 2 x 2 blocks\n");
    return 2;
  }
  g.per_dim = g.nodes / g.block;
  auto graph = locality::apsp_graph(g.nodes, max_weight);
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  uint64_t sum = 0;
  {
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    std::vector<troupe::actor> blocks;
    for (uint64_t r = 0; r < g.per_dim; ++r)
      for (uint64_t c = 0; c < g.per_dim; ++c)
        blocks.push_back(sys.spawn<block_actor>(
          g, r, c, locality::apsp_block_of(graph, g.nodes, g.block, r, c), troupe::actor{self}));
    for (uint64_t r = 0; r < g.per_dim; ++r) {
      for (uint64_t c = 0; c < g.per_dim; ++c) {
        std::vector<troupe::actor> neighbors;
        for (uint64_t i = 0; i < g.per_dim; ++i) {
          if (i != r)
            neighbors.push_back(blocks[i * g.per_dim + c]);
          if (i != c)
            neighbors.push_back(blocks[r * g.per_dim + i]);
        }
        self->send(blocks[r * g.per_dim + c], std::move(neighbors));
      }
    }
    for (size_t i = 0; i < blocks.size(); ++i)
      self->receive([&](result_atom, uint64_t block_sum) { sum += block_sum; });
    locality::print_steals_when_done(sys);
  }
  return bench::checksum("distance_sum", sum, locality::apsp_expected(std::move(graph), g.nodes));
}
