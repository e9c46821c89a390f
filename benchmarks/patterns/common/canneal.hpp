#pragma once

// canneal: simulated annealing of a generated netlist, shared by every
// version of the application (plain C++17: the CAF 0.17 program includes it).
//
// Elements sit on the slots of a grid; each has a few fan-out neighbours, and
// the routing cost is the sum of the Manhattan lengths of all those wires. A
// step at temperature T makes a fixed number of swap attempts: two elements
// exchange their slots, and a swap that lengthens the wires is undone unless
// a draw below exp(-delta / T) keeps it.
//
// The result must not depend on the number of workers, so the work is cut
// into a fixed number of partitions (element e belongs to partition
// e % partitions), each with its own random stream per step, swapping only
// its own elements. During a step a partition sees its own elements where it
// moved them and every other element where it was at the start of the step
// (the snapshot); at the end of the step the partitions' slots are merged into
// the next snapshot. Partitions may thus run in any order on any worker, and
// the final routing cost, the checksum, is the same for every version.

#include "common/options.hpp"
#include "patterns/common/util.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace canneal {

constexpr uint32_t partitions = 64; // a power of two: e % partitions is a mask

/// Draws on top of the study's generator: an integer below n (n < 2^32)
/// and a double in [0, 1).
inline uint32_t below(patterns::random& r, uint32_t n) noexcept {
  return static_cast<uint32_t>((r.next() >> 32) * n >> 32);
}

inline double unit(patterns::random& r) noexcept {
  return static_cast<double>(r.next() >> 11) * (1.0 / 9007199254740992.0);
}

/// A slot packs its grid coordinates as (y << 16) | x.
inline int32_t distance(int32_t a, int32_t b) noexcept {
  return std::abs((a & 0xffff) - (b & 0xffff)) + std::abs((a >> 16) - (b >> 16));
}

struct netlist {
  uint32_t elements = 0;
  // Neighbours of element e (fan-out and fan-in, so that a swap sees every
  // wire it changes): adjacent[first[e] .. first[e + 1]).
  std::vector<uint32_t> first;
  std::vector<uint32_t> adjacent;
  // The fan-out wires, each counted once in the routing cost.
  std::vector<uint32_t> wire_from;
  std::vector<uint32_t> wire_to;
};

struct sizes {
  uint32_t elements;
  uint32_t steps;
  uint32_t swaps; // attempts per partition and step
};

constexpr uint64_t seed = 0x5eed0c0ffee;

/// The netlist and the initial placement (a random permutation of slots).
inline netlist make_netlist(uint32_t elements, std::vector<int32_t>& placement) {
  netlist nl;
  nl.elements = elements;
  patterns::random r{seed};
  for (uint32_t e = 0; e < elements; ++e) {
    uint32_t fan_out = 1 + below(r, 4);
    for (uint32_t i = 0; i < fan_out; ++i) {
      uint32_t to = below(r, elements);
      if (to == e)
        continue;
      nl.wire_from.push_back(e);
      nl.wire_to.push_back(to);
    }
  }
  std::vector<uint32_t> degree(elements + 1, 0);
  for (size_t w = 0; w < nl.wire_from.size(); ++w) {
    ++degree[nl.wire_from[w]];
    ++degree[nl.wire_to[w]];
  }
  nl.first.assign(elements + 1, 0);
  for (uint32_t e = 0; e < elements; ++e)
    nl.first[e + 1] = nl.first[e] + degree[e];
  nl.adjacent.resize(nl.first[elements]);
  std::vector<uint32_t> fill(nl.first.begin(), nl.first.end() - 1);
  for (size_t w = 0; w < nl.wire_from.size(); ++w) {
    nl.adjacent[fill[nl.wire_from[w]]++] = nl.wire_to[w];
    nl.adjacent[fill[nl.wire_to[w]]++] = nl.wire_from[w];
  }
  auto width = static_cast<uint32_t>(std::ceil(std::sqrt(static_cast<double>(elements))));
  placement.resize(elements);
  for (uint32_t e = 0; e < elements; ++e)
    placement[e] = static_cast<int32_t>(((e / width) << 16) | (e % width));
  for (uint32_t e = elements; e > 1; --e) { // Fisher-Yates
    uint32_t j = below(r, e);
    std::swap(placement[e - 1], placement[j]);
  }
  return nl;
}

inline uint64_t routing_cost(const netlist& nl, const std::vector<int32_t>& placement) {
  uint64_t cost = 0;
  for (size_t w = 0; w < nl.wire_from.size(); ++w)
    cost += static_cast<uint64_t>(distance(placement[nl.wire_from[w]], placement[nl.wire_to[w]]));
  return cost;
}

inline double temperature(uint32_t step) {
  return 40.0 * std::pow(0.93, static_cast<double>(step));
}

/// Elements of partition p: p, p + partitions, p + 2 * partitions, ...
inline uint32_t partition_size(uint32_t elements, uint32_t p) {
  return p < elements ? (elements - p + partitions - 1) / partitions : 0;
}

/// One step of partition p: `swaps` attempts on its own elements, reading the
/// others from `snapshot`. Returns the slots of its elements after the step,
/// in partition order (element p + k * partitions at index k).
inline std::vector<int32_t> anneal_partition(const netlist& nl,
                                             const std::vector<int32_t>& snapshot, uint32_t p,
                                             uint32_t step, uint32_t swaps) {
  uint32_t count = partition_size(nl.elements, p);
  std::vector<int32_t> mine(count);
  for (uint32_t k = 0; k < count; ++k)
    mine[k] = snapshot[p + k * partitions];
  if (count < 2)
    return mine;
  patterns::random r{seed ^ (uint64_t{p} << 40) ^ (uint64_t{step} * 0x2545f4914f6cdd1dull)};
  double t = temperature(step);
  auto slot = [&](uint32_t e) {
    return (e & (partitions - 1)) == p ? mine[e / partitions] : snapshot[e];
  };
  // The change of wire length when element e moves from `from` to `to`,
  // leaving out the wire to `other` (the swap keeps that one's length).
  auto moved = [&](uint32_t e, int32_t from, int32_t to, uint32_t other) {
    int64_t delta = 0;
    for (uint32_t i = nl.first[e]; i < nl.first[e + 1]; ++i) {
      uint32_t n = nl.adjacent[i];
      if (n == other)
        continue;
      int32_t at = slot(n);
      delta += distance(to, at) - distance(from, at);
    }
    return delta;
  };
  for (uint32_t s = 0; s < swaps; ++s) {
    uint32_t ka = below(r, count);
    uint32_t kb = below(r, count);
    if (ka == kb)
      continue;
    uint32_t a = p + ka * partitions;
    uint32_t b = p + kb * partitions;
    int32_t la = mine[ka];
    int32_t lb = mine[kb];
    // Swap, measure, and roll back if the annealing rule rejects it.
    mine[ka] = lb;
    mine[kb] = la;
    int64_t delta = moved(a, la, lb, b) + moved(b, lb, la, a);
    if (delta > 0 && unit(r) >= std::exp(-static_cast<double>(delta) / t)) {
      mine[ka] = la;
      mine[kb] = lb;
    }
  }
  return mine;
}

/// Writes partition p's slots back into a placement.
inline void merge(std::vector<int32_t>& placement, uint32_t p, const std::vector<int32_t>& mine) {
  for (size_t k = 0; k < mine.size(); ++k)
    placement[p + k * partitions] = mine[k];
}

inline sizes parse(int argc, char** argv, size_t* threads) {
  bench::options opts{argc, argv,
                      {{"elements", 100'000, 100'000, "netlist elements"},
                       {"steps", 40, 120, "temperature steps"},
                       {"swaps", 1'500, 4'000, "swap attempts per partition and step"}}};
  *threads = opts.threads();
  sizes z{static_cast<uint32_t>(opts["elements"]), static_cast<uint32_t>(opts["steps"]),
          static_cast<uint32_t>(opts["swaps"])};
  // Coordinates take 15 bits each in a slot.
  if (z.elements < 2 || z.elements > 1'000'000'000) {
    std::fprintf(stderr, "--elements must be between 2 and 10^9\n");
    std::exit(2);
  }
  return z;
}

/// Sequential reference: the final routing cost of the given sizes.
inline uint64_t anneal_all(const netlist& nl, std::vector<int32_t> placement, const sizes& z) {
  std::vector<int32_t> next(placement.size());
  for (uint32_t step = 0; step < z.steps; ++step) {
    for (uint32_t p = 0; p < partitions; ++p)
      merge(next, p, anneal_partition(nl, placement, p, step, z.swaps));
    placement.swap(next);
  }
  return routing_cost(nl, placement);
}

/// The checksum every version must reproduce: known for the default sizes,
/// computed sequentially (after the timed part) for others.
inline uint64_t expected(const netlist& nl, const std::vector<int32_t>& initial, const sizes& z) {
  if (z.elements == 100'000 && z.steps == 40 && z.swaps == 1'500)
    return 28427190;
  if (z.elements == 100'000 && z.steps == 120 && z.swaps == 4'000)
    return 23558841;
  return anneal_all(nl, initial, z);
}

} // namespace canneal
