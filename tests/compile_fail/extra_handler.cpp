// Must not compile: a typed behavior has a handler for no signature.
#include "troupe/typed_actor.hpp"

TROUPE_BEGIN_TYPE_ID_BLOCK(compile_fail, 1950)
  TROUPE_ADD_ATOM(compile_fail, add_atom)
  TROUPE_ADD_ATOM(compile_fail, sub_atom)
TROUPE_END_TYPE_ID_BLOCK(compile_fail)

using adder = troupe::typed_actor<troupe::result<int>(add_atom, int, int)>;

adder::behavior_type add() {
  return {
    [](add_atom, int x, int y) { return x + y; },
#ifndef TROUPE_COMPILE_FAIL_CONTROL
    // The control build lacks this handler, so only that is wrong otherwise.
    [](sub_atom, int x, int y) { return x - y; },
#endif
  };
}

int main() {
  return add() ? 0 : 1;
}
