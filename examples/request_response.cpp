// Requests from inside an actor: `then` handles the answer whenever it
// arrives, an error handler gets what went wrong instead (an error the
// receiver returned, or a timeout), and a response promise answers a request
// after its handler has returned. The actors are in request_response.hpp;
// testing/request_response_test.cpp tests them.

#include "request_response.hpp"

int main() {
  actor_system_config cfg;
  actor_system sys{cfg};
  auto db = sys.spawn(store);
  auto inc = sys.spawn(incrementer, db);
  auto absent_minded = sys.spawn(forgetful);
  auto c = sys.spawn(client, db, inc, absent_minded);
  // Wait for the client to finish (see ping_pong.cpp).
  scoped_actor self{sys};
  self->monitor(c);
  self->receive([](const down_msg&) { std::cout << "client done\n"; });
}
