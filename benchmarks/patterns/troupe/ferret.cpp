// ferret (troupe): Troupe's patterns as the CAF version of seed 001's paper nests
// them: pipeline(seq(load), farm(segment), farm(extract), farm(lookup),
// farm(rank)), with the farms' replicas routing straight into the next farm
// (no router actors). The driver streams query IDs in with a bounded window
// and takes the ranked queries back as the output stage; the query moves
// from stage to stage inside its message, never copied.

#include "patterns/common/ferret.hpp"
#include "patterns/troupe/run.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

using namespace troupe::patterns;

TROUPE_BEGIN_TYPE_ID_BLOCK(patterns_ferret, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(patterns_ferret, (ferret::query))
TROUPE_END_TYPE_ID_BLOCK(patterns_ferret)

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = ferret::parse(argc, argv, &threads);
  auto db = ferret::make_database(z.database);
  std::vector<std::vector<int32_t>> results(static_cast<size_t>(z.queries));
  uint64_t h = 0;
  {
    troupe::actor_system_config cfg;
    patterns::troupe_run::configure(cfg, threads);
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    auto side = z.side;
    const ferret::database* d = &db;
    auto search = spawn_pattern(sys, pipeline(
      seq([side](int32_t id) {
        ferret::query q;
        q.id = id;
        q.pixels = ferret::load(id, side);
        return q;
      }).name("load"),
      farm(seq([side](ferret::query q) {
        q.kept = ferret::segment(q.pixels, side, q.labels);
        return q;
      }).name("segment")),
      farm(seq([side](ferret::query q) {
        q.feature = ferret::extract(q.pixels, side, q.labels, q.kept);
        return q;
      }).name("extract")),
      farm(seq([d](ferret::query q) {
        q.candidates = ferret::lookup(*d, q.feature);
        return q;
      }).name("lookup")),
      farm(seq([d](ferret::query q) {
        q.top = ferret::rank(*d, q.feature, q.candidates);
        return q;
      }).name("rank"))));
    patterns::compute_timer timer;
    // A bounded number of queries in flight, as PARSEC's bounded queues.
    auto window = static_cast<int32_t>(std::max<size_t>(8 * threads, 8));
    int32_t sent = 0;
    for (; sent < std::min(window, z.queries); ++sent)
      self->send(search, sent);
    for (int32_t done = 0; done < z.queries; ++done) {
      bool ok = false;
      self->receive(
        [&](ferret::query& q) {
          results[static_cast<size_t>(q.id)] = std::move(q.top);
          ok = true;
        },
        [&](troupe::error& err) {
          std::fprintf(stderr, "pattern failed: %s\n", to_string(err).c_str());
        });
      if (!ok)
        return 1;
      if (sent < z.queries)
        self->send(search, sent++);
    }
    h = ferret::hash_results(results);
    timer.stop();
  }
  return bench::checksum("results_hash", h, ferret::expected(db, z));
}
