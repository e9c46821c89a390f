// Must not compile: a typed behavior lacks the handler for one signature.
#include "troupe/typed_actor.hpp"

TROUPE_BEGIN_TYPE_ID_BLOCK(compile_fail, 1950)
  TROUPE_ADD_ATOM(compile_fail, add_atom)
  TROUPE_ADD_ATOM(compile_fail, sub_atom)
TROUPE_END_TYPE_ID_BLOCK(compile_fail)

using calculator = troupe::typed_actor<troupe::result<int>(add_atom, int, int),
                                       troupe::result<int>(sub_atom, int, int)>;

calculator::behavior_type calc() {
  return {
    [](add_atom, int x, int y) { return x + y; },
#ifdef TROUPE_COMPILE_FAIL_CONTROL
    // The control build has the handler, so only that is missing otherwise.
    [](sub_atom, int x, int y) { return x - y; },
#endif
  };
}

int main() {
  return calc() ? 0 : 1;
}
