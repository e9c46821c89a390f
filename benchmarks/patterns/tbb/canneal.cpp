// canneal (tbb): per temperature step one parallel_for over the partitions
// (grain 1: a partition is a few milliseconds of work), each annealed against
// the step's snapshot and written into the next placement; the parallel_for's
// return is the step's barrier. At most --threads workers (global_control).

#include "patterns/common/canneal.hpp"

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = canneal::parse(argc, argv, &threads);
  std::vector<int32_t> initial;
  auto nl = canneal::make_netlist(z.elements, initial);
  tbb::global_control limit{tbb::global_control::max_allowed_parallelism, threads};
  patterns::compute_timer timer;
  std::vector<int32_t> snapshot = initial;
  std::vector<int32_t> next(snapshot.size());
  for (uint32_t step = 0; step < z.steps; ++step) {
    tbb::parallel_for(
      tbb::blocked_range<uint32_t>{0, canneal::partitions, 1},
      [&](const tbb::blocked_range<uint32_t>& ps) {
        for (uint32_t p = ps.begin(); p < ps.end(); ++p)
          canneal::merge(next, p, canneal::anneal_partition(nl, snapshot, p, step, z.swaps));
      },
      tbb::simple_partitioner{});
    snapshot.swap(next);
  }
  uint64_t cost = canneal::routing_cost(nl, snapshot);
  timer.stop();
  return bench::checksum("routing_cost", cost, canneal::expected(nl, initial, z));
}
