// NQN (CAF 0.17 and 1.x), after Savina's nqueenk: divide and conquer through a
// master. The master (the hub) hands partial boards round-robin to
// `workers` workers. A worker extends a board by one queen in every column
// that is safe and sends each extension back to the master as new work, or,
// from `threshold` queens on, counts the solutions below it on its own; it
// then reports the board done. Work carries a priority one lower per level,
// as in Savina (neither CAF nor Troupe has priority mailboxes, so it is only data).

#include "common/caf_compat.hpp"
#include "common/options.hpp"
#include "locality/common/workloads.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(locality_nqn, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(locality_nqn, (std::vector<int32_t>))
  CAF_ADD_ATOM(locality_nqn, work_atom)
  CAF_ADD_ATOM(locality_nqn, result_atom)
  CAF_ADD_ATOM(locality_nqn, done_atom)
CAF_END_TYPE_ID_BLOCK(locality_nqn)
#else
using work_atom = caf::atom_constant<caf::atom("work")>;
constexpr work_atom work_atom_v{};
using result_atom = caf::atom_constant<caf::atom("result")>;
constexpr result_atom result_atom_v{};
using done_atom = caf::atom_constant<caf::atom("done")>;
constexpr done_atom done_atom_v{};
#endif

namespace {

using board = std::vector<int32_t>;

caf::behavior worker(caf::event_based_actor* self, caf::actor master, int32_t size,
                        int32_t threshold) {
  return {
    [=](work_atom, int32_t priority, board& queens) {
      if (static_cast<int32_t>(queens.size()) >= threshold) {
        caf_compat::tell(self, master, result_atom_v, locality::nqueens_count(queens, size));
      } else {
        for (int32_t col = 0; col < size; ++col) {
          queens.push_back(col);
          if (locality::nqueens_valid(queens))
            caf_compat::tell(self, master, work_atom_v, priority - 1, queens);
          queens.pop_back();
        }
      }
      caf_compat::tell(self, master, done_atom_v);
    },
  };
}

class master : public caf::event_based_actor {
public:
  master(caf::actor_config& cfg, uint64_t workers, int32_t size, int32_t threshold,
         int32_t priorities, uint64_t* solutions)
    : caf::event_based_actor(cfg), num_workers_(workers), size_(size), threshold_(threshold),
      priorities_(priorities), solutions_(solutions) {}

  caf::behavior make_behavior() override {
    for (uint64_t i = 0; i < num_workers_; ++i)
      workers_.push_back(spawn(worker, caf::actor_cast<caf::actor>(this), size_, threshold_));
    hand_out(priorities_, board{});
    return {
      [this](work_atom, int32_t priority, board& queens) { hand_out(priority, std::move(queens)); },
      [this](result_atom, uint64_t count) { *solutions_ += count; },
      [this](done_atom) {
        if (++completed_ < handed_out_)
          return;
        for (const auto& x : workers_)
          send_exit(x, caf::exit_reason::user_shutdown);
        quit();
      },
    };
  }

private:
  void hand_out(int32_t priority, board queens) {
    caf_compat::tell(this, workers_[handed_out_++ % num_workers_], work_atom_v, priority,
                     std::move(queens));
  }

  uint64_t num_workers_;
  int32_t size_;
  int32_t threshold_;
  int32_t priorities_;
  uint64_t* solutions_; // read by main after the system has shut down
  std::vector<caf::actor> workers_;
  uint64_t handed_out_ = 0;
  uint64_t completed_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv, locality::nqn_sizes()};
  BENCH_CAF_INIT_META_OBJECTS(locality_nqn);
  auto size = opts["size"];
  auto workers = opts["workers"];
  if (size == 0 || size > 20 || workers == 0) {
    std::fprintf(stderr, "--size must be 1 to 20, --workers positive\n");
    return 2;
  }
  uint64_t solutions = 0;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    sys.spawn<master>(workers, static_cast<int32_t>(size),
                       static_cast<int32_t>(opts["threshold"]),
                       static_cast<int32_t>(opts["priorities"]), &solutions);
  } // ~actor_system waits for every actor
  return bench::checksum("solutions", solutions, locality::nqueens_solutions[size - 1]);
}
