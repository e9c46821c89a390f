#include <troupe/error.hpp>

#include <iostream>

int main() {
  troupe::error err{troupe::errc::actor_down};
  if (err != troupe::errc::actor_down) {
    std::cerr << "unexpected error: " << to_string(err) << '\n';
    return 1;
  }
  std::cout << to_string(err) << '\n';
  return 0;
}
