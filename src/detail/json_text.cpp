#include "troupe/detail/json_text.hpp"

#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>

namespace troupe::detail {

namespace {

// Days from 1970-01-01 of 0000-01-01 and of 10000-01-01.
constexpr int64_t first_day = -719528;
constexpr int64_t end_day = 2932897;

int64_t floor_div(int64_t x, int64_t y) noexcept {
  auto q = x / y;
  return (x % y != 0 && (x < 0) != (y < 0)) ? q - 1 : q;
}

int digits_of(intmax_t ticks_per_second) noexcept {
  int n = 0;
  for (auto x = ticks_per_second; x > 1; x /= 10)
    ++n;
  return n;
}

/// Reads exactly `n` decimal digits.
bool read_digits(std::string_view& str, size_t n, int& out) {
  if (str.size() < n)
    return false;
  int result = 0;
  for (size_t i = 0; i < n; ++i) {
    if (str[i] < '0' || str[i] > '9')
      return false;
    result = result * 10 + (str[i] - '0');
  }
  str.remove_prefix(n);
  out = result;
  return true;
}

bool expect(std::string_view& str, char c) {
  if (str.empty() || str.front() != c)
    return false;
  str.remove_prefix(1);
  return true;
}

__int128 gcd(__int128 a, __int128 b) noexcept {
  while (b != 0) {
    auto t = a % b;
    a = b;
    b = t;
  }
  return a < 0 ? -a : a;
}

} // namespace

bool format_iso8601(int64_t ticks, intmax_t ticks_per_second, std::string& out) {
  // In 128 bits: the seconds times the ticks may pass the 64-bit range.
  __int128 wide_secs = ticks / ticks_per_second;
  __int128 frac = ticks % ticks_per_second;
  if (frac < 0) {
    frac += ticks_per_second;
    --wide_secs;
  }
  auto secs = static_cast<int64_t>(wide_secs);
  auto days = floor_div(secs, 86400);
  auto sod = secs - days * 86400;
  if (days < first_day || days >= end_day)
    return false;
  std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  char buf[64];
  auto n = std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02d",
                         static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                         static_cast<unsigned>(ymd.day()), static_cast<int>(sod / 3600),
                         static_cast<int>(sod / 60 % 60), static_cast<int>(sod % 60));
  out.append(buf, static_cast<size_t>(n));
  if (frac != 0) {
    // All digits of the tick's precision, then without trailing zeros.
    auto digits = digits_of(ticks_per_second);
    n = std::snprintf(buf, sizeof(buf), ".%0*lld", digits, static_cast<long long>(frac));
    while (buf[n - 1] == '0')
      --n;
    out.append(buf, static_cast<size_t>(n));
  }
  out += 'Z';
  return true;
}

std::string parse_iso8601(std::string_view str, intmax_t ticks_per_second, __int128& ticks) {
  static constexpr const char* expected
    = "an ISO 8601 time in the form 2024-05-01T12:30:00.25Z (or with +HH:MM)";
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  auto rest = str;
  if (!read_digits(rest, 4, year) || !expect(rest, '-') || !read_digits(rest, 2, month)
      || !expect(rest, '-') || !read_digits(rest, 2, day) || !expect(rest, 'T')
      || !read_digits(rest, 2, hour) || !expect(rest, ':') || !read_digits(rest, 2, minute)
      || !expect(rest, ':') || !read_digits(rest, 2, second))
    return expected;
  // The fraction: as many digits as given, at most 9, exact in the ticks.
  __int128 frac_ticks = 0;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    size_t n = 0;
    __int128 frac = 0;
    while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') {
      if (n == 9)
        return "a time with at most 9 decimals of a second";
      frac = frac * 10 + (rest[n] - '0');
      ++n;
    }
    if (n == 0)
      return expected;
    rest.remove_prefix(n);
    __int128 scale = 1;
    for (size_t i = 0; i < n; ++i)
      scale *= 10;
    if (frac * ticks_per_second % scale != 0)
      return "a time no more precise than its type holds";
    frac_ticks = frac * ticks_per_second / scale;
  }
  int offset_minutes = 0;
  if (expect(rest, 'Z')) {
    // UTC
  } else if (!rest.empty() && (rest.front() == '+' || rest.front() == '-')) {
    int sign = rest.front() == '+' ? 1 : -1;
    rest.remove_prefix(1);
    int oh = 0, om = 0;
    if (!read_digits(rest, 2, oh) || !expect(rest, ':') || !read_digits(rest, 2, om) || oh > 23
        || om > 59)
      return expected;
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return expected;
  }
  if (!rest.empty())
    return expected;
  std::chrono::year_month_day ymd{std::chrono::year{year},
                                  std::chrono::month{static_cast<unsigned>(month)},
                                  std::chrono::day{static_cast<unsigned>(day)}};
  if (!ymd.ok() || hour > 23 || minute > 59 || second > 59)
    return "a valid date and time of day";
  __int128 days = std::chrono::sys_days{ymd}.time_since_epoch().count();
  __int128 secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  ticks = secs * ticks_per_second + frac_ticks;
  return {};
}

void append_base64(std::string& out, std::span<const std::byte> bytes) {
  static constexpr char alphabet[]
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  out.reserve(out.size() + (bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto at = [&bytes](size_t k) { return static_cast<uint32_t>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    auto bits = at(i) << 16 | at(i + 1) << 8 | at(i + 2);
    out += alphabet[bits >> 18];
    out += alphabet[(bits >> 12) & 0x3F];
    out += alphabet[(bits >> 6) & 0x3F];
    out += alphabet[bits & 0x3F];
  }
  if (auto left = bytes.size() - i; left > 0) {
    auto bits = at(i) << 16 | (left == 2 ? at(i + 1) << 8 : 0);
    out += alphabet[bits >> 18];
    out += alphabet[(bits >> 12) & 0x3F];
    out += left == 2 ? alphabet[(bits >> 6) & 0x3F] : '=';
    out += '=';
  }
}

std::string decode_base64(std::string_view str, std::vector<std::byte>& out) {
  static constexpr auto table = [] {
    std::array<int8_t, 256> result{};
    result.fill(-1);
    constexpr std::string_view alphabet
      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < alphabet.size(); ++i)
      result[static_cast<unsigned char>(alphabet[i])] = static_cast<int8_t>(i);
    return result;
  }();
  if (str.size() % 4 != 0)
    return "base64 text whose length is a multiple of 4";
  size_t padding = 0;
  if (!str.empty() && str.back() == '=')
    padding = str.size() >= 2 && str[str.size() - 2] == '=' ? 2 : 1;
  out.clear();
  out.reserve(str.size() / 4 * 3);
  for (size_t i = 0; i < str.size(); i += 4) {
    bool last = i + 4 == str.size();
    uint32_t bits = 0;
    for (size_t k = 0; k < 4; ++k) {
      auto c = static_cast<unsigned char>(str[i + k]);
      int v = table[c];
      if (v < 0) {
        if (!(last && c == '=' && k >= 4 - padding))
          return "base64 text (A-Z, a-z, 0-9, +, / and = at the end only)";
        v = 0;
      }
      bits = bits << 6 | static_cast<uint32_t>(v);
    }
    size_t n = last ? 3 - padding : 3;
    // The bits a shorter last group leaves unused must be zero (one text
    // for one value).
    if (last && padding > 0 && (bits & ((1u << (8 * padding)) - 1)) != 0)
      return "canonical base64 text (the unused bits before '=' are zero)";
    for (size_t k = 0; k < n; ++k)
      out.push_back(static_cast<std::byte>((bits >> (16 - 8 * k)) & 0xFF));
  }
  return {};
}

std::string parse_duration_text(std::string_view str, intmax_t num, intmax_t den,
                                __int128& count) {
  static constexpr const char* expected
    = "a duration such as \"10ms\" (units: ns, us, ms, s, min, h)";
  struct unit {
    std::string_view suffix;
    int64_t num; // seconds per unit: num / den
    int64_t den;
  };
  static constexpr unit units[] = {
    {"ns", 1, 1'000'000'000}, {"us", 1, 1'000'000}, {"ms", 1, 1'000},
    {"min", 60, 1},           {"s", 1, 1},          {"h", 3600, 1},
  };
  auto rest = str;
  bool negative = !rest.empty() && rest.front() == '-';
  if (negative)
    rest.remove_prefix(1);
  // Digits, an optional fraction, then the unit.
  __int128 mantissa = 0;
  __int128 scale = 1;
  size_t whole_digits = 0;
  size_t frac_digits = 0;
  bool in_fraction = false;
  while (!rest.empty()) {
    char c = rest.front();
    if (c == '.' && !in_fraction && whole_digits > 0) {
      in_fraction = true;
    } else if (c >= '0' && c <= '9') {
      // 36 digits fit an __int128 with room for the ratio below.
      if (whole_digits + frac_digits == 36)
        return "a duration of at most 36 digits";
      mantissa = mantissa * 10 + (c - '0');
      if (in_fraction) {
        ++frac_digits;
        scale *= 10;
      } else {
        ++whole_digits;
      }
    } else {
      break;
    }
    rest.remove_prefix(1);
  }
  if (whole_digits == 0 || (in_fraction && frac_digits == 0))
    return expected;
  const unit* u = nullptr;
  for (auto& candidate : units)
    if (candidate.suffix == rest)
      u = &candidate;
  if (u == nullptr)
    return expected;
  // count = mantissa / scale * (u.num / u.den) / (num / den), exactly.
  __int128 ratio_num = static_cast<__int128>(u->num) * den;
  __int128 ratio_den = static_cast<__int128>(u->den) * num;
  auto g = gcd(ratio_num, ratio_den);
  ratio_num /= g;
  ratio_den /= g;
  __int128 numerator = 0;
  __int128 denominator = 0;
  if (__builtin_mul_overflow(mantissa, ratio_num, &numerator)
      || __builtin_mul_overflow(scale, ratio_den, &denominator))
    return "a duration this type can hold";
  if (numerator % denominator != 0)
    return "a duration this type holds exactly (a whole number of its ticks)";
  count = numerator / denominator;
  if (negative)
    count = -count;
  return {};
}

} // namespace troupe::detail
