// TRAPR (Troupe), after Savina's trapezoid: one master, many short-lived
// workers. The master, spawned as a hub, spawns `workers` workers and sends
// each an equal share of `pieces` trapezoids of Savina's integrand from 1 to
// 5; a worker sums its share, answers and quits.

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_trapr, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(locality_trapr, work_atom)
  TROUPE_ADD_ATOM(locality_trapr, result_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_trapr)

namespace {

constexpr double left_end = 1;
constexpr double right_end = 5;

troupe::behavior worker(troupe::event_based_actor* self, const troupe::actor& master) {
  return {
    [self, master](work_atom, double left, double h, uint64_t pieces) {
      auto area = locality::trapezoid_area(left, h, pieces);
      self->send(master, result_atom_v, locality::trapezoid_fixed(area));
      self->quit();
    },
  };
}

class master : public troupe::event_based_actor {
public:
  master(troupe::actor_config& cfg, uint64_t workers, uint64_t pieces, int64_t* area)
    : troupe::event_based_actor(cfg), workers_(workers), pieces_(pieces), area_(area) {}

protected:
  troupe::behavior make_behavior() override {
    auto h = (right_end - left_end) / static_cast<double>(pieces_);
    auto share = pieces_ / workers_;
    for (uint64_t i = 0; i < workers_; ++i) {
      // The last worker also takes the pieces the division leaves over.
      auto mine = i + 1 < workers_ ? share : pieces_ - share * i;
      auto left = left_end + static_cast<double>(i * share) * h;
      send(spawn(worker, self_handle()), work_atom_v, left, h, mine);
    }
    return {
      [this](result_atom, int64_t fixed) {
        *area_ += fixed;
        if (++received_ == workers_)
          quit();
      },
    };
  }

private:
  uint64_t workers_;
  uint64_t pieces_;
  int64_t* area_; // read by main after the system has shut down
  uint64_t received_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::trapr_sizes()};
  auto pieces = opts["pieces"];
  auto workers = opts["workers"];
  if (workers == 0 || pieces < workers) {
    std::fprintf(stderr, "--workers must be positive and at most --pieces\n");
    return 2;
  }
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  int64_t fixed = 0;
  {
    troupe::actor_system sys{cfg};
    sys.spawn<master, troupe::hub>(workers, pieces, &fixed);
    locality::print_steals_when_done(sys);
  }
  return locality::checksum_close("area_e6", static_cast<double>(fixed) / 1e12,
                                  locality::trapezoid_reference(left_end, right_end, 200'000),
                                  1e-6, 1e6);
}
