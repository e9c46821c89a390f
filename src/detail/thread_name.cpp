#include "troupe/detail/thread_name.hpp"

#include <cstdio>

#ifdef __linux__
#  include <pthread.h>
#endif

namespace troupe::detail {

void name_thread([[maybe_unused]] std::thread& t, [[maybe_unused]] const char* prefix,
                 [[maybe_unused]] size_t index) noexcept {
#ifdef __linux__
  char name[16];
  std::snprintf(name, sizeof(name), "%s-%zu", prefix, index % 100);
  pthread_setname_np(t.native_handle(), name);
#endif
}

} // namespace troupe::detail
