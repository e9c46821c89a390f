// Reads hwloc's tree once into plain data (topology.hpp says who calls what),
// then places workers on it without hwloc.
//
// hwloc 2.x hangs NUMA nodes beside the CPU tree, as memory children of a
// normal object with the same cpuset (a package, a cache, a group, even a
// core), so a core's NUMA node is found by cpuset, not among its ancestors.

#include "topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace troupe::detail {

namespace {

/// Owns an hwloc topology for the length of load().
class hwloc_handle {
public:
  hwloc_handle() {
    if (hwloc_topology_init(&topo_) != 0)
      throw std::runtime_error{std::string{"hwloc cannot start: "} + std::strerror(errno)};
  }

  ~hwloc_handle() {
    hwloc_topology_destroy(topo_);
  }

  hwloc_handle(const hwloc_handle&) = delete;
  hwloc_handle& operator=(const hwloc_handle&) = delete;

  hwloc_topology_t get() const noexcept {
    return topo_;
  }

private:
  hwloc_topology_t topo_ = nullptr;
};

/// Every process with the locality policy pays for the load (about 1 ms on
/// a 2-core VM, a few % of a short program): what the layout never reads is
/// left out. Memory attributes and CPU kinds are extra sysfs reads; on Linux
/// the x86 backend only annotates what sysfs already gave, binding the
/// thread to each PU in turn to run cpuid there. Distances stay: they group
/// NUMA nodes.
void skip_unused_discovery(hwloc_topology_t topo) noexcept {
#if HWLOC_API_VERSION >= 0x00020800
  hwloc_topology_set_flags(topo, hwloc_topology_get_flags(topo) | HWLOC_TOPOLOGY_FLAG_NO_MEMATTRS
                                   | HWLOC_TOPOLOGY_FLAG_NO_CPUKINDS);
#endif
#if defined(__linux__) && HWLOC_API_VERSION >= 0x00020100
  hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
#endif
}

std::string quoted(std::string_view description) {
  std::string result{"\""};
  result += description;
  result += '"';
  return result;
}

[[noreturn]] void refuse(std::string_view description, const std::string& why) {
  throw std::invalid_argument{"synthetic topology " + quoted(description) + ": " + why};
}

std::string level_name(hwloc_obj_t obj) {
  if (hwloc_obj_type_is_cache(obj->type)) {
    auto name = "L" + std::to_string(obj->attr->cache.depth);
    if (obj->attr->cache.type == HWLOC_OBJ_CACHE_INSTRUCTION)
      name += 'i';
    return name;
  }
  switch (obj->type) {
    case HWLOC_OBJ_MACHINE:
      return "machine";
    case HWLOC_OBJ_PACKAGE:
      return "package";
    case HWLOC_OBJ_DIE:
      return "die";
    case HWLOC_OBJ_GROUP:
      return "group";
    case HWLOC_OBJ_CORE:
      return "core";
    default: {
      std::string name = hwloc_obj_type_string(obj->type);
      for (auto& ch : name)
        if (ch >= 'A' && ch <= 'Z')
          ch = static_cast<char>(ch - 'A' + 'a');
      return name;
    }
  }
}

std::string counted(size_t n, const char* one, const char* many) {
  return std::to_string(n) + ' ' + (n == 1 ? one : many);
}

/// "4" or "2-4".
std::string range(size_t lo, size_t hi) {
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + '-' + std::to_string(hi);
}

/// The latency matrix hwloc has over all `nodes` (logical order), or empty.
std::vector<uint64_t> hwloc_latencies(hwloc_topology_t topo, size_t nodes) {
  constexpr unsigned long kind = HWLOC_DISTANCES_KIND_FROM_OS | HWLOC_DISTANCES_KIND_FROM_USER
                                 | HWLOC_DISTANCES_KIND_MEANS_LATENCY;
  unsigned count = 0;
  if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &count, nullptr, kind, 0) != 0
      || count == 0)
    return {};
  std::vector<hwloc_distances_s*> all(count, nullptr);
  if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &count, all.data(), kind, 0) != 0)
    return {};
  all.resize(std::min<size_t>(count, all.size()));
  std::vector<uint64_t> result;
  for (auto* d : all) {
    // A matrix over some of the nodes cannot order all of them.
    if (result.empty() && d->nbobjs == nodes) {
      result.assign(nodes * nodes, 0);
      for (unsigned i = 0; i < d->nbobjs; ++i)
        for (unsigned j = 0; j < d->nbobjs; ++j)
          result[d->objs[i]->logical_index * nodes + d->objs[j]->logical_index] =
            d->values[i * d->nbobjs + j];
    }
    hwloc_distances_release(topo, d);
  }
  return result;
}

void add_latencies(hwloc_topology_t topo, std::string_view description,
                   std::span<const uint64_t> latencies) {
  auto nodes = static_cast<unsigned>(
    std::max(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), 0));
  auto fail = [&](const std::string& why) {
    refuse(description, "NUMA latencies: " + why);
  };
  if (nodes == 0 || latencies.size() != size_t{nodes} * nodes)
    fail(std::to_string(nodes) + " NUMA nodes need " + std::to_string(size_t{nodes} * nodes)
         + " values, not " + std::to_string(latencies.size()));
  std::vector<hwloc_obj_t> objs;
  for (unsigned i = 0; i < nodes; ++i)
    objs.push_back(hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i));
  std::vector<hwloc_uint64_t> values(latencies.begin(), latencies.end());
  auto handle = hwloc_distances_add_create(
    topo, "troupe", HWLOC_DISTANCES_KIND_FROM_USER | HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0);
  if (handle == nullptr)
    fail(std::strerror(errno));
  // Either call frees the handle when it fails.
  if (hwloc_distances_add_values(topo, handle, nodes, objs.data(), values.data(), 0) != 0
      || hwloc_distances_add_commit(topo, handle, 0) != 0)
    fail(std::string{"hwloc refused them ("} + std::strerror(errno) + ")");
}

} // namespace

topology topology::load(std::string_view synthetic) {
  return load_impl(synthetic, {}, false);
}

topology topology::load_with_latencies(std::string_view synthetic,
                                       std::span<const uint64_t> latencies) {
  return load_impl(synthetic, latencies, true);
}

topology topology::load_impl(std::string_view synthetic, std::span<const uint64_t> latencies,
                             bool with_latencies) {
  hwloc_handle handle;
  auto topo = handle.get();
  if (!synthetic.empty()) {
    std::string description{synthetic};
    // hwloc says no more than EINVAL; its parser explains only with
    // HWLOC_SYNTHETIC_VERBOSE=1, on stderr.
    if (hwloc_topology_set_synthetic(topo, description.c_str()) != 0)
      refuse(synthetic, std::string{"hwloc refused it ("} + std::strerror(errno)
                          + "); expected levels of type:count from the top down to pu, e.g. "
                          + quoted("package:2 numa:2 l3:1 core:4 pu:1"));
  }
  skip_unused_discovery(topo);
  if (hwloc_topology_load(topo) != 0) {
    auto why = std::string{"hwloc cannot load it ("} + std::strerror(errno) + ")";
    if (!synthetic.empty())
      refuse(synthetic, why);
    throw std::runtime_error{"this machine's topology: " + why};
  }
  if (with_latencies)
    add_latencies(topo, synthetic, latencies);

  // A topology without Core objects (some platforms, or "pu:4") schedules
  // on its PUs.
  auto core_type = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                                       : HWLOC_OBJ_PU;
  auto num_cores = std::max(hwloc_get_nbobjs_by_type(topo, core_type), 0);
  if (num_cores == 0) {
    if (!synthetic.empty())
      refuse(synthetic, "it has no core or PU");
    throw std::runtime_error{"this machine's topology: hwloc found no core or PU"};
  }
  auto num_nodes = std::max(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), 0);
  std::vector<hwloc_obj_t> nodes;
  for (int i = 0; i < num_nodes; ++i)
    nodes.push_back(hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i)));

  topology result;
  result.synthetic_ = std::string{synthetic};
  result.num_numa_nodes_ = std::max<size_t>(nodes.size(), 1);
  // Pinning needs real OS indices: none in a synthetic topology, nor in one
  // hwloc was told to fake (HWLOC_SYNTHETIC, HWLOC_XMLFILE).
  bool pinnable = synthetic.empty() && hwloc_topology_is_thissystem(topo) != 0;

  std::unordered_map<hwloc_obj_t, uint32_t> ancestor_index;
  for (int i = 0; i < num_cores; ++i) {
    auto obj = hwloc_get_obj_by_type(topo, core_type, static_cast<unsigned>(i));
    core_info info;
    info.cpu = pinnable ? hwloc_bitmap_first(obj->cpuset) : -1;
    // The nearest node covering the core: the one with the smallest cpuset
    // (a CPU-less node hangs higher up, with a wider cpuset).
    int best_weight = std::numeric_limits<int>::max();
    for (size_t k = 0; k < nodes.size(); ++k) {
      auto node_set = nodes[k]->cpuset;
      if (node_set == nullptr || !hwloc_bitmap_isincluded(obj->cpuset, node_set))
        continue;
      auto weight = hwloc_bitmap_weight(node_set);
      if (weight >= 0 && weight < best_weight) {
        best_weight = weight;
        info.numa_node = static_cast<uint32_t>(k);
      }
    }
    for (auto up = obj->parent; up != nullptr; up = up->parent) {
      auto [at, fresh] = ancestor_index.try_emplace(up, static_cast<uint32_t>(result.ancestors_.size()));
      if (fresh)
        result.ancestors_.push_back({level_name(up), hwloc_obj_type_is_cache(up->type) != 0, {}});
      result.ancestors_[at->second].cores.push_back(static_cast<uint32_t>(i));
      info.path.push_back(at->second);
    }
    result.cores_.push_back(std::move(info));
  }

  auto n = result.num_numa_nodes_;
  result.numa_distance_ = hwloc_latencies(topo, nodes.size());
  result.numa_distances_from_hwloc_ = !result.numa_distance_.empty();
  if (!result.numa_distances_from_hwloc_) {
    // The tree's: nodes whose parents meet only near the root are far apart.
    result.numa_distance_.assign(n * n, 0);
    auto depth = static_cast<uint64_t>(std::max(hwloc_topology_get_depth(topo), 0));
    for (size_t a = 0; a < nodes.size(); ++a)
      for (size_t b = 0; b < nodes.size(); ++b) {
        if (a == b)
          continue;
        auto lca = hwloc_get_common_ancestor_obj(topo, nodes[a]->parent, nodes[b]->parent);
        auto lca_depth = lca != nullptr ? static_cast<uint64_t>(std::max(lca->depth, 0)) : 0;
        result.numa_distance_[a * n + b] = depth + 1 - std::min(lca_depth, depth);
      }
  }

  // describe()'s line, while hwloc is at hand.
  std::string& s = result.summary_;
  s = counted(result.num_numa_nodes_, "NUMA node", "NUMA nodes") + ", ";
  if (core_type == HWLOC_OBJ_CORE) {
    size_t lo = std::numeric_limits<size_t>::max(), hi = 0;
    for (int i = 0; i < num_cores; ++i) {
      auto obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
      auto pus = static_cast<size_t>(
        std::max(hwloc_get_nbobjs_inside_cpuset_by_type(topo, obj->cpuset, HWLOC_OBJ_PU), 0));
      lo = std::min(lo, pus);
      hi = std::max(hi, pus);
    }
    s += counted(static_cast<size_t>(num_cores), "core", "cores") + ", " + range(lo, hi)
         + (hi == 1 ? " PU" : " PUs") + " per core";
  } else {
    s += counted(static_cast<size_t>(num_cores), "PU", "PUs") + " (no cores)";
  }
  // The outermost cache level, and how many cores share one.
  for (auto type : {HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
                    HWLOC_OBJ_L1CACHE}) {
    auto count = hwloc_get_nbobjs_by_type(topo, type);
    if (count <= 0)
      continue;
    size_t lo = std::numeric_limits<size_t>::max(), hi = 0;
    for (int i = 0; i < count; ++i) {
      auto obj = hwloc_get_obj_by_type(topo, type, static_cast<unsigned>(i));
      auto under = static_cast<size_t>(
        std::max(hwloc_get_nbobjs_inside_cpuset_by_type(topo, obj->cpuset, core_type), 0));
      lo = std::min(lo, under);
      hi = std::max(hi, under);
    }
    auto unit = core_type == HWLOC_OBJ_CORE ? "core" : "PU";
    s += ", " + level_name(hwloc_get_obj_by_type(topo, type, 0)) + " per "
         + (hi == 1 ? std::string{unit} : range(lo, hi) + ' ' + unit + 's');
    break;
  }
  if (result.numa_distances_from_hwloc_) {
    auto values = result.numa_distance_;
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    s += ", NUMA distances";
    for (size_t i = 0; i < values.size(); ++i)
      s += (i == 0 ? " " : "/") + std::to_string(values[i]);
  }
  return result;
}

std::string topology::describe() const {
  if (synthetic())
    return "synthetic: " + synthetic_ + " (" + summary_ + ")";
  return summary_;
}

worker_layout topology::layout(size_t n) const {
  worker_layout out;
  out.workers_of_node.resize(num_numa_nodes_);
  auto cores = cores_.size();
  if (n == 0 || cores == 0)
    return out;

  std::vector<std::vector<uint32_t>> on_core(cores);
  out.workers.resize(n);
  for (size_t i = 0; i < n; ++i) {
    auto c = n >= cores ? i % cores : i * cores / n;
    auto& place = out.workers[i];
    place.core = static_cast<uint32_t>(c);
    place.numa_node = cores_[c].numa_node;
    place.cpu = cores_[c].cpu;
    on_core[c].push_back(static_cast<uint32_t>(i));
    out.workers_of_node[place.numa_node].push_back(static_cast<uint32_t>(i));
  }

  std::vector<char> covered(n);
  std::vector<uint32_t> fresh;
  for (size_t w = 0; w < n; ++w) {
    auto& place = out.workers[w];
    std::fill(covered.begin(), covered.end(), 0);
    covered[w] = 1;
    uint32_t count = 1;
    auto& own_node = out.workers_of_node[place.numa_node];
    auto take = [&](uint32_t x) {
      if (!covered[x]) {
        covered[x] = 1;
        fresh.push_back(x);
      }
    };
    auto emit = [&](std::string name) {
      std::sort(fresh.begin(), fresh.end());
      victim_level level;
      level.same_numa_node = std::all_of(fresh.begin(), fresh.end(), [&](uint32_t x) {
        return out.workers[x].numa_node == place.numa_node;
      });
      count += static_cast<uint32_t>(fresh.size());
      level.subtree_workers = count;
      level.name = std::move(name);
      level.workers = std::move(fresh);
      place.levels.push_back(std::move(level));
      fresh.clear();
    };
    auto node_complete = [&] {
      return std::all_of(own_node.begin(), own_node.end(), [&](uint32_t x) { return covered[x] != 0; });
    };

    fresh.clear();
    for (auto x : on_core[place.core])
      take(x);
    if (!fresh.empty())
      emit("core");

    // Up the tree while it orders best: to the own node's level at least,
    // and to the root when hwloc has no NUMA latencies.
    bool node_done = node_complete();
    if (!(node_done && numa_distances_from_hwloc_)) {
      for (auto a : cores_[place.core].path) {
        for (auto c : ancestors_[a].cores)
          for (auto x : on_core[c])
            take(x);
        if (fresh.empty())
          continue;
        auto name = ancestors_[a].name;
        if (!node_done && node_complete()) {
          node_done = true;
          if (!ancestors_[a].cache)
            name = "NUMA node";
        }
        emit(std::move(name));
        if (node_done && numa_distances_from_hwloc_)
          break;
      }
    }

    if (count < n) {
      if (numa_distances_from_hwloc_) {
        // One ring per distance, nearest first (std::map orders them).
        std::map<uint64_t, std::vector<uint32_t>> rings;
        for (size_t x = 0; x < n; ++x)
          if (!covered[x])
            rings[numa_distance(place.numa_node, out.workers[x].numa_node)].push_back(
              static_cast<uint32_t>(x));
        for (auto& [distance, ring] : rings) {
          fresh = std::move(ring);
          for (auto x : fresh)
            covered[x] = 1;
          emit("NUMA distance " + std::to_string(distance));
        }
      } else {
        // The root covers every core; kept so the levels cover everyone
        // whatever hwloc hands over.
        for (size_t x = 0; x < n; ++x)
          take(static_cast<uint32_t>(x));
        emit("machine");
      }
    }
  }

  // Hubs: farthest-first over the nodes that have workers.
  std::vector<uint32_t> candidates;
  for (size_t k = 0; k < out.workers_of_node.size(); ++k)
    if (!out.workers_of_node[k].empty())
      candidates.push_back(static_cast<uint32_t>(k));
  std::vector<char> taken(num_numa_nodes_);
  while (out.hub_order.size() < candidates.size()) {
    uint32_t best = 0;
    uint64_t best_distance = 0;
    bool found = false;
    for (auto c : candidates) {
      if (taken[c])
        continue;
      auto nearest = std::numeric_limits<uint64_t>::max();
      for (auto t : out.hub_order)
        nearest = std::min(nearest, numa_distance(t, c));
      // Strictly farther only: ties keep the lowest index.
      if (!found || nearest > best_distance) {
        found = true;
        best = c;
        best_distance = nearest;
      }
    }
    taken[best] = 1;
    out.hub_order.push_back(best);
  }
  return out;
}

} // namespace troupe::detail
