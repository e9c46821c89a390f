// Must not compile: "{:.2f}" formats a floating-point number, not an int.
#include "troupe/logger.hpp"

int main() {
#ifdef TROUPE_COMPILE_FAIL_CONTROL
  TROUPE_LOG_INFO("test", "ratio {:.2f}", 2.5);
#else
  TROUPE_LOG_INFO("test", "ratio {:.2f}", 2);
#endif
}
