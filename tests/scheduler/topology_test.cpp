// The memory hierarchy of the locality policy: hwloc's view of this machine
// and of synthetic descriptions, where workers sit on it, their rings of
// victims (Algorithm 1's levels), and the order in which hubs take the NUMA
// nodes. No threads: everything here is plain data.

#include "../../src/scheduler/topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef __linux__
#  include <sched.h>
#endif

using troupe::detail::topology;
using troupe::detail::worker_layout;

namespace {

using ids = std::vector<uint32_t>;

ids range(uint32_t from, uint32_t to) { // [from, to)
  ids result;
  for (auto i = from; i < to; ++i)
    result.push_back(i);
  return result;
}

/// Every worker's levels name every other worker exactly once, never itself,
/// each level ascending, and each level's subtree counts the worker and all
/// levels up to it.
void expect_levels_partition(const worker_layout& layout) {
  auto n = layout.workers.size();
  for (size_t w = 0; w < n; ++w) {
    std::vector<int> seen(n, 0);
    uint32_t subtree = 1;
    for (auto& level : layout.workers[w].levels) {
      EXPECT_FALSE(level.workers.empty()) << "worker " << w << ", level " << level.name;
      EXPECT_TRUE(std::is_sorted(level.workers.begin(), level.workers.end()))
        << "worker " << w << ", level " << level.name;
      for (auto x : level.workers) {
        ASSERT_LT(x, n);
        ++seen[x];
      }
      subtree += static_cast<uint32_t>(level.workers.size());
      EXPECT_EQ(level.subtree_workers, subtree) << "worker " << w << ", level " << level.name;
    }
    for (size_t x = 0; x < n; ++x)
      EXPECT_EQ(seen[x], x == w ? 0 : 1) << "worker " << w << " sees worker " << x;
  }
}

std::string message_of_load(const char* description) {
  try {
    topology::load(description);
  } catch (const std::invalid_argument& ex) {
    return ex.what();
  }
  return "(no exception)";
}

constexpr const char* four_nodes_with_l3 = "package:2 numa:2 l3:1 core:4 pu:1";
constexpr const char* two_packages = "package:2 numa:2 core:2 pu:1";

} // namespace

// -- this machine ---------------------------------------------------------------

TEST(topology, this_machine_loads_and_its_layout_covers_every_worker) {
  auto topo = topology::load("");
  EXPECT_FALSE(topo.synthetic());
  ASSERT_GE(topo.num_cores(), 1u);
  ASSERT_GE(topo.num_numa_nodes(), 1u);
  EXPECT_FALSE(topo.describe().empty());
  for (size_t n : {size_t{1}, topo.num_cores(), 2 * topo.num_cores() + 1}) {
    auto layout = topo.layout(n);
    ASSERT_EQ(layout.workers.size(), n);
    ASSERT_EQ(layout.workers_of_node.size(), topo.num_numa_nodes());
    expect_levels_partition(layout);
    size_t placed = 0;
    for (auto& node : layout.workers_of_node)
      placed += node.size();
    EXPECT_EQ(placed, n);
    for (auto& place : layout.workers) {
      EXPECT_LT(place.core, topo.num_cores());
      EXPECT_LT(place.numa_node, topo.num_numa_nodes());
    }
    EXPECT_FALSE(layout.hub_order.empty());
  }
}

TEST(topology, workers_on_this_machine_get_a_cpu_this_process_may_run_on) {
  if (std::getenv("HWLOC_SYNTHETIC") != nullptr || std::getenv("HWLOC_XMLFILE") != nullptr)
    GTEST_SKIP() << "hwloc is told to fake this machine";
  auto topo = topology::load("");
  auto layout = topo.layout(topo.num_cores());
#ifdef __linux__
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
#endif
  for (size_t i = 0; i < layout.workers.size(); ++i) {
    auto cpu = layout.workers[i].cpu;
    ASSERT_GE(cpu, 0) << "worker " << i;
#ifdef __linux__
    EXPECT_TRUE(CPU_ISSET(cpu, &allowed)) << "worker " << i << ", CPU " << cpu;
#endif
  }
}

// -- descriptions hwloc refuses -----------------------------------------------

TEST(topology, a_description_hwloc_refuses_throws_quoting_it) {
  for (const char* bad : {"core:banana", "numa:0 pu:2", "hello world", "core:2", " "}) {
    auto what = message_of_load(bad);
    EXPECT_NE(what.find(std::string{"\""} + bad + "\""), std::string::npos)
      << "for '" << bad << "': " << what;
    EXPECT_NE(what.find("hwloc refused"), std::string::npos) << what;
  }
}

TEST(topology, a_latency_matrix_of_the_wrong_size_throws) {
  std::vector<uint64_t> three{10, 20, 20};
  EXPECT_THROW(topology::load_with_latencies("numa:2 core:1 pu:1", three), std::invalid_argument);
}

// -- synthetic topologies -------------------------------------------------------

TEST(topology, a_synthetic_description_gives_its_cores_and_nodes) {
  auto topo = topology::load(four_nodes_with_l3);
  EXPECT_TRUE(topo.synthetic());
  EXPECT_EQ(topo.num_cores(), 16u);
  EXPECT_EQ(topo.num_numa_nodes(), 4u);
  EXPECT_FALSE(topo.has_numa_distances());
  EXPECT_EQ(topo.describe(), std::string{"synthetic: "} + four_nodes_with_l3
                               + " (4 NUMA nodes, 16 cores, 1 PU per core, L3 per 4 cores)");
}

TEST(topology, synthetic_topologies_report_no_cpu) {
  auto layout = topology::load(two_packages).layout(8);
  for (auto& place : layout.workers)
    EXPECT_EQ(place.cpu, -1);
}

TEST(topology, the_levels_of_a_worker_go_from_its_l3_to_its_package_to_the_machine) {
  auto layout = topology::load(four_nodes_with_l3).layout(16);
  auto& levels = layout.workers[0].levels;
  ASSERT_EQ(levels.size(), 3u);
  // One L3 per NUMA node: the two coincide, and the cache names the level.
  EXPECT_EQ(levels[0].name, "L3");
  EXPECT_EQ(levels[0].workers, range(1, 4));
  EXPECT_TRUE(levels[0].same_numa_node);
  EXPECT_EQ(levels[0].subtree_workers, 4u);
  EXPECT_EQ(levels[1].name, "package");
  EXPECT_EQ(levels[1].workers, range(4, 8));
  EXPECT_FALSE(levels[1].same_numa_node);
  EXPECT_EQ(levels[1].subtree_workers, 8u);
  EXPECT_EQ(levels[2].name, "machine");
  EXPECT_EQ(levels[2].workers, range(8, 16));
  EXPECT_FALSE(levels[2].same_numa_node);
  EXPECT_EQ(levels[2].subtree_workers, 16u);
}

TEST(topology, a_worker_in_the_last_node_sees_the_first_package_last) {
  auto layout = topology::load(four_nodes_with_l3).layout(16);
  auto& levels = layout.workers[13].levels;
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].workers, (ids{12, 14, 15}));
  EXPECT_EQ(levels[1].workers, range(8, 12));
  EXPECT_EQ(levels[2].workers, range(0, 8));
  EXPECT_EQ(layout.workers[13].numa_node, 3u);
  EXPECT_EQ(layout.workers[13].core, 13u);
}

TEST(topology, a_numa_node_below_its_package_is_a_level_of_its_own) {
  auto layout = topology::load(two_packages).layout(8);
  auto& levels = layout.workers[0].levels;
  ASSERT_EQ(levels.size(), 3u);
  EXPECT_EQ(levels[0].name, "NUMA node");
  EXPECT_EQ(levels[0].workers, ids{1});
  EXPECT_TRUE(levels[0].same_numa_node);
  EXPECT_EQ(levels[1].name, "package");
  EXPECT_EQ(levels[1].workers, (ids{2, 3}));
  EXPECT_EQ(levels[2].name, "machine");
  EXPECT_EQ(levels[2].workers, range(4, 8));
}

TEST(topology, every_worker_sees_every_other_exactly_once) {
  for (const char* description :
       {four_nodes_with_l3, two_packages, "numa:2 core:1 pu:1", "package:2 l3:1 numa:2 core:2 pu:2",
        "package:2 [numa] l2:2 core:2 pu:1", "pu:4", "numa:2 pu:2"}) {
    auto topo = topology::load(description);
    for (size_t n : {size_t{1}, size_t{3}, topo.num_cores(), 2 * topo.num_cores() + 1}) {
      SCOPED_TRACE(std::string{description} + ", " + std::to_string(n) + " workers");
      expect_levels_partition(topo.layout(n));
    }
  }
}

TEST(topology, more_workers_than_cores_share_a_core_level) {
  auto layout = topology::load(four_nodes_with_l3).layout(32);
  EXPECT_EQ(layout.workers[0].core, 0u);
  EXPECT_EQ(layout.workers[16].core, 0u);
  EXPECT_EQ(layout.workers[17].core, 1u);
  for (uint32_t w : {0u, 16u}) {
    auto& levels = layout.workers[w].levels;
    ASSERT_EQ(levels.size(), 4u);
    EXPECT_EQ(levels[0].name, "core");
    EXPECT_EQ(levels[0].workers, ids{w == 0 ? 16u : 0u});
    EXPECT_TRUE(levels[0].same_numa_node);
    EXPECT_EQ(levels[0].subtree_workers, 2u);
    EXPECT_EQ(levels[1].name, "L3");
    EXPECT_EQ(levels[1].workers, (ids{1, 2, 3, 17, 18, 19}));
    EXPECT_EQ(levels[1].subtree_workers, 8u);
    EXPECT_EQ(levels[3].subtree_workers, 32u);
  }
  expect_levels_partition(layout);
}

TEST(topology, fewer_workers_than_cores_spread_over_every_numa_node) {
  auto layout = topology::load(four_nodes_with_l3).layout(4);
  ASSERT_EQ(layout.workers_of_node.size(), 4u);
  for (uint32_t node = 0; node < 4; ++node) {
    EXPECT_EQ(layout.workers_of_node[node], ids{node});
    EXPECT_EQ(layout.workers[node].numa_node, node);
    EXPECT_EQ(layout.workers[node].core, 4 * node);
  }
  // Alone in its node: no level of its own node, the package comes first.
  auto& levels = layout.workers[0].levels;
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].name, "package");
  EXPECT_EQ(levels[0].workers, ids{1});
  EXPECT_FALSE(levels[0].same_numa_node);
  EXPECT_EQ(levels[1].workers, (ids{2, 3}));
}

TEST(topology, two_workers_on_two_nodes_each_see_the_other_in_one_level) {
  auto topo = topology::load("numa:2 core:1 pu:1");
  EXPECT_EQ(topo.num_numa_nodes(), 2u);
  auto layout = topo.layout(2);
  EXPECT_EQ(layout.workers[0].numa_node, 0u);
  EXPECT_EQ(layout.workers[1].numa_node, 1u);
  for (uint32_t w : {0u, 1u}) {
    auto& levels = layout.workers[w].levels;
    ASSERT_EQ(levels.size(), 1u);
    EXPECT_EQ(levels[0].workers, ids{1 - w});
    EXPECT_FALSE(levels[0].same_numa_node);
    EXPECT_EQ(levels[0].subtree_workers, 2u);
  }
}

TEST(topology, a_core_belongs_to_the_nearest_numa_node_that_covers_it) {
  // The third node hangs at the machine and covers every core, as a
  // CPU-less memory node does; hwloc numbers it last.
  auto topo = topology::load("[numa] package:2 [numa] core:2 pu:1");
  ASSERT_EQ(topo.num_numa_nodes(), 3u);
  auto layout = topo.layout(4);
  EXPECT_EQ(layout.workers_of_node, (std::vector<ids>{{0, 1}, {2, 3}, {}}));
  EXPECT_EQ(layout.hub_order, (ids{0, 1}));
  EXPECT_EQ(layout.workers[0].levels[0].name, "NUMA node");
}

TEST(topology, of_two_numa_nodes_on_one_package_a_core_takes_the_first) {
  auto layout = topology::load("package:2 [numa] [numa] core:2 pu:1").layout(4);
  EXPECT_EQ(layout.workers_of_node, (std::vector<ids>{{0, 1}, {}, {2, 3}, {}}));
  EXPECT_EQ(layout.hub_order, (ids{0, 2}));
}

TEST(topology, a_topology_without_cores_schedules_on_its_pus) {
  auto topo = topology::load("pu:4");
  EXPECT_EQ(topo.num_cores(), 4u);
  EXPECT_EQ(topo.num_numa_nodes(), 1u);
  auto layout = topo.layout(4);
  ASSERT_EQ(layout.workers[0].levels.size(), 1u);
  EXPECT_EQ(layout.workers[0].levels[0].workers, range(1, 4));
  EXPECT_TRUE(layout.workers[0].levels[0].same_numa_node);
}

// -- hubs -------------------------------------------------------------------------

TEST(topology, hubs_take_the_other_package_before_the_neighbouring_node) {
  auto layout = topology::load(two_packages).layout(8);
  EXPECT_EQ(layout.hub_order, (ids{0, 2, 1, 3}));
}

TEST(topology, hubs_take_only_nodes_that_have_workers) {
  auto layout = topology::load(two_packages).layout(2); // cores 0 and 4
  EXPECT_EQ(layout.hub_order, (ids{0, 2}));
  EXPECT_TRUE(layout.workers_of_node[1].empty());
  EXPECT_TRUE(layout.workers_of_node[3].empty());
}

// -- NUMA distances ---------------------------------------------------------------

// Node 0 is near node 2 (other package) and far from node 3: the latencies
// say otherwise than the tree, and win beyond the worker's own node.
const std::vector<uint64_t> crossed_latencies{
  10, 20, 12, 30, //
  20, 10, 30, 12, //
  12, 30, 10, 20, //
  30, 12, 20, 10, //
};

TEST(topology, numa_latencies_order_the_levels_beyond_the_own_node) {
  auto topo = topology::load_with_latencies(two_packages, crossed_latencies);
  EXPECT_TRUE(topo.has_numa_distances());
  auto layout = topo.layout(8);
  auto& levels = layout.workers[0].levels;
  ASSERT_EQ(levels.size(), 4u);
  EXPECT_EQ(levels[0].name, "NUMA node");
  EXPECT_EQ(levels[0].workers, ids{1});
  EXPECT_EQ(levels[1].name, "NUMA distance 12");
  EXPECT_EQ(levels[1].workers, (ids{4, 5}));
  EXPECT_EQ(levels[2].name, "NUMA distance 20");
  EXPECT_EQ(levels[2].workers, (ids{2, 3}));
  EXPECT_EQ(levels[3].name, "NUMA distance 30");
  EXPECT_EQ(levels[3].workers, (ids{6, 7}));
  EXPECT_EQ(levels[3].subtree_workers, 8u);
  expect_levels_partition(layout);
}

TEST(topology, equal_latencies_make_one_level) {
  auto topo = topology::load_with_latencies("numa:4 core:1 pu:1", std::vector<uint64_t>{
                                                                    10, 21, 21, 31, //
                                                                    21, 10, 31, 21, //
                                                                    21, 31, 10, 21, //
                                                                    31, 21, 21, 10, //
                                                                  });
  auto layout = topo.layout(4);
  auto& levels = layout.workers[0].levels;
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_EQ(levels[0].name, "NUMA distance 21");
  EXPECT_EQ(levels[0].workers, (ids{1, 2}));
  EXPECT_EQ(levels[1].name, "NUMA distance 31");
  EXPECT_EQ(levels[1].workers, ids{3});
}

TEST(topology, hubs_follow_numa_latencies_when_hwloc_has_them) {
  auto layout = topology::load_with_latencies(two_packages, crossed_latencies).layout(8);
  EXPECT_EQ(layout.hub_order, (ids{0, 3, 1, 2}));
}
