// Must not compile: message elements may not be over-aligned.
#include "troupe/message.hpp"

namespace {

#ifdef TROUPE_COMPILE_FAIL_CONTROL
// The control build aligns it like any element, so only that is wrong otherwise.
struct alignas(troupe::detail::element_alignment) wide {
  int value = 0;
};
#else
struct alignas(4 * troupe::detail::element_alignment) wide {
  int value = 0;
};
#endif

} // namespace

TROUPE_BEGIN_TYPE_ID_BLOCK(compile_fail, 1900)
  TROUPE_ADD_TYPE_ID(compile_fail, (wide))
TROUPE_END_TYPE_ID_BLOCK(compile_fail)

int main() {
  auto msg = troupe::make_message(wide{});
  return static_cast<int>(msg.size()) - 1;
}
