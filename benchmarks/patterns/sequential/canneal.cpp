// canneal (sequential): the partitions of every temperature step one after
// another on one thread, the baseline of the parallel versions. --threads is
// accepted for a uniform command line only.

#include "patterns/common/canneal.hpp"

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = canneal::parse(argc, argv, &threads);
  std::vector<int32_t> initial;
  auto nl = canneal::make_netlist(z.elements, initial);
  patterns::compute_timer timer;
  uint64_t cost = canneal::anneal_all(nl, initial, z);
  timer.stop();
  std::printf("initial routing cost %llu\n",
              static_cast<unsigned long long>(canneal::routing_cost(nl, initial)));
  return bench::checksum("routing_cost", cost, canneal::expected(nl, initial, z));
}
