// Must not compile: a type named in a type ID block is never defined in this
// translation unit, so Troupe cannot build its meta object.
#include "troupe/message.hpp"

struct declared_only;

#ifdef TROUPE_COMPILE_FAIL_CONTROL
// The control build defines it after the block, which is allowed.
struct declared_only {
  int value = 0;
};
#endif

TROUPE_BEGIN_TYPE_ID_BLOCK(compile_fail, 1900)
  TROUPE_ADD_TYPE_ID(compile_fail, (declared_only))
TROUPE_END_TYPE_ID_BLOCK(compile_fail)

int main() {
  return 0;
}
