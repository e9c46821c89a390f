#include "troupe/logger.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
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

size_t append_log_literal(std::string& out, std::string_view fmt, size_t pos) {
  while (pos < fmt.size()) {
    char c = fmt[pos];
    if (c == '{' && pos + 1 < fmt.size() && fmt[pos + 1] == '}')
      return pos + 2;
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

} // namespace detail

} // namespace troupe
