// Fuzzes actor_system_config::parse: the command line and the TOML file.
//
// Input: arguments, one per line; a line "%%" ends them, and the bytes after
// it are the TOML file, passed with --config-file. Any input must give an
// error or a parse whose every option value reads back as valid.

#include "troupe/actor_system_config.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace {

struct options {
  bool flag = false;
  int8_t small = 0;
  uint16_t port = 0;
  int64_t count = 0;
  double rate = 0;
  std::string name;
  std::chrono::milliseconds timeout{0};
  std::chrono::nanoseconds grain{0};
  std::vector<std::string> tags;
};

// One file per process, rewritten for each input that has a TOML part.
const std::string& toml_path() {
  static const std::string path
    = (std::filesystem::temp_directory_path()
       / ("troupe_config_fuzzer_" + std::to_string(::getpid()) + ".toml"))
        .string();
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input{reinterpret_cast<const char*>(data), size};
  std::vector<std::string> args;
  std::string_view toml;
  bool has_toml = false;
  while (!input.empty()) {
    auto eol = input.find('\n');
    auto line = input.substr(0, eol);
    input.remove_prefix(eol == std::string_view::npos ? input.size() : eol + 1);
    if (line == "%%") {
      toml = input;
      has_toml = true;
      break;
    }
    // The fuzzer names its own file; any other would read the disk.
    if (line.starts_with("--config-file"))
      continue;
    args.emplace_back(line);
  }
  if (has_toml) {
    std::ofstream out{toml_path(), std::ios::binary | std::ios::trunc};
    out.write(toml.data(), static_cast<std::streamsize>(toml.size()));
    if (!out)
      std::abort();
    args.push_back("--config-file=" + toml_path());
  }
  troupe::actor_system_config cfg;
  options opts;
  cfg.add_option("app.flag", &opts.flag, "a boolean")
    .add_option("app.small", &opts.small, "a signed byte")
    .add_option("app.port", &opts.port, "an unsigned 16-bit integer")
    .add_option("app.count", &opts.count, "a signed 64-bit integer")
    .add_option("app.rate", &opts.rate, "a double")
    .add_option("app.name", &opts.name, "a string")
    .add_option("app.timeout", &opts.timeout, "milliseconds")
    .add_option("app.grain", &opts.grain, "nanoseconds")
    .add_option("app.tags", &opts.tags, "a list of strings");
  auto err = cfg.parse(args);
  if (!err) {
    // A successful parse sets nothing out of range: writing the values back
    // as a command line must parse again to the same values.
    troupe::actor_system_config again;
    options copy;
    again.add_option("app.flag", &copy.flag, "")
      .add_option("app.small", &copy.small, "")
      .add_option("app.port", &copy.port, "")
      .add_option("app.count", &copy.count, "")
      .add_option("app.timeout", &copy.timeout, "")
      .add_option("app.grain", &copy.grain, "");
    std::vector<std::string> round_trip{
      std::string{"--app.flag="} + (opts.flag ? "true" : "false"),
      "--app.small=" + std::to_string(opts.small),
      "--app.port=" + std::to_string(opts.port),
      "--app.count=" + std::to_string(opts.count),
      "--app.timeout=" + std::to_string(opts.timeout.count()) + "ms",
      "--app.grain=" + std::to_string(opts.grain.count()) + "ns",
    };
    if (again.parse(round_trip) || copy.flag != opts.flag || copy.small != opts.small
        || copy.port != opts.port || copy.count != opts.count || copy.timeout != opts.timeout
        || copy.grain != opts.grain)
      std::abort();
  } else if (err.context().empty()) {
    // An error says what was wrong.
    std::abort();
  }
  return 0;
}
