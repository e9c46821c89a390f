// Two actors bounce a ball back and forth with plain asynchronous sends,
// each answering by returning the next message from its handler; main waits
// until the game is over by monitoring the player that ends it.

#include <troupe/all.hpp>

#include <iostream>

// Atoms are empty tag types that name a message. ping_atom and pong_atom
// are among those Troupe predefines, as CAF does; a program's own atoms need
// type IDs, like every type that travels in a message:
//
//   TROUPE_BEGIN_TYPE_ID_BLOCK(my_app, troupe::first_custom_type_id)
//     TROUPE_ADD_ATOM(my_app, serve_atom)
//   TROUPE_END_TYPE_ID_BLOCK(my_app)

using namespace troupe;

// Answers every ping. What a handler returns goes back to the sender: as
// the response to a request, or, as here, as an ordinary message to a plain
// send (the same rule as CAF's).
behavior pong() {
  return {
    [](ping_atom, int n) {
      std::cout << "pong " << n << '\n';
      return make_message(pong_atom_v, n);
    },
  };
}

// Serves the first ball from its spawn function, then returns every ball
// until `rounds` have been played.
behavior ping(event_based_actor* self, actor partner, int rounds) {
  std::cout << "ping 1\n";
  self->send(partner, ping_atom_v, 1);
  return {
    [self, rounds](pong_atom, int n) {
      if (n == rounds) {
        std::cout << "ping: " << rounds << " rounds played\n";
        // Terminates the actor once this handler returns; an empty message
        // sends nothing back.
        self->quit();
        return message{};
      }
      std::cout << "ping " << n + 1 << '\n';
      return make_message(ping_atom_v, n + 1);
    },
  };
}

int main() {
  actor_system_config cfg;
  actor_system sys{cfg};
  auto pong_actor = sys.spawn(pong);
  auto ping_actor = sys.spawn(ping, pong_actor, 3);
  // A monitor gets a down_msg when the monitored actor terminates.
  scoped_actor self{sys};
  self->monitor(ping_actor);
  self->receive([](const down_msg& msg) {
    // An empty error: ping terminated normally.
    std::cout << "ping is done, exit reason: " << to_string(msg.reason) << '\n';
  });
  // Leaving main drops the last handle to pong, which then stops, and the
  // system's destructor waits for it.
}
