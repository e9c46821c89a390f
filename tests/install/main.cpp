// Spawns an actor and asks it, using nothing but the installed package.

#include <troupe/all.hpp>

#include <chrono>
#include <iostream>

int main() {
  troupe::actor_system_config cfg;
  troupe::actor_system sys{cfg};
  auto doubler = sys.spawn([] { return troupe::behavior{[](int x) { return 2 * x; }}; });
  troupe::scoped_actor self{sys};
  int result = 0;
  self->request(doubler, std::chrono::seconds(10), 21)
    .receive([&](int y) { result = y; },
             [](const troupe::error& err) { std::cerr << to_string(err) << '\n'; });
  if (result != 42) {
    std::cerr << "expected 42, got " << result << '\n';
    return 1;
  }
  std::cout << result << '\n';
  return 0;
}
