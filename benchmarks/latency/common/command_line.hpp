#pragma once

// The command line of the latency study's programs: `--name=value` flags,
// each optional with a default or required, read by typed getters. Unlike
// common/options.hpp (integers only, --threads required) these programs take
// seconds, durations and configuration names. Bad input prints what was
// expected and the usage, and exits with status 2. Plain C++17: the CAF 0.17
// programs include it too.

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace latency {

class command_line {
public:
  /// `usage` is the text after the program name: "--stages=N --rate=R ...".
  command_line(int argc, char** argv, std::string usage)
    : program_(argc > 0 ? argv[0] : "latency"), usage_(std::move(usage)) {
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--help" || arg == "-h")
        print_usage(stdout, 0);
      auto eq = arg.find('=');
      if (arg.substr(0, 2) != "--" || eq == std::string_view::npos || eq == 2)
        fail(std::string{"expected --name=value, got '"} + std::string{arg} + "'");
      auto name = arg.substr(2, eq - 2);
      for (const auto& flag : flags_)
        if (flag.name == name)
          fail("--" + std::string{name} + " given twice");
      flags_.push_back({std::string{name}, std::string{arg.substr(eq + 1)}, false});
    }
  }

  /// Whether `--name=...` was given.
  bool has(std::string_view name) const noexcept {
    for (const auto& flag : flags_)
      if (flag.name == name)
        return true;
    return false;
  }

  /// An integer in [min, max]; `fallback` when absent (nullptr: required).
  uint64_t integer(std::string_view name, const uint64_t* fallback, uint64_t min,
                   uint64_t max) {
    auto* text = take(name, fallback != nullptr);
    if (text == nullptr)
      return *fallback;
    uint64_t result = 0;
    bool ok = !text->empty();
    for (char c : *text) {
      if (c == '\'' || c == '_')
        continue;
      if (c < '0' || c > '9' || result > (UINT64_MAX - 9) / 10) {
        ok = false;
        break;
      }
      result = result * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!ok || result < min || result > max)
      fail_value(name, *text,
                 "an integer from " + std::to_string(min) + " to " + std::to_string(max));
    return result;
  }

  /// Seconds as a decimal number ("10", "0.5") in (0, max_seconds].
  double seconds(std::string_view name, const double* fallback, double max_seconds) {
    auto* text = take(name, fallback != nullptr);
    if (text == nullptr)
      return *fallback;
    char* end = nullptr;
    errno = 0;
    double result = std::strtod(text->c_str(), &end);
    // strtod also takes "inf", "nan" and hex: only digits and one dot pass.
    bool ok = !text->empty() && errno == 0 && end == text->c_str() + text->size()
              && text->find_first_not_of("0123456789.") == std::string::npos;
    if (!ok || !(result > 0.0) || result > max_seconds) {
      char limit[32];
      std::snprintf(limit, sizeof(limit), "%g", max_seconds);
      fail_value(name, *text, std::string{"a number of seconds above 0 and at most "} + limit);
    }
    return result;
  }

  /// Free text; `fallback` when absent (nullptr: required).
  std::string text(std::string_view name, const char* fallback) {
    auto* value = take(name, fallback != nullptr);
    if (value == nullptr)
      return fallback;
    if (value->empty())
      fail_value(name, *value, "a non-empty value");
    return *value;
  }

  /// One of `choices`; the first when absent.
  std::string choice(std::string_view name, const std::vector<std::string>& choices) {
    auto result = text(name, choices.front().c_str());
    for (const auto& x : choices)
      if (x == result)
        return result;
    std::string expected = "one of";
    for (const auto& x : choices)
      expected += " " + x;
    fail_value(name, result, expected);
  }

  /// Rejects flags that no getter asked for; call after reading all flags.
  void finish() const {
    for (const auto& flag : flags_)
      if (!flag.used)
        fail("unknown flag --" + flag.name);
  }

  [[noreturn]] void fail(const std::string& what) const {
    std::fprintf(stderr, "%s: %s\n", program_.c_str(), what.c_str());
    print_usage(stderr, 2);
  }

  [[noreturn]] void fail_value(std::string_view name, std::string_view value,
                               const std::string& expected) const {
    fail("--" + std::string{name} + "=" + std::string{value} + ": expected " + expected);
  }

private:
  struct flag {
    std::string name;
    std::string value;
    bool used;
  };

  /// The value of `--name`, or nullptr if absent and `optional`.
  const std::string* take(std::string_view name, bool optional) {
    for (auto& flag : flags_) {
      if (flag.name == name) {
        flag.used = true;
        return &flag.value;
      }
    }
    if (!optional)
      fail("missing --" + std::string{name});
    return nullptr;
  }

  [[noreturn]] void print_usage(std::FILE* out, int status) const {
    std::fprintf(out, "usage: %s %s\n", program_.c_str(), usage_.c_str());
    std::exit(status);
  }

  std::string program_;
  std::string usage_;
  std::vector<flag> flags_;
};

} // namespace latency
