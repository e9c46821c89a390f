// NQN (Troupe), after Savina's nqueenk: divide and conquer through a
// master. The master, spawned as a hub, hands partial boards round-robin to
// `workers` workers. A worker extends a board by one queen in every column
// that is safe and sends each extension back to the master as new work, or,
// from `threshold` queens on, counts the solutions below it on its own; it
// then reports the board done. Work carries a priority one lower per level,
// as in Savina (neither CAF nor Troupe has priority mailboxes, so it is only data).

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_nqn, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(locality_nqn, work_atom)
  TROUPE_ADD_ATOM(locality_nqn, result_atom)
  TROUPE_ADD_ATOM(locality_nqn, done_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_nqn)

namespace {

using board = std::vector<int32_t>;

troupe::behavior worker(troupe::event_based_actor* self, troupe::actor master, int32_t size,
                        int32_t threshold) {
  return {
    [=](work_atom, int32_t priority, board& queens) {
      if (static_cast<int32_t>(queens.size()) >= threshold) {
        self->send(master, result_atom_v, locality::nqueens_count(queens, size));
      } else {
        for (int32_t col = 0; col < size; ++col) {
          queens.push_back(col);
          if (locality::nqueens_valid(queens))
            self->send(master, work_atom_v, priority - 1, queens);
          queens.pop_back();
        }
      }
      self->send(master, done_atom_v);
    },
  };
}

class master : public troupe::event_based_actor {
public:
  master(troupe::actor_config& cfg, uint64_t workers, int32_t size, int32_t threshold,
         int32_t priorities, uint64_t* solutions)
    : troupe::event_based_actor(cfg), num_workers_(workers), size_(size), threshold_(threshold),
      priorities_(priorities), solutions_(solutions) {}

protected:
  troupe::behavior make_behavior() override {
    for (uint64_t i = 0; i < num_workers_; ++i)
      workers_.push_back(spawn(worker, self_handle(), size_, threshold_));
    hand_out(priorities_, board{});
    return {
      [this](work_atom, int32_t priority, board& queens) { hand_out(priority, std::move(queens)); },
      [this](result_atom, uint64_t count) { *solutions_ += count; },
      [this](done_atom) {
        if (++completed_ < handed_out_)
          return;
        for (const auto& x : workers_)
          send_exit(x, troupe::exit_reason::user_shutdown);
        quit();
      },
    };
  }

private:
  void hand_out(int32_t priority, board queens) {
    send(workers_[handed_out_++ % num_workers_], work_atom_v, priority, std::move(queens));
  }

  uint64_t num_workers_;
  int32_t size_;
  int32_t threshold_;
  int32_t priorities_;
  uint64_t* solutions_; // read by main after the system has shut down
  std::vector<troupe::actor> workers_;
  uint64_t handed_out_ = 0;
  uint64_t completed_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::nqn_sizes()};
  auto size = opts["size"];
  auto workers = opts["workers"];
  if (size == 0 || size > 20 || workers == 0) {
    std::fprintf(stderr, "--size must be 1 to 20, --workers positive\n");
    return 2;
  }
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  uint64_t solutions = 0;
  {
    troupe::actor_system sys{cfg};
    sys.spawn<master, troupe::hub>(workers, static_cast<int32_t>(size),
                                   static_cast<int32_t>(opts["threshold"]),
                                   static_cast<int32_t>(opts["priorities"]), &solutions);
    locality::print_steals_when_done(sys);
  }
  return bench::checksum("solutions", solutions, locality::nqueens_solutions[size - 1]);
}
