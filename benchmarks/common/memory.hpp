#pragma once

// Resident memory of this process, for programs that report what a phase
// of theirs costs (the harness's peak RSS covers only the whole run). Plain
// C++17, Linux: the CAF 0.17 programs include it too.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <thread>
#include <unistd.h>

namespace bench {

/// Bytes resident now (/proc/self/statm), or 0 if unreadable.
inline uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr)
    return 0;
  unsigned long long size = 0;
  unsigned long long resident = 0;
  int fields = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  if (fields != 2)
    return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

/// Resident bytes once they stop falling: allocators return freed memory
/// to the kernel after a delay (mimalloc purges after some milliseconds),
/// so this samples until two readings 50 ms apart no longer drop by more
/// than 1%, for at most `limit`.
inline uint64_t settled_resident_bytes(std::chrono::milliseconds limit
                                       = std::chrono::milliseconds{2000}) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  auto last = resident_bytes();
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
    auto now = resident_bytes();
    if (now + last / 100 >= last)
      return now < last ? now : last;
    last = now;
  }
  return last;
}

/// Prints a measurement line the harness records beside time, CPU and peak
/// memory: `metric <name> <value> <unit>`.
inline void report_metric(std::string_view name, double value, std::string_view unit) {
  std::printf("metric %.*s %.1f %.*s\n", static_cast<int>(name.size()), name.data(), value,
              static_cast<int>(unit.size()), unit.data());
}

} // namespace bench
