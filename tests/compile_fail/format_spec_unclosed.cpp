// Must not compile: a placeholder whose spec never reaches its '}'.
#include "troupe/logger.hpp"

int main() {
#ifdef TROUPE_COMPILE_FAIL_CONTROL
  TROUPE_LOG_INFO("test", "count {:}", 3);
#else
  TROUPE_LOG_INFO("test", "count {:", 3);
#endif
}
