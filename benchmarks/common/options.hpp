#pragma once

// The command line every benchmark program shares, whatever system it is
// written for, so that tools/bench.py runs them all the same way:
//
//   <program> --threads=T [--scale=quick|full] [--<size>=N ...]
//
// A program declares its size flags, each with a quick and a full default;
// an explicit flag overrides the scale. Plain C++17: the CAF 0.17 programs
// include it too.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bench {

/// A size flag `--<name>=N` and its defaults for each scale.
struct size_flag {
  std::string_view name;
  uint64_t quick;
  uint64_t full;
  std::string_view help;
};

class options {
public:
  /// Parses argv; prints usage and exits (0 for --help, 2 for bad input).
  options(int argc, char** argv, std::initializer_list<size_flag> flags)
    : options(argc, argv, std::vector<size_flag>(flags)) {}

  /// The same, for flags put together at run time (e.g. a study's common
  /// flags and a program's own).
  options(int argc, char** argv, std::vector<size_flag> flags)
    : program_(argc > 0 ? argv[0] : "benchmark"), flags_(std::move(flags)) {
    values_.reserve(flags_.size());
    std::vector<bool> explicit_value(flags_.size(), false);
    for (const auto& flag : flags_)
      values_.push_back(flag.full);
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--help" || arg == "-h")
        usage(stdout, 0);
      auto eq = arg.find('=');
      if (arg.substr(0, 2) != "--" || eq == std::string_view::npos)
        fail("expected --name=value", arg);
      auto name = arg.substr(2, eq - 2);
      auto value = arg.substr(eq + 1);
      if (name == "threads") {
        threads_ = parse_number(arg, value);
        if (threads_ == 0)
          fail("--threads must be at least 1", arg);
      } else if (name == "scale") {
        if (value != "quick" && value != "full")
          fail("--scale is quick or full", arg);
        quick = value == "quick";
      } else {
        auto index = find(name);
        if (index == flags_.size())
          fail("unknown flag", arg);
        values_[index] = parse_number(arg, value);
        explicit_value[index] = true;
      }
    }
    if (threads_ == 0)
      fail("missing --threads=T", "");
    for (size_t i = 0; i < flags_.size(); ++i)
      if (!explicit_value[i])
        values_[i] = quick ? flags_[i].quick : flags_[i].full;
  }

  /// Worker threads the system under test may use.
  size_t threads() const noexcept {
    return static_cast<size_t>(threads_);
  }

  /// Value of the size flag `name` (declared in the constructor).
  uint64_t operator[](std::string_view name) const {
    auto index = find(name);
    if (index == flags_.size())
      fail("the program asked for an undeclared flag", name);
    return values_[index];
  }

private:
  size_t find(std::string_view name) const noexcept {
    for (size_t i = 0; i < flags_.size(); ++i)
      if (flags_[i].name == name)
        return i;
    return flags_.size();
  }

  uint64_t parse_number(std::string_view arg, std::string_view text) const {
    // Digit separators make sizes readable: --messages=100'000 or 100_000.
    uint64_t result = 0;
    bool any_digit = false;
    for (char c : text) {
      if (c == '\'' || c == '_')
        continue;
      if (c < '0' || c > '9')
        fail("expected a non-negative integer", arg);
      result = result * 10 + static_cast<uint64_t>(c - '0');
      any_digit = true;
    }
    if (!any_digit)
      fail("expected a non-negative integer", arg);
    return result;
  }

  [[noreturn]] void fail(std::string_view what, std::string_view arg) const {
    std::fprintf(stderr, "%s: %.*s%s%.*s\n", program_.c_str(),
                 static_cast<int>(what.size()), what.data(),
                 arg.empty() ? "" : ": ", static_cast<int>(arg.size()),
                 arg.data());
    usage(stderr, 2);
  }

  [[noreturn]] void usage(std::FILE* out, int status) const {
    std::fprintf(out, "usage: %s --threads=T [--scale=quick|full]",
                 program_.c_str());
    for (const auto& flag : flags_)
      std::fprintf(out, " [--%.*s=N]", static_cast<int>(flag.name.size()),
                   flag.name.data());
    std::fprintf(out, "\n");
    for (const auto& flag : flags_)
      std::fprintf(out, "  --%-16.*s %.*s (quick %llu, full %llu)\n",
                   static_cast<int>(flag.name.size()), flag.name.data(),
                   static_cast<int>(flag.help.size()), flag.help.data(),
                   static_cast<unsigned long long>(flag.quick),
                   static_cast<unsigned long long>(flag.full));
    std::exit(status);
  }

  std::string program_;
  std::vector<size_flag> flags_;
  std::vector<uint64_t> values_;
  uint64_t threads_ = 0;
};

/// Prints the checksum line and returns main's exit status: 1 when the run
/// computed something else than expected, so the harness records a failure.
inline int checksum(std::string_view label, uint64_t got, uint64_t expected) {
  std::printf("%.*s=%llu\n", static_cast<int>(label.size()), label.data(),
              static_cast<unsigned long long>(got));
  if (got == expected)
    return 0;
  std::fprintf(stderr, "wrong result: %.*s=%llu, expected %llu\n",
               static_cast<int>(label.size()), label.data(),
               static_cast<unsigned long long>(got),
               static_cast<unsigned long long>(expected));
  return 1;
}

} // namespace bench
