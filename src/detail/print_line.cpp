#include "troupe/detail/print_line.hpp"

#include <cstdio>
#include <mutex>

namespace troupe::detail {

void print_line(std::string_view line) {
  static std::mutex mtx;
  std::lock_guard guard{mtx};
  std::fwrite(line.data(), 1, line.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

} // namespace troupe::detail
