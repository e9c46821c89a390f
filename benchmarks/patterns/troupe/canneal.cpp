// canneal (troupe): a master plus Troupe's map pattern, as in the CAF
// version of seed 001's paper: per temperature step the master requests the
// map over the 64 partitions (dynamic, one partition per chunk); each job
// anneals its partitions against the step's snapshot and writes their slots
// into the next placement (partitions own disjoint elements). The answer is the
// step's barrier; the master swaps snapshot and next and goes on until the
// last step.

#include "patterns/common/canneal.hpp"
#include "patterns/troupe/run.hpp"

#include <cstdint>
#include <vector>

using namespace troupe::patterns;

namespace {

/// One step: its size() is the number of partitions.
struct step_work {
  const canneal::netlist* nl = nullptr;
  const std::vector<int32_t>* snapshot = nullptr;
  std::vector<int32_t>* next = nullptr;
  uint32_t step = 0;
  uint32_t swaps = 0;

  size_t size() const noexcept {
    return canneal::partitions;
  }
};

} // namespace

TROUPE_BEGIN_TYPE_ID_BLOCK(patterns_canneal, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(patterns_canneal, (step_work))
TROUPE_END_TYPE_ID_BLOCK(patterns_canneal)

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = canneal::parse(argc, argv, &threads);
  std::vector<int32_t> initial;
  auto nl = canneal::make_netlist(z.elements, initial);
  std::vector<int32_t> snapshot = initial;
  uint64_t cost = 0;
  {
    troupe::actor_system_config cfg;
    patterns::troupe_run::configure(cfg, threads);
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    auto anneal = spawn_pattern(sys, map(
      [](slice<step_work> parts) {
        auto& w = parts.container();
        for (auto p = parts.first(); p < parts.last(); ++p) {
          auto id = static_cast<uint32_t>(p);
          canneal::merge(*w.next, id,
                         canneal::anneal_partition(*w.nl, *w.snapshot, id, w.step, w.swaps));
        }
      },
      dynamic_partitioning{1}));
    patterns::compute_timer timer;
    std::vector<int32_t> next(snapshot.size());
    for (uint32_t step = 0; step < z.steps; ++step) {
      step_work w{&nl, &snapshot, &next, step, z.swaps};
      if (!patterns::troupe_run::ask(self, anneal, w, w))
        return 1;
      snapshot.swap(next);
    }
    cost = canneal::routing_cost(nl, snapshot);
    timer.stop();
  }
  return bench::checksum("routing_cost", cost, canneal::expected(nl, initial, z));
}
