// TRAPR (CAF 0.17 and 1.x), after Savina's trapezoid: one master, many short-lived
// workers. The master (the hub) spawns `workers` workers and sends
// each an equal share of `pieces` trapezoids of Savina's integrand from 1 to
// 5; a worker sums its share, answers and quits.

#include "common/caf_compat.hpp"
#include "common/options.hpp"
#include "locality/common/workloads.hpp"

#include <cstdint>
#include <cstdio>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(locality_trapr, caf::first_custom_type_id)
  CAF_ADD_ATOM(locality_trapr, work_atom)
  CAF_ADD_ATOM(locality_trapr, result_atom)
CAF_END_TYPE_ID_BLOCK(locality_trapr)
#else
using work_atom = caf::atom_constant<caf::atom("work")>;
constexpr work_atom work_atom_v{};
using result_atom = caf::atom_constant<caf::atom("result")>;
constexpr result_atom result_atom_v{};
#endif

namespace {

constexpr double left_end = 1;
constexpr double right_end = 5;

caf::behavior worker(caf::event_based_actor* self, const caf::actor& master) {
  return {
    [self, master](work_atom, double left, double h, uint64_t pieces) {
      auto area = locality::trapezoid_area(left, h, pieces);
      caf_compat::tell(self, master, result_atom_v, locality::trapezoid_fixed(area));
      self->quit();
    },
  };
}

class master : public caf::event_based_actor {
public:
  master(caf::actor_config& cfg, uint64_t workers, uint64_t pieces, int64_t* area)
    : caf::event_based_actor(cfg), workers_(workers), pieces_(pieces), area_(area) {}

  caf::behavior make_behavior() override {
    auto h = (right_end - left_end) / static_cast<double>(pieces_);
    auto share = pieces_ / workers_;
    for (uint64_t i = 0; i < workers_; ++i) {
      // The last worker also takes the pieces the division leaves over.
      auto mine = i + 1 < workers_ ? share : pieces_ - share * i;
      auto left = left_end + static_cast<double>(i * share) * h;
      auto x = spawn(worker, caf::actor_cast<caf::actor>(this));
      caf_compat::tell(this, x, work_atom_v, left, h, mine);
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
  bench::options opts{argc, argv, locality::trapr_sizes()};
  BENCH_CAF_INIT_META_OBJECTS(locality_trapr);
  auto pieces = opts["pieces"];
  auto workers = opts["workers"];
  if (workers == 0 || pieces < workers) {
    std::fprintf(stderr, "--workers must be positive and at most --pieces\n");
    return 2;
  }
  int64_t fixed = 0;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    sys.spawn<master>(workers, pieces, &fixed);
  } // ~actor_system waits for every actor
  return locality::checksum_close("area_e6", static_cast<double>(fixed) / 1e12,
                                  locality::trapezoid_reference(left_end, right_end, 200'000),
                                  1e-6, 1e6);
}
