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
  pin_thread_to(t, cpus[index % cpus.size()], index);
#else
  TROUPE_LOG_WARNING("scheduler", "pin-workers is not supported on this platform");
#endif
}

void pin_thread_to([[maybe_unused]] std::thread& t, [[maybe_unused]] int cpu,
                   [[maybe_unused]] size_t index) noexcept {
#ifdef __linux__
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    TROUPE_LOG_WARNING("scheduler", "cannot pin worker {} to CPU {}: no such CPU", index, cpu);
    return;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (auto err = pthread_setaffinity_np(t.native_handle(), sizeof(one), &one); err != 0)
    TROUPE_LOG_WARNING("scheduler", "cannot pin worker {} to CPU {}: {}", index, cpu,
                       std::strerror(err));
#else
  TROUPE_LOG_WARNING("scheduler", "pinning workers is not supported on this platform");
#endif
}

} // namespace troupe::detail
