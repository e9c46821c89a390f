#pragma once

// The memory hierarchy the locality policy schedules on (seed 003, section
// IV.B.1): hwloc's tree of this machine, or of a synthetic description, read
// once into plain data, and where n workers sit in it: each worker's core,
// NUMA node and CPU, its rings of victims nearest first (what Algorithm 1
// walks up), and the order in which hub actors take the NUMA nodes.
//
// Callers: locality_state in work_stealing.cpp (load, layout, on the thread
// that builds the scheduler) and actor_system_config.cpp (load, to check
// troupe.scheduler.topology). Everything here is a value: load() keeps no
// hwloc handle, so a topology may be copied and read from any thread.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::detail {

/// One ring of victims around a worker: the workers that share the next
/// level of the memory hierarchy with it and no nearer one (Algorithm 1's
/// vertex v, minus what nearer levels covered).
struct victim_level {
  /// Worker indices, never the worker itself, ascending.
  std::vector<uint32_t> workers;
  /// Every one of them is in the worker's NUMA node.
  bool same_numa_node = false;
  /// Algorithm 1's |C|: the workers under this level's vertex, the worker
  /// and nearer levels included.
  uint32_t subtree_workers = 0;
  /// What the level is: "core", "L2", "L3", "NUMA node", "package", "group",
  /// "NUMA distance 21", "machine".
  std::string name;
};

/// Where one worker sits.
struct worker_place {
  /// Index of its core among the topology's cores (hwloc logical order).
  uint32_t core = 0;
  /// Index of its NUMA node among the topology's NUMA nodes.
  uint32_t numa_node = 0;
  /// OS index of the first PU of its core, for pinning; -1 for a synthetic
  /// topology.
  int cpu = -1;
  /// Nearest first; the union of all levels is every other worker exactly
  /// once.
  std::vector<victim_level> levels;
};

/// Where n workers sit on a topology.
struct worker_layout {
  std::vector<worker_place> workers;
  /// Per NUMA node, its workers ascending (empty for a node without any).
  std::vector<std::vector<uint32_t>> workers_of_node;
  /// The NUMA nodes that have workers, in the order hub actors take them:
  /// the first node with workers, then each next the node farthest from all
  /// taken so far (largest minimum distance: hwloc's NUMA distances if it has
  /// them, else the tree, a shallower common ancestor being farther); ties
  /// go to the lowest index.
  std::vector<uint32_t> hub_order;
};

class topology {
public:
  /// hwloc's view of this machine (`synthetic` empty) or of an hwloc
  /// synthetic description such as "package:2 numa:2 l3:1 core:4 pu:1".
  /// Throws std::invalid_argument, quoting the description, when hwloc
  /// refuses it or it has no core or PU.
  static topology load(std::string_view synthetic);

  /// As load(synthetic), with `latencies` (row-major, one row per NUMA node
  /// in logical order) given to hwloc as the user's NUMA latency matrix: how
  /// the tests reach the distance path, which synthetic descriptions cannot
  /// express. Throws std::invalid_argument as load() does, or when the matrix
  /// is not nodes x nodes or hwloc refuses it.
  static topology load_with_latencies(std::string_view synthetic,
                                      std::span<const uint64_t> latencies);

  bool synthetic() const noexcept {
    return !synthetic_.empty();
  }

  size_t num_cores() const noexcept {
    return cores_.size();
  }

  /// At least 1 (a machine without NUMA objects counts as one node).
  size_t num_numa_nodes() const noexcept {
    return num_numa_nodes_;
  }

  /// hwloc had a latency matrix covering every NUMA node: the levels beyond
  /// a worker's node follow it instead of the tree.
  bool has_numa_distances() const noexcept {
    return numa_distances_from_hwloc_;
  }

  /// One line for logs and benchmark reports, e.g. "2 NUMA nodes, 8 cores,
  /// 1 PU per core, L3 per 4 cores", prefixed by "synthetic: <description>"
  /// for a synthetic topology.
  std::string describe() const;

  /// n >= 1 workers: worker i runs on core i % num_cores() when n >=
  /// num_cores(); with fewer workers than cores they spread evenly (core
  /// floor(i * cores / n)), so that every NUMA node gets some. Deterministic.
  worker_layout layout(size_t n) const;

private:
  /// A normal hwloc object above some core: cache, group, die, package,
  /// machine.
  struct ancestor {
    std::string name;
    bool cache = false;
    /// The cores under it, ascending.
    std::vector<uint32_t> cores;
  };

  struct core_info {
    uint32_t numa_node = 0;
    int cpu = -1;
    /// Indices into ancestors_, nearest first, ending at the root.
    std::vector<uint32_t> path;
  };

  static topology load_impl(std::string_view synthetic, std::span<const uint64_t> latencies,
                            bool with_latencies);

  uint64_t numa_distance(uint32_t from, uint32_t to) const noexcept {
    return numa_distance_[size_t{from} * num_numa_nodes_ + to];
  }

  std::string synthetic_;
  std::string summary_;
  std::vector<ancestor> ancestors_;
  std::vector<core_info> cores_;
  size_t num_numa_nodes_ = 1;
  /// num_numa_nodes_^2, row-major: hwloc's latencies, or else the tree's
  /// (the farther the shallower the nodes' common ancestor).
  std::vector<uint64_t> numa_distance_;
  bool numa_distances_from_hwloc_ = false;
};

} // namespace troupe::detail
