// The parsers behind every option: the text of a command-line value, or a
// TOML value written as one, to its C++ type.

#include "config.hpp"

#include "troupe/actor_system_config.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <iterator>

namespace troupe {

namespace detail {

std::string parse_config_bool(std::string_view str, bool& out) {
  if (str == "true")
    out = true;
  else if (str == "false")
    out = false;
  else
    return "true or false";
  return {};
}

std::string parse_config_int(std::string_view str, long long min, long long max,
                             long long& out) {
  auto range = [&] {
    return "an integer between " + std::to_string(min) + " and " + std::to_string(max);
  };
  long long tmp = 0;
  auto [ptr, ec] = std::from_chars(str.data(), str.data() + str.size(), tmp);
  if (ec == std::errc::result_out_of_range && ptr == str.data() + str.size())
    return range();
  if (ec != std::errc{} || ptr != str.data() + str.size() || str.empty())
    return "an integer";
  if (tmp < min || tmp > max)
    return range();
  out = tmp;
  return {};
}

std::string parse_config_uint(std::string_view str, unsigned long long max,
                              unsigned long long& out) {
  auto range = [&] {
    return "an unsigned integer no greater than " + std::to_string(max);
  };
  unsigned long long tmp = 0;
  auto [ptr, ec] = std::from_chars(str.data(), str.data() + str.size(), tmp);
  if (ec == std::errc::result_out_of_range && ptr == str.data() + str.size())
    return range();
  if (ec != std::errc{} || ptr != str.data() + str.size() || str.empty())
    return "an unsigned integer";
  if (tmp > max)
    return range();
  out = tmp;
  return {};
}

namespace {

template <class T>
std::string parse_float(std::string_view str, T& out) {
  T tmp = 0;
  auto [ptr, ec] = std::from_chars(str.data(), str.data() + str.size(), tmp);
  if (ec != std::errc{} || ptr != str.data() + str.size() || str.empty())
    return "a number";
  out = tmp;
  return {};
}

} // namespace

std::string parse_config_float(std::string_view str, float& out) {
  return parse_float(str, out);
}

std::string parse_config_float(std::string_view str, double& out) {
  return parse_float(str, out);
}

std::string parse_config_float(std::string_view str, long double& out) {
  return parse_float(str, out);
}

std::string parse_config_duration(std::string_view str, std::chrono::nanoseconds& out) {
  static constexpr const char* expected
    = "a duration such as 10ms (units: ns, us, ms, s, min, h)";
  struct unit {
    std::string_view suffix;
    int64_t ns;
  };
  static constexpr unit units[] = {
    {"ns", 1},
    {"us", 1'000},
    {"ms", 1'000'000},
    {"min", 60'000'000'000},
    {"s", 1'000'000'000},
    {"h", 3'600'000'000'000},
  };
  // Digits, an optional fraction, then the unit; the result must be a whole
  // number of nanoseconds that fits in 64 bits.
  std::string_view rest = str;
  bool negative = !rest.empty() && rest.front() == '-';
  if (negative)
    rest.remove_prefix(1);
  auto digits = [&rest] {
    auto n = std::min(rest.find_first_not_of("0123456789"), rest.size());
    auto result = rest.substr(0, n);
    rest.remove_prefix(n);
    return result;
  };
  auto whole = digits();
  std::string_view fraction;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    fraction = digits();
    if (fraction.empty())
      return expected;
  }
  if (whole.empty())
    return expected;
  auto u = std::find_if(std::begin(units), std::end(units),
                        [&rest](const unit& x) { return x.suffix == rest; });
  if (u == std::end(units))
    return expected;
  int64_t count = 0;
  auto [ptr, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), count);
  int64_t result = 0;
  if (ec != std::errc{} || __builtin_mul_overflow(count, u->ns, &result))
    return "a duration shorter than 292 years";
  // The fraction in nanoseconds: fraction * unit / 10^digits, exactly.
  int64_t frac_ns = 0;
  int64_t scale = 1;
  for (char c : fraction) {
    if (__builtin_mul_overflow(scale, 10, &scale)
        || __builtin_mul_overflow(frac_ns, 10, &frac_ns))
      return "a duration with at most 18 decimals";
    frac_ns += c - '0';
  }
  if (!fraction.empty()) {
    __int128 scaled = static_cast<__int128>(frac_ns) * u->ns;
    if (scaled % scale != 0)
      return "a duration that is a whole number of nanoseconds";
    if (__builtin_add_overflow(result, static_cast<int64_t>(scaled / scale), &result))
      return "a duration shorter than 292 years";
  }
  out = std::chrono::nanoseconds{negative ? -result : result};
  return {};
}

} // namespace detail

namespace detail {

void split_list(std::string_view str, std::vector<std::string>& out) {
  if (str.empty())
    return;
  while (true) {
    auto pos = str.find(',');
    out.emplace_back(str.substr(0, pos));
    if (pos == std::string_view::npos)
      return;
    str.remove_prefix(pos + 1);
  }
}

} // namespace detail

std::string to_string(stream_execution x) {
  return x == stream_execution::threads ? "threads" : "scheduled";
}

bool from_string(std::string_view str, stream_execution& x) {
  if (str == "scheduled")
    x = stream_execution::scheduled;
  else if (str == "threads")
    x = stream_execution::threads;
  else
    return false;
  return true;
}

} // namespace troupe
