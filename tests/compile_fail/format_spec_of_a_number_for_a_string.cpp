// Must not compile: "{:d}" formats an integer, and a string is text.
#include "troupe/logger.hpp"

#include <string>

int main() {
  std::string name = "worker";
#ifdef TROUPE_COMPILE_FAIL_CONTROL
  TROUPE_LOG_INFO("test", "name {:>8}", name);
#else
  TROUPE_LOG_INFO("test", "name {:d}", name);
#endif
}
