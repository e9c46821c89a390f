// Work stealing that knows the machine. Two dictionaries, each a hub actor
// that spawns its own clients and serves their lookups, run under the
// locality policy: the hubs start on NUMA nodes far apart, their clients
// start next to them, and idle workers steal from the nearest workers first.
// The program prints where the steals came from, level by level.
//
// By default it schedules on a synthetic machine of two packages of two
// NUMA nodes of two cores each, so it shows the same levels on any box; run
// it with --troupe.scheduler.topology= (empty) for this machine's own
// hierarchy, with each worker pinned to its core, and with
// --troupe.scheduler.placement=local to let an unblocked actor run where its
// message came from instead of where it ran last.

#include <troupe/all.hpp>

#include <cstdint>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace troupe;

namespace {

/// Answers lookups from its table; spawns `clients` clients that each ask
/// `lookups` times and then report to `done`.
behavior dictionary(event_based_actor* self, int clients, int lookups, actor done) {
  auto table = std::make_shared<std::unordered_map<int64_t, int64_t>>();
  for (int64_t k = 0; k < 4096; ++k)
    (*table)[k] = k * k;
  for (int c = 0; c < clients; ++c) {
    // Spawned by the hub, a client starts on the hub's worker.
    self->spawn([dict = self->self_handle(), lookups, done, c](event_based_actor* client) {
      auto left = std::make_shared<int>(lookups);
      auto sum = std::make_shared<int64_t>(0);
      client->send(dict, int64_t{c});
      return behavior{[client, dict, done, left, sum](int64_t value) {
        *sum += value;
        if (--*left == 0) {
          client->send(done, *sum);
          client->quit();
          return;
        }
        client->send(dict, (value + *left) % 4096);
      }};
    });
  }
  return {[table](int64_t key) { return table->at(key); }};
}

} // namespace

int main(int argc, char** argv) {
  actor_system_config cfg;
  cfg.scheduler.policy = "locality";
  cfg.scheduler.topology = "package:2 numa:2 core:2 pu:1";
  cfg.scheduler.placement = locality_placement::affinity;
  int clients = 50;
  int lookups = 2000;
  cfg.add_option("app.clients", &clients, "clients per dictionary", 1, 10'000)
    .add_option("app.lookups", &lookups, "lookups per client", 1, 1'000'000);
  if (auto err = cfg.parse(argc, argv)) {
    std::cerr << to_string(err) << '\n';
    return 1;
  }
  if (cfg.helptext_requested()) {
    std::cout << cfg.helptext();
    return 0;
  }
  actor_system sys{cfg};
  std::cout << "policy " << sys.scheduler().name() << ", " << sys.scheduler().num_workers()
            << " workers, placement " << to_string(cfg.scheduler.placement) << '\n';
  constexpr int dictionaries = 2;
  {
    scoped_actor self{sys};
    std::vector<actor> hubs;
    for (int d = 0; d < dictionaries; ++d)
      hubs.push_back(sys.spawn<hub>(dictionary, clients, lookups, actor{self}));
    int64_t total = 0;
    for (int i = 0; i < dictionaries * clients; ++i)
      self->receive([&](int64_t sum) { total += sum; });
    std::cout << dictionaries * clients << " clients made " << dictionaries * clients * lookups
              << " lookups (checksum " << total << ")\n";
    for (auto& h : hubs)
      self->send_exit(h, exit_reason::user_shutdown);
  }
  // Steals by level, summed over the workers: nearest first.
  std::vector<uint64_t> by_level;
  for (auto& s : sys.scheduler_stats()) {
    by_level.resize(std::max(by_level.size(), s.steals_by_level.size()));
    for (size_t k = 0; k < s.steals_by_level.size(); ++k)
      by_level[k] += s.steals_by_level[k];
  }
  std::cout << "steals by level, nearest first:";
  for (auto n : by_level)
    std::cout << ' ' << n;
  std::cout << '\n';
}
