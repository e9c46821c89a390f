#include "troupe/logger.hpp"

#include <fmt/format.h>

#include <charconv>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <mutex>
#include <system_error>
#include <utility>

namespace troupe {

std::string to_string(log_level x) {
  switch (x) {
    case log_level::quiet:
      return "quiet";
    case log_level::error:
      return "error";
    case log_level::warning:
      return "warning";
    case log_level::info:
      return "info";
    case log_level::debug:
      return "debug";
    case log_level::trace:
      return "trace";
  }
  return "log_level(" + std::to_string(static_cast<int>(x)) + ")";
}

namespace {

struct sink_state {
  std::mutex mtx;
  logger::sink_type sink;
};

// Never destroyed: threads and static destructors may still log at exit.
sink_state& state() {
  static sink_state& result = *new sink_state;
  return result;
}

void write_to_stderr(std::string_view line) {
  // One fwrite per line so that lines from other writers to stderr do not
  // split it.
  std::string buf;
  buf.reserve(line.size() + 1);
  buf += line;
  buf += '\n';
  std::fwrite(buf.data(), 1, buf.size(), stderr);
}

} // namespace

logger::sink_type logger::set_sink(sink_type f) {
  auto& st = state();
  std::lock_guard guard{st.mtx};
  return std::exchange(st.sink, std::move(f));
}

void logger::log(log_level x, std::string_view component, std::string_view msg) noexcept {
  if (!enabled(x))
    return;
  try {
    std::string line;
    line.reserve(16 + component.size() + msg.size());
    line += "[troupe] ";
    line += to_string(x);
    line += ' ';
    if (!component.empty()) {
      line += component;
      line += ": ";
    }
    line += msg;
    auto& st = state();
    std::lock_guard guard{st.mtx};
    if (st.sink)
      st.sink(x, line);
    else
      write_to_stderr(line);
  } catch (...) {
    // Logging never takes the caller down; the line is lost.
  }
}

namespace detail {

size_t append_log_literal(std::string& out, std::string_view fmt, size_t pos,
                          std::string_view& spec) {
  spec = {};
  while (pos < fmt.size()) {
    char c = fmt[pos];
    if (c == '{' && pos + 1 < fmt.size()) {
      if (fmt[pos + 1] == '}')
        return pos + 2;
      if (fmt[pos + 1] == ':') {
        auto close = fmt.find('}', pos + 2);
        if (close == std::string_view::npos)
          return fmt.size();
        spec = fmt.substr(pos + 2, close - pos - 2);
        return close + 1;
      }
    }
    out += c;
    // The format string was checked at compile time: any other brace is the
    // first of an escaped pair.
    pos += (c == '{' || c == '}') ? 2 : 1;
  }
  return fmt.size();
}

namespace {

template <class T>
void append_chars(std::string& out, T x) {
  char buf[128];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  if (res.ec == std::errc{})
    out.append(buf, res.ptr);
}

} // namespace

void append_log_value(std::string& out, long long x) {
  append_chars(out, x);
}

void append_log_value(std::string& out, unsigned long long x) {
  append_chars(out, x);
}

void append_log_value(std::string& out, float x) {
  append_chars(out, x);
}

void append_log_value(std::string& out, double x) {
  append_chars(out, x);
}

void append_log_value(std::string& out, long double x) {
  append_chars(out, x);
}

void append_log_value(std::string& out, const void* x) {
  char buf[2 * sizeof(void*)];
  auto res = std::to_chars(buf, buf + sizeof(buf), reinterpret_cast<uintptr_t>(x), 16);
  out += "0x";
  out.append(buf, res.ptr);
}

namespace {

/// "{:spec}" for fmt. fmt 9 pads "{:<05}" with zeros after the digits, where
/// std::format ignores a '0' that follows an alignment: that '0' is dropped.
std::string to_fmt_format_string(std::string_view spec) {
  size_t i = log_format_align_end(spec);
  if (i > 0 && i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' '))
    ++i;
  if (i > 0 && i < spec.size() && spec[i] == '#')
    ++i;
  std::string result;
  result.reserve(spec.size() + 3);
  result += "{:";
  if (i > 0 && i < spec.size() && spec[i] == '0') {
    result += spec.substr(0, i);
    result += spec.substr(i + 1);
  } else {
    result += spec;
  }
  result += '}';
  return result;
}

/// Appends `x` formatted by `spec`, or calls `fallback` if fmt rejects the
/// spec (the compile-time check should leave none that it rejects).
template <class T, class Fallback>
void append_formatted(std::string& out, std::string_view spec, const T& x, Fallback fallback) {
  auto size = out.size();
  try {
    fmt::format_to(std::back_inserter(out), fmt::runtime(to_fmt_format_string(spec)), x);
  } catch (const fmt::format_error&) {
    out.resize(size);
    fallback();
  }
}

/// True if `spec` ends in an integer presentation type ('d', 'x', ...): the
/// type, when there is one, is the last character of a spec.
bool integer_presentation(std::string_view spec) {
  return !spec.empty() && std::string_view{"bBdoxX"}.find(spec.back()) != std::string_view::npos;
}

} // namespace

void append_log_value(std::string& out, std::string_view spec, long long x) {
  append_formatted(out, spec, x, [&] { append_log_value(out, x); });
}

void append_log_value(std::string& out, std::string_view spec, unsigned long long x) {
  // fmt 9 refuses a sign ("{:+}") for an unsigned argument where std::format
  // takes it; a signed type holding the same value prints the same otherwise.
  auto fallback = [&] { append_log_value(out, x); };
  if (x <= static_cast<unsigned long long>(LLONG_MAX)) {
    append_formatted(out, spec, static_cast<long long>(x), fallback);
    return;
  }
#ifdef __SIZEOF_INT128__
  append_formatted(out, spec, static_cast<__int128>(x), fallback);
#else
  append_formatted(out, spec, x, fallback);
#endif
}

void append_log_value(std::string& out, std::string_view spec, float x) {
  append_formatted(out, spec, x, [&] { append_log_value(out, x); });
}

void append_log_value(std::string& out, std::string_view spec, double x) {
  append_formatted(out, spec, x, [&] { append_log_value(out, x); });
}

void append_log_value(std::string& out, std::string_view spec, long double x) {
  append_formatted(out, spec, x, [&] { append_log_value(out, x); });
}

void append_log_value(std::string& out, std::string_view spec, bool x) {
  // As std::format: a bool under "{:d}" is the number 0 or 1, which takes a
  // sign (fmt refuses one for a bool).
  if (integer_presentation(spec))
    append_formatted(out, spec, static_cast<int>(x), [&] { out += x ? "true" : "false"; });
  else
    append_formatted(out, spec, x, [&] { out += x ? "true" : "false"; });
}

void append_log_value(std::string& out, std::string_view spec, char x) {
  // As std::format since P2909: a char under "{:x}" is its unsigned code
  // unit, so '\xff' prints as ff, not -1 (held in an int, which fmt lets
  // take a sign).
  if (integer_presentation(spec))
    append_formatted(out, spec, static_cast<int>(static_cast<unsigned char>(x)),
                     [&] { out += x; });
  else
    append_formatted(out, spec, x, [&] { out += x; });
}

void append_log_text(std::string& out, std::string_view spec, std::string_view text) {
  append_formatted(out, spec, text, [&] { out += text; });
}

} // namespace detail

} // namespace troupe
