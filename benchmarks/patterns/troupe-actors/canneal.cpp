// canneal (Troupe plain actors, the "pure actor" way): a master actor owns
// the placement and runs the temperature steps; each step it sends every one
// of --threads worker actors a copy of the step's snapshot, worker w anneals
// partitions w, w + threads, ... (static scheduling) and sends each
// partition's slots back as a copy; when all partitions are back, the master
// merges them and starts the next step (the barrier). Each worker holds its
// own copy of the netlist.

#include "patterns/common/canneal.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(patterns_canneal, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(patterns_canneal, step_atom)
  TROUPE_ADD_ATOM(patterns_canneal, slots_atom)
  TROUPE_ADD_ATOM(patterns_canneal, done_atom)
TROUPE_END_TYPE_ID_BLOCK(patterns_canneal)

namespace {

class worker : public troupe::event_based_actor {
public:
  worker(troupe::actor_config& cfg, troupe::actor master, uint32_t index, uint32_t workers,
         const canneal::netlist& nl, uint32_t swaps)
    : troupe::event_based_actor(cfg), master_(std::move(master)), index_(index),
      workers_(workers), nl_(nl), swaps_(swaps) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](step_atom, uint32_t step, const std::vector<int32_t>& snapshot) {
        for (uint32_t p = index_; p < canneal::partitions; p += workers_)
          send(master_, slots_atom_v, p,
               canneal::anneal_partition(nl_, snapshot, p, step, swaps_));
      },
      [this](done_atom) { quit(); },
    };
  }

private:
  troupe::actor master_;
  uint32_t index_;
  uint32_t workers_;
  canneal::netlist nl_;
  uint32_t swaps_;
};

class master : public troupe::event_based_actor {
public:
  master(troupe::actor_config& cfg, troupe::actor client, const canneal::netlist& nl,
         std::vector<int32_t> initial, canneal::sizes z, uint32_t workers)
    : troupe::event_based_actor(cfg), nl_(nl), z_(z), workers_count_(workers),
      client_(std::move(client)), placement_(std::move(initial)) {}

protected:
  troupe::behavior make_behavior() override {
    for (uint32_t i = 0; i < workers_count_; ++i)
      workers_.push_back(
        system().spawn<worker>(self_handle(), i, workers_count_, nl_, z_.swaps));
    start_step();
    return {
      [this](slots_atom, uint32_t p, const std::vector<int32_t>& mine) {
        canneal::merge(next_, p, mine);
        if (++partitions_done_ < canneal::partitions)
          return;
        placement_.swap(next_);
        if (++step_ < z_.steps) {
          start_step();
          return;
        }
        send(client_, canneal::routing_cost(nl_, placement_));
        for (auto& w : workers_)
          send(w, done_atom_v);
        quit();
      },
    };
  }

private:
  void start_step() {
    next_.resize(placement_.size());
    partitions_done_ = 0;
    for (auto& w : workers_)
      send(w, step_atom_v, step_, placement_);
  }

  canneal::netlist nl_;
  canneal::sizes z_;
  uint32_t workers_count_;
  troupe::actor client_; // gets the result
  std::vector<troupe::actor> workers_;
  std::vector<int32_t> placement_;
  std::vector<int32_t> next_;
  uint32_t step_ = 0;
  uint32_t partitions_done_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = canneal::parse(argc, argv, &threads);
  std::vector<int32_t> initial;
  auto nl = canneal::make_netlist(z.elements, initial);
  uint64_t cost = 0;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = threads;
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    patterns::compute_timer timer;
    if (z.steps == 0) {
      cost = canneal::routing_cost(nl, initial);
    } else {
      sys.spawn<master>(troupe::actor{self}, nl, initial, z, static_cast<uint32_t>(threads));
      self->receive([&](uint64_t result) { cost = result; });
    }
    timer.stop();
  }
  return bench::checksum("routing_cost", cost, canneal::expected(nl, initial, z));
}
