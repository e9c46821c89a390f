// Must not compile: placeholders take their arguments in order, without ids.
#include "troupe/logger.hpp"

int main() {
#ifdef TROUPE_COMPILE_FAIL_CONTROL
  TROUPE_LOG_INFO("test", "{} {}", 1, 2);
#else
  TROUPE_LOG_INFO("test", "{1} {0}", 1, 2);
#endif
}
