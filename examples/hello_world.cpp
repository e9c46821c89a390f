// The smallest Troupe program: spawn an actor, ask it something, print the
// answer.

#include <troupe/all.hpp>

#include <chrono>
#include <iostream>
#include <string>

using namespace troupe;

// An actor is a function that returns its behavior: one handler per kind of
// message it understands. What a handler returns goes back to whoever sent
// a request.
behavior greeter() {
  return {
    [](const std::string& name) { return "Hello, " + name + "!"; },
  };
}

int main(int argc, char** argv) {
  // Settings come from the command line (try --help) or a TOML file.
  actor_system_config cfg;
  if (auto err = cfg.parse(argc, argv)) {
    std::cerr << to_string(err) << '\n';
    return 1;
  }
  if (cfg.helptext_requested()) {
    std::cout << cfg.helptext();
    return 0;
  }
  // The system owns the worker threads that run actors; its destructor
  // waits until every actor has finished.
  actor_system sys{cfg};
  auto hello = sys.spawn(greeter);
  // main is no actor: a scoped_actor lends it a mailbox, so it can send
  // requests and wait for their answers.
  scoped_actor self{sys};
  int rc = 1;
  self->request(hello, std::chrono::seconds(1), std::string{"world"})
    .receive(
      [&](const std::string& greeting) {
        std::cout << greeting << '\n';
        rc = 0;
      },
      // Errors are values: a timeout or a dead actor arrives here.
      [](const error& err) { std::cerr << "no greeting: " << to_string(err) << '\n'; });
  return rc;
}
