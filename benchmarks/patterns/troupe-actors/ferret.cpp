// ferret (Troupe plain actors, the "pure actor" way): one actor per stage
// replica. The load actor spawns the pipeline (output, then --threads
// replicas of rank, lookup, extract and segment, each knowing the replicas
// of the next stage) and sends queries; every replica does its stage's work
// on the copies it receives and sends its results, again as copies, to the
// next stage's replicas in turn (round-robin). The output actor returns a
// credit to the load actor for each result, which keeps a bounded number of
// queries in flight. After the last query the load actor sends an end marker
// to every segment replica; a replica that has the end markers of all its
// upstream replicas passes one to each downstream replica and quits.
// Lookup and rank replicas each hold their own copy of the database.

#include "patterns/common/ferret.hpp"

#include <troupe/all.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(patterns_ferret, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(patterns_ferret, image_atom)
  TROUPE_ADD_ATOM(patterns_ferret, segments_atom)
  TROUPE_ADD_ATOM(patterns_ferret, feature_atom)
  TROUPE_ADD_ATOM(patterns_ferret, candidates_atom)
  TROUPE_ADD_ATOM(patterns_ferret, top_atom)
  TROUPE_ADD_ATOM(patterns_ferret, credit_atom)
  TROUPE_ADD_ATOM(patterns_ferret, end_atom)
TROUPE_END_TYPE_ID_BLOCK(patterns_ferret)

namespace {

using actors = std::vector<troupe::actor>;

/// What every farm replica shares: its successors, round-robin routing and
/// the end-marker count.
class replica : public troupe::event_based_actor {
public:
  replica(troupe::actor_config& cfg, actors next, size_t upstream)
    : troupe::event_based_actor(cfg), next_(std::move(next)), upstream_(upstream) {}

protected:
  const troupe::actor& next() {
    const auto& result = next_[turn_];
    turn_ = (turn_ + 1) % next_.size();
    return result;
  }

  void on_end() {
    if (--upstream_ > 0)
      return;
    for (const auto& a : next_)
      send(a, end_atom_v);
    quit();
  }

private:
  actors next_;
  size_t turn_ = 0;
  size_t upstream_;
};

class segmenter : public replica {
public:
  segmenter(troupe::actor_config& cfg, actors next, size_t upstream, int side)
    : replica(cfg, std::move(next), upstream), side_(side) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](image_atom, int32_t id, const std::vector<std::byte>& pixels) {
        std::vector<int32_t> labels;
        int32_t kept = ferret::segment(pixels, side_, labels);
        send(next(), segments_atom_v, id, pixels, std::move(labels), kept);
      },
      [this](end_atom) { on_end(); },
    };
  }

private:
  int side_;
};

class extractor : public replica {
public:
  extractor(troupe::actor_config& cfg, actors next, size_t upstream, int side)
    : replica(cfg, std::move(next), upstream), side_(side) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](segments_atom, int32_t id, const std::vector<std::byte>& pixels,
             const std::vector<int32_t>& labels, int32_t kept) {
        send(next(), feature_atom_v, id, ferret::extract(pixels, side_, labels, kept));
      },
      [this](end_atom) { on_end(); },
    };
  }

private:
  int side_;
};

class indexer : public replica {
public:
  indexer(troupe::actor_config& cfg, actors next, size_t upstream, const ferret::database& db)
    : replica(cfg, std::move(next), upstream), db_(db) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](feature_atom, int32_t id, const std::vector<double>& feature) {
        send(next(), candidates_atom_v, id, feature, ferret::lookup(db_, feature));
      },
      [this](end_atom) { on_end(); },
    };
  }

private:
  ferret::database db_;
};

class ranker : public replica {
public:
  ranker(troupe::actor_config& cfg, actors next, size_t upstream, const ferret::database& db)
    : replica(cfg, std::move(next), upstream), db_(db) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](candidates_atom, int32_t id, const std::vector<double>& feature,
             const std::vector<int32_t>& candidates) {
        send(next(), top_atom_v, id, ferret::rank(db_, feature, candidates));
      },
      [this](end_atom) { on_end(); },
    };
  }

private:
  ferret::database db_;
};

class output : public troupe::event_based_actor {
public:
  output(troupe::actor_config& cfg, troupe::actor source, int32_t queries, int32_t credits,
         size_t upstream, troupe::actor client)
    : troupe::event_based_actor(cfg), source_(std::move(source)), credits_(credits),
      upstream_(upstream), client_(std::move(client)), results_(static_cast<size_t>(queries)) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](top_atom, int32_t id, const std::vector<int32_t>& top) {
        results_[static_cast<size_t>(id)] = top;
        if (credits_ > 0) {
          --credits_;
          send(source_, credit_atom_v);
        }
      },
      [this](end_atom) {
        if (--upstream_ > 0)
          return;
        send(client_, ferret::hash_results(results_));
        quit();
      },
    };
  }

private:
  troupe::actor source_;
  int32_t credits_; // the load actor needs one per query beyond its window
  size_t upstream_;
  troupe::actor client_; // gets the result
  std::vector<std::vector<int32_t>> results_;
};

class loader : public troupe::event_based_actor {
public:
  loader(troupe::actor_config& cfg, troupe::actor client, ferret::sizes z,
         const ferret::database& db, size_t replicas)
    : troupe::event_based_actor(cfg), client_(std::move(client)), z_(z), db_(db),
      replicas_(replicas) {}

protected:
  troupe::behavior make_behavior() override {
    auto window = static_cast<int32_t>(8 * replicas_);
    actors out{system().spawn<output>(self_handle(), z_.queries,
                                      std::max(0, z_.queries - window), replicas_, client_)};
    auto rank = farm<ranker>(out, replicas_, db_);
    auto look = farm<indexer>(rank, replicas_, db_);
    auto extract = farm<extractor>(look, replicas_, z_.side);
    segmenters_ = farm<segmenter>(extract, size_t{1}, z_.side);
    db_ = ferret::database{}; // the replicas have their copies
    for (int32_t i = 0; i < window; ++i)
      send_next();
    return {
      [this](credit_atom) { send_next(); },
    };
  }

private:
  template <class Stage, class... Ts>
  actors farm(const actors& next, size_t upstream, const Ts&... xs) {
    actors result;
    for (size_t i = 0; i < replicas_; ++i)
      result.push_back(system().spawn<Stage>(next, upstream, xs...));
    return result;
  }

  void send_next() {
    if (next_id_ < z_.queries) {
      send(segmenters_[static_cast<size_t>(next_id_) % segmenters_.size()], image_atom_v,
           next_id_, ferret::load(next_id_, z_.side));
      ++next_id_;
    }
    if (next_id_ == z_.queries && !ended_) {
      ended_ = true;
      for (const auto& s : segmenters_)
        send(s, end_atom_v);
      quit();
    }
  }

  troupe::actor client_;
  ferret::sizes z_;
  ferret::database db_;
  size_t replicas_;
  actors segmenters_;
  int32_t next_id_ = 0;
  bool ended_ = false;
};

} // namespace

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = ferret::parse(argc, argv, &threads);
  auto db = ferret::make_database(z.database);
  uint64_t h = 0;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = threads;
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    patterns::compute_timer timer;
    sys.spawn<loader>(troupe::actor{self}, z, db, threads);
    self->receive([&](uint64_t result) { h = result; });
    timer.stop();
  }
  return bench::checksum("results_hash", h, ferret::expected(db, z));
}
