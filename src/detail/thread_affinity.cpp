#include "troupe/detail/thread_affinity.hpp"

#include "troupe/logger.hpp"

#include <cstring>
#include <vector>

#ifdef __linux__
#  include <pthread.h>
#  include <sched.h>
#endif

namespace troupe::detail {

void pin_thread([[maybe_unused]] std::thread& t, [[maybe_unused]] size_t index) noexcept {
#ifdef __linux__
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    TROUPE_LOG_WARNING("scheduler", "pin-workers: cannot read the CPUs allowed: {}",
                       std::strerror(errno));
    return;
  }
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &allowed))
      cpus.push_back(cpu);
  if (cpus.empty())
    return;
  cpu_set_t one;
  CPU_ZERO(&one);
  auto cpu = cpus[index % cpus.size()];
  CPU_SET(cpu, &one);
  if (auto err = pthread_setaffinity_np(t.native_handle(), sizeof(one), &one); err != 0)
    TROUPE_LOG_WARNING("scheduler", "pin-workers: cannot pin worker {} to CPU {}: {}", index,
                       cpu, std::strerror(err));
#else
  TROUPE_LOG_WARNING("scheduler", "pin-workers is not supported on this platform");
#endif
}

} // namespace troupe::detail
