#pragma once

// The scheduler flags every Troupe program of the locality study takes
// besides the shared command line (common/options.hpp):
//
//   --policy=work-stealing|locality   troupe.scheduler.policy (work-stealing)
//   --placement=local|affinity        troupe.scheduler.placement (local)
//   --topology=<hwloc synthetic>      troupe.scheduler.topology (this machine)
//
// --placement and --topology apply to the locality policy only, so that a
// result is never labelled with a setting that had no effect.
//
// print_steals_when_done() reports where the workers stole, for the study's table of
// steal order on synthetic topologies.

#include "common/options.hpp"

#include <troupe/actor_system.hpp>
#include <troupe/actor_system_config.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace locality {

class scheduler_flags {
public:
  /// Takes the scheduler flags out of argv (the rest is for bench::options);
  /// prints usage and exits with 2 on a bad combination.
  scheduler_flags(int& argc, char** argv) {
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--help" || arg == "-h")
        std::printf("scheduler: [--policy=work-stealing|locality] [--placement=local|affinity]"
                    " [--topology=<hwloc synthetic description>]\n");
      if (!take(arg, "policy", policy_) && !take(arg, "placement", placement_)
          && !take(arg, "topology", topology_))
        argv[kept++] = argv[i];
    }
    argc = kept;
    if (policy_ != "locality" && (!placement_.empty() || !topology_.empty())) {
      std::fprintf(stderr, "%s: --placement and --topology apply to --policy=locality only\n",
                   argv[0]);
      std::exit(2);
    }
  }

  /// Puts the flags and `threads` workers into `cfg`; prints Troupe's error
  /// and returns false if it rejects a value.
  bool apply(troupe::actor_system_config& cfg, size_t threads) const {
    std::vector<std::pair<std::string, std::string>> settings{
      {"troupe.scheduler.max-threads", std::to_string(threads)}};
    if (!policy_.empty())
      settings.emplace_back("troupe.scheduler.policy", policy_);
    if (!placement_.empty())
      settings.emplace_back("troupe.scheduler.placement", placement_);
    if (!topology_.empty())
      settings.emplace_back("troupe.scheduler.topology", topology_);
    for (const auto& [key, value] : settings) {
      if (auto err = cfg.set(key, value)) {
        std::fprintf(stderr, "%s=%s: %s\n", key.c_str(), value.c_str(), to_string(err).c_str());
        return false;
      }
    }
    return true;
  }

private:
  static bool take(std::string_view arg, std::string_view name, std::string& out) {
    if (arg.substr(0, 2) != "--" || arg.substr(2, name.size()) != name
        || arg.size() < name.size() + 3 || arg[name.size() + 2] != '=')
      return false;
    out = std::string{arg.substr(name.size() + 3)};
    return true;
  }

  std::string policy_;
  std::string placement_;
  std::string topology_;
};

/// Waits until every actor is done (what ~actor_system would wait for),
/// then prints `metric steals <n> count` and, under the locality policy,
/// `metric steals_level<k> <n> count` summed over the workers, level 0 the
/// nearest. On a symmetric topology level k is the same kind of level for
/// every worker (for example core, node, other node); on an asymmetric one
/// the sums mix kinds.
inline void print_steals_when_done(troupe::actor_system& sys) {
  sys.await_all_actors_done();
  uint64_t total = 0;
  std::vector<uint64_t> by_level;
  for (const auto& w : sys.scheduler_stats()) {
    total += w.steals;
    if (w.steals_by_level.size() > by_level.size())
      by_level.resize(w.steals_by_level.size());
    for (size_t k = 0; k < w.steals_by_level.size(); ++k)
      by_level[k] += w.steals_by_level[k];
  }
  std::printf("metric steals %llu count\n", static_cast<unsigned long long>(total));
  for (size_t k = 0; k < by_level.size(); ++k)
    std::printf("metric steals_level%zu %llu count\n", k,
                static_cast<unsigned long long>(by_level[k]));
}

} // namespace locality
