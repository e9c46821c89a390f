#pragma once

// What the locality policy adds to a work-stealing core: where the workers
// sit in the memory hierarchy, who polls each NUMA node, where hubs go.
// Everything but the counters is set at construction and read-only after.

#include "../topology.hpp"

#include "troupe/scheduler/scheduler_config.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace troupe::detail::stealing {

struct locality_state {
  /// Loads troupe.scheduler.topology (std::invalid_argument if hwloc
  /// refuses it) and places max-threads workers on it, or one per core.
  explicit locality_state(const scheduler_config& cfg);

  const topology topo;
  const worker_layout layout;
  /// troupe.scheduler.placement is "affinity".
  const bool affinity;
  /// Workers sit on their cores: troupe.scheduler.pin-workers, or a
  /// topology where some workers are nearer each other than others (more
  /// than one cache or NUMA domain). Where all share one cache, a worker
  /// keeps no data a move would lose, and the kernel may move it off a
  /// core other load took.
  const bool pinned;

  struct alignas(64) node_polling {
    /// Workers of the node polling deques with work (Algorithm 1's p): a
    /// thief adds itself once its round finds a level with work, and leaves
    /// when the round ends.
    std::atomic<uint32_t> count{0};
  };

  /// One per NUMA node.
  std::unique_ptr<node_polling[]> polling;

  /// Hubs started so far; any thread.
  alignas(64) std::atomic<uint32_t> hubs{0};

  /// The worker the next hub starts on: the NUMA nodes in hub_order, and
  /// within a node its workers in turn. Any thread.
  uint32_t next_hub_worker() noexcept {
    auto k = hubs.fetch_add(1, std::memory_order_relaxed);
    auto& order = layout.hub_order;
    auto& node = layout.workers_of_node[order[k % order.size()]];
    return node[(k / order.size()) % node.size()];
  }
};

} // namespace troupe::detail::stealing
