// canneal (threads): --threads std::threads take the partitions of a step
// from an atomic counter, anneal them against the step's snapshot and write
// their slots into the next placement (partitions own disjoint elements); a
// std::barrier ends the step, and its completion swaps snapshot and next.

#include "patterns/common/canneal.hpp"

#include <atomic>
#include <barrier>
#include <cstdint>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = canneal::parse(argc, argv, &threads);
  std::vector<int32_t> initial;
  auto nl = canneal::make_netlist(z.elements, initial);
  patterns::compute_timer timer;
  std::vector<int32_t> snapshot = initial;
  std::vector<int32_t> next(snapshot.size());
  uint32_t step = 0;
  std::atomic<uint32_t> next_partition{0};
  auto end_step = [&]() noexcept {
    snapshot.swap(next);
    next_partition.store(0, std::memory_order_relaxed);
    ++step;
  };
  std::barrier sync{static_cast<std::ptrdiff_t>(threads), end_step};
  std::vector<std::thread> pool;
  for (size_t i = 0; i < threads; ++i)
    pool.emplace_back([&] {
      // `step` changes only in the barrier's completion, seen by all after it.
      while (step < z.steps) {
        for (uint32_t p = next_partition.fetch_add(1, std::memory_order_relaxed);
             p < canneal::partitions; p = next_partition.fetch_add(1, std::memory_order_relaxed))
          canneal::merge(next, p, canneal::anneal_partition(nl, snapshot, p, step, z.swaps));
        sync.arrive_and_wait();
      }
    });
  for (auto& t : pool)
    t.join();
  uint64_t cost = canneal::routing_cost(nl, snapshot);
  timer.stop();
  return bench::checksum("routing_cost", cost, canneal::expected(nl, initial, z));
}
