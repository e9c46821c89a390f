// A typed actor: its handle lists the messages it takes and what it answers,
// so the compiler rejects a message it has no handler for, a response
// handler of the wrong type, and a behavior that misses a signature.

#include <troupe/all.hpp>

#include <chrono>
#include <iostream>

using namespace troupe;

using calculator = typed_actor<result<int>(add_atom, int, int),
                               result<int>(sub_atom, int, int),
                               result<int>(div_atom, int, int)>;

// Each signature needs exactly one handler with matching argument and
// result types. A result<int> may also hold an error.
calculator::behavior_type calculator_impl() {
  return {
    [](add_atom, int x, int y) { return x + y; },
    [](sub_atom, int x, int y) { return x - y; },
    [](div_atom, int x, int y) -> result<int> {
      if (y == 0)
        return error{errc::invalid_argument, "division by zero"};
      return x / y;
    },
  };
}

int main() {
  actor_system_config cfg;
  actor_system sys{cfg};
  // The spawn function's return type makes this a calculator handle.
  calculator calc = sys.spawn(calculator_impl);
  scoped_actor self{sys};
  auto print = [&](const char* what, auto... xs) {
    self->request(calc, std::chrono::seconds(1), xs...)
      .receive([what](int y) { std::cout << what << " = " << y << '\n'; },
               [what](const error& err) {
                 std::cout << what << ": " << to_string(err) << '\n';
               });
  };
  print("3 + 4", add_atom_v, 3, 4);
  print("3 - 4", sub_atom_v, 3, 4);
  print("12 / 4", div_atom_v, 12, 4);
  print("1 / 0", div_atom_v, 1, 0);
  // Neither of these compiles: the calculator has no handler for a string,
  // and its answers are ints, not strings.
  //   self->send(calc, std::string{"hello"});
  //   self->request(calc, std::chrono::seconds(1), add_atom_v, 1, 2)
  //     .receive([](const std::string&) {}, [](const error&) {});
}
