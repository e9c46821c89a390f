#include "troupe/chrono.hpp"

#include <cstdio>
#include <cstdlib>

namespace troupe::chrono::detail {

std::string format_local_time(std::time_t secs, long nanos, int precision, bool fixed) {
  std::tm local{};
  localtime_r(&secs, &local);
  char buf[64];
  auto n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &local);
  std::string out{buf, n};
  if (precision > 0) {
    long scaled = nanos;
    for (int i = precision; i < 9; ++i)
      scaled /= 10;
    char digits[16];
    std::snprintf(digits, sizeof(digits), "%0*ld", precision, scaled);
    std::string frac{digits};
    if (!fixed)
      while (!frac.empty() && frac.back() == '0')
        frac.pop_back();
    if (!frac.empty())
      out += '.' + frac;
  }
  // tm_gmtoff: seconds east of UTC, daylight saving included.
  auto offset = local.tm_gmtoff / 60;
  char zone[16];
  std::snprintf(zone, sizeof(zone), "%c%02ld:%02ld", offset < 0 ? '-' : '+',
                std::labs(offset) / 60, std::labs(offset) % 60);
  return out + zone;
}

} // namespace troupe::chrono::detail
