// mixed_case (Troupe), after the mixed_case of CAF's benchmarks repository:
// message passing in rings mixed with number crunching.
//
// Each of `rings` masters builds a ring of `ring-size` actors (itself and
// ring-size - 1 links) and sends a token with value `token` around it. Links
// forward the token unchanged; the master forwards it with the value minus
// one, so the token makes token + 1 laps. A link quits after forwarding 0;
// when 0 is back, the master builds the next ring, `repetitions` times. For
// every ring the master also asks its worker to factorise `number`; a
// supervisor checks each result and waits for every master to finish.

#include "common/options.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

using factors = std::vector<uint64_t>;

TROUPE_BEGIN_TYPE_ID_BLOCK(core_mixed_case, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(core_mixed_case, calc_atom)
  TROUPE_ADD_ATOM(core_mixed_case, result_atom)
  TROUPE_ADD_ATOM(core_mixed_case, done_atom)
  TROUPE_ADD_ATOM(core_mixed_case, token_atom)
  TROUPE_ADD_ATOM(core_mixed_case, master_done_atom)
TROUPE_END_TYPE_ID_BLOCK(core_mixed_case)

namespace {

// Trial division, deliberately slow: this is the CPU-bound part.
factors factorize(uint64_t n) {
  factors result;
  if (n <= 3) {
    result.push_back(n);
    return result;
  }
  uint64_t d = 2;
  while (d < n) {
    if (n % d == 0) {
      result.push_back(d);
      n /= d;
    } else {
      d = d == 2 ? 3 : d + 2;
    }
  }
  result.push_back(d);
  return result;
}

troupe::behavior worker(troupe::event_based_actor* self, troupe::actor supervisor) {
  return {
    [=](calc_atom, uint64_t n) { self->send(supervisor, result_atom_v, n, factorize(n)); },
    [=](done_atom) { self->quit(); },
  };
}

troupe::behavior chain_link(troupe::event_based_actor* self, troupe::actor next) {
  return {
    [=](token_atom, uint64_t value) {
      self->send(next, token_atom_v, value);
      if (value == 0)
        self->quit();
    },
  };
}

struct ring_parameters {
  uint64_t number;
  uint64_t ring_size;
  uint64_t token;
  uint64_t repetitions;
};

class chain_master : public troupe::event_based_actor {
public:
  chain_master(troupe::actor_config& cfg, troupe::actor supervisor,
               ring_parameters params)
    : troupe::event_based_actor(cfg), supervisor_(std::move(supervisor)),
      params_(params) {}

protected:
  troupe::behavior make_behavior() override {
    worker_ = system().spawn(worker, supervisor_);
    new_ring();
    return {
      [this](token_atom, uint64_t value) {
        if (value > 0) {
          send(next_, token_atom_v, value - 1);
        } else if (++iteration_ < params_.repetitions) {
          new_ring();
        } else {
          send(worker_, done_atom_v);
          send(supervisor_, master_done_atom_v);
          quit();
        }
      },
    };
  }

private:
  void new_ring() {
    send(worker_, calc_atom_v, params_.number);
    next_ = self_handle();
    for (uint64_t i = 1; i < params_.ring_size; ++i)
      next_ = system().spawn(chain_link, next_);
    send(next_, token_atom_v, params_.token);
  }

  troupe::actor supervisor_;
  troupe::actor worker_;
  troupe::actor next_;
  ring_parameters params_;
  uint64_t iteration_ = 0;
};

class supervisor : public troupe::event_based_actor {
public:
  supervisor(troupe::actor_config& cfg, uint64_t expected_messages,
             uint64_t* good_results)
    : troupe::event_based_actor(cfg), left_(expected_messages),
      good_results_(good_results) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](master_done_atom) { count_down(); },
      [this](result_atom, uint64_t n, const factors& xs) {
        uint64_t product = 1;
        for (auto x : xs)
          product *= x;
        if (product == n && xs.size() > 1)
          ++*good_results_;
        count_down();
      },
    };
  }

private:
  void count_down() {
    if (--left_ == 0)
      quit();
  }

  uint64_t left_;
  uint64_t* good_results_; // read by main after the system has shut down
};

} // namespace

int main(int argc, char** argv) {
  bench::options opts{
    argc, argv,
    {{"rings", 100, 100, "rings, each with a master and a worker"},
     {"ring-size", 100, 100, "actors per ring, the master included"},
     {"token", 50, 1000, "initial token value: the token makes token+1 laps"},
     {"repetitions", 4, 4, "rings each master builds one after another"},
     // 1'299'709 * 2'750'159 and 1'299'709 * 15'485'863: trial division
     // runs up to the larger prime, about 4 ms and 20 ms on a 2020s core.
     {"number", 3'574'406'403'731, 20'127'115'513'867,
      "composite each worker factorises once per ring"}}};
  auto rings = opts["rings"];
  ring_parameters params{opts["number"], opts["ring-size"], opts["token"],
                         opts["repetitions"]};
  if (params.ring_size == 0 || params.repetitions == 0) {
    std::fprintf(stderr, "--ring-size and --repetitions must be positive\n");
    return 2;
  }
  uint64_t good_results = 0;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = opts.threads();
    troupe::actor_system sys{cfg};
    // One master_done per master plus one result per ring.
    auto sv = sys.spawn<supervisor>(rings + rings * params.repetitions, &good_results);
    for (uint64_t i = 0; i < rings; ++i)
      sys.spawn<chain_master>(sv, params);
  } // ~actor_system waits for every actor
  return bench::checksum("factorisations", good_results, rings * params.repetitions);
}
