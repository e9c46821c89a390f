// Must not compile: a message element needs a type ID.
#include "troupe/message.hpp"

namespace {

struct no_id_type {
  int value = 0;
};

} // namespace

#ifdef TROUPE_COMPILE_FAIL_CONTROL
// The control build gives the type an ID, so only that is missing otherwise.
TROUPE_BEGIN_TYPE_ID_BLOCK(compile_fail_control, 1900)
  TROUPE_ADD_TYPE_ID(compile_fail_control, (no_id_type))
TROUPE_END_TYPE_ID_BLOCK(compile_fail_control)
#endif

int main() {
  auto msg = troupe::make_message(no_id_type{});
  return static_cast<int>(msg.size()) - 1;
}
