// A supervisor keeps a worker running: it links to the worker and traps
// exits, so the worker's death arrives as a message instead of taking the
// supervisor down with it; it then starts a fresh worker. After a few
// restarts it gives up and stops.

#include <troupe/all.hpp>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <string>

TROUPE_BEGIN_TYPE_ID_BLOCK(supervisor, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(supervisor, job_atom)
  TROUPE_ADD_ATOM(supervisor, next_atom)
TROUPE_END_TYPE_ID_BLOCK(supervisor)

using namespace troupe;
using namespace std::chrono_literals;

// Doubles numbers but chokes on multiples of 3: the exception terminates it
// with exit_reason::unhandled_exception.
behavior worker() {
  return {
    [](job_atom, int n) {
      if (n % 3 == 0)
        throw std::runtime_error("cannot handle job " + std::to_string(n));
      return 2 * n;
    },
  };
}

struct supervisor_state {
  actor current;
  int restarts = 0;
  int next_job = 1;
};

behavior supervisor_impl(stateful_actor<supervisor_state>* self, int max_restarts) {
  auto start_worker = [self] {
    self->state.current = self->system().spawn(worker);
    // Linked: when one of the two terminates, the other gets an exit_msg.
    self->link_to(self->state.current);
  };
  // Trapping exits: the worker's death is a message for this handler, not
  // the end of the supervisor.
  self->set_exit_handler([self, max_restarts, start_worker](exit_msg& msg) {
    std::cout << "worker died: " << to_string(msg.reason) << '\n';
    if (self->state.restarts == max_restarts) {
      std::cout << "giving up after " << max_restarts << " restarts\n";
      self->quit();
      return;
    }
    ++self->state.restarts;
    start_worker();
    self->send(self->self_handle(), next_atom_v);
  });
  start_worker();
  self->send(self->self_handle(), next_atom_v);
  return {
    // Hands the worker its next job; asks for the one after once it is done.
    [self](next_atom) {
      auto n = self->state.next_job++;
      self->request(self->state.current, 1s, job_atom_v, n)
        .then(
          [self, n](int result) {
            std::cout << "job " << n << " -> " << result << '\n';
            self->send(self->self_handle(), next_atom_v);
          },
          // The worker died of this job: the exit handler takes over.
          [](error&) {});
    },
  };
}

int main() {
  actor_system_config cfg;
  // The dying workers would log a warning each; the output says it already.
  cfg.logger.verbosity = log_level::error;
  actor_system sys{cfg};
  auto sup = sys.spawn(supervisor_impl, 2);
  // Keep the handle until the supervisor is done: an actor nobody holds a
  // handle to any more is stopped (exit reason `unreachable`).
  sys.await_all_actors_done();
  std::cout << "supervisor done\n";
}
