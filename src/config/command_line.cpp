// The command line, read here rather than by CLI11: CLI11 takes "--key=" for
// "--key" and the next argument, stores each option as it goes, where a
// failed parse must change nothing, and has its own errors, which name
// neither the value nor the nearest key.

#include "troupe/actor_system_config.hpp"

#include "config.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace troupe {

using detail::config_kind;
using detail::config_option;
using detail::malformed;
using detail::single_quoted;

namespace {

// An option, and so no value of the key before it: "--x" and "-x", though
// "-5" is a negative number.
bool looks_like_option(std::string_view arg) {
  auto name_char = [](char c) { return c != '-' && c != '!' && c != ' ' && c != '\n'; };
  if (arg == "--")
    return true;
  if (arg.starts_with("--"))
    return arg.size() > 2 && name_char(arg[2]);
  return arg.size() > 1 && arg[0] == '-' && name_char(arg[1])
         && !(arg[1] >= '0' && arg[1] <= '9');
}

// The error for "-x", which names no short option.
error unknown_short_option(std::string_view arg, const std::vector<config_option>& options) {
  auto name = arg.substr(1);
  auto hint = detail::suggestion(name.substr(0, name.find('=')), options,
                                 {"help", "config-file"});
  if (hint.empty()) {
    std::string shorts;
    for (const auto& opt : options) {
      for (char c : opt.short_names) {
        shorts += shorts.empty() ? " (" : ", ";
        shorts += '-';
        shorts += c;
      }
    }
    if (!shorts.empty())
      shorts = " or by a short name" + shorts + ')';
    hint = "; options are written --key=value" + shorts
           + ", and arguments after a bare -- are positional";
  }
  return make_error(errc::unknown_key,
                    "unknown option " + single_quoted(arg) + " on the command line" + hint);
}

} // namespace

error actor_system_config::parse(int argc, const char* const* argv) {
  std::vector<std::string> args;
  if (argc > 0 && argv != nullptr && argv[0] != nullptr) {
    std::string_view name{argv[0]};
    program_name_ = name.substr(std::min(name.rfind('/') + 1, name.size()));
    for (int i = 1; i < argc; ++i)
      args.emplace_back(argv[i]);
  }
  return parse_impl(std::move(args));
}

error actor_system_config::parse(std::vector<std::string> args) {
  return parse_impl(std::move(args));
}

error actor_system_config::parse_impl(std::vector<std::string> args) {
  helptext_requested_ = false;
  auto separator = std::find(args.begin(), args.end(), "--");
  std::vector<std::string> remainder;
  // Each option's values in the order given (none: not given); the first
  // error of each sort. --help wins over every error, so all wait until the
  // end.
  std::vector<std::vector<std::string>> given(options_.size());
  std::optional<std::string> config_file;
  error short_error;
  error unknown_error;
  auto give = [&](const config_option& opt, std::string value) {
    given[static_cast<size_t>(&opt - options_.data())].push_back(std::move(value));
  };
  for (auto i = args.begin(); i != separator; ++i) {
    std::string_view arg = *i;
    // The next argument, as the value of a key without "=value".
    auto next_value = [&]() -> std::string {
      if (i + 1 == separator || looks_like_option(*(i + 1)))
        return {};
      return std::move(*++i);
    };
    if (arg == "-h" || arg == "--help" || arg.starts_with("--help=")) {
      helptext_requested_ = true;
      return {};
    }
    if (!arg.starts_with('-') || arg == "-") {
      remainder.push_back(std::move(*i));
    } else if (arg.starts_with("--")) {
      auto eq = arg.find('=');
      auto key = arg.substr(2, eq == std::string_view::npos ? eq : eq - 2);
      std::optional<std::string> value;
      if (eq != std::string_view::npos)
        value = std::string{arg.substr(eq + 1)};
      if (key == "config-file") {
        config_file = value ? std::move(*value) : next_value();
      } else if (auto opt = find_option(key)) {
        if (!value)
          value = opt->kind == config_kind::boolean ? std::string{"true"} : next_value();
        give(*opt, std::move(*value));
      } else if (!unknown_error) {
        unknown_error = detail::unknown_key("", key, " on the command line", options_,
                                            {"help", "config-file"});
      }
    } else if (auto opt = find_short_option(arg[1])) {
      // As CAF reads them: -p 8080 and -p8080 give a value (the next
      // argument whatever it looks like, so -n -5 works), -s alone sets a
      // boolean.
      if (opt->kind == config_kind::boolean) {
        if (arg.size() == 2)
          give(*opt, "true");
        else if (!short_error)
          short_error = malformed("", opt->key,
                                  std::string{arg.substr(0, 2)} + " alone (or --" + opt->key
                                    + "=true|false)",
                                  single_quoted(arg));
      } else if (arg.size() > 2) {
        give(*opt, std::string{arg.substr(2)});
      } else {
        give(*opt, i + 1 != separator ? std::move(*++i) : std::string{});
      }
    } else if (!unknown_error) {
      // Taking "-x" as positional would hide a mistyped option.
      unknown_error = unknown_short_option(arg, options_);
    }
  }
  if (short_error)
    return short_error;
  if (unknown_error)
    return unknown_error;
  if (separator != args.end())
    remainder.insert(remainder.end(), std::make_move_iterator(separator + 1),
                     std::make_move_iterator(args.end()));
  std::vector<detail::pending_value> pending;
  // The file first, so that the command line's values overwrite it.
  if (config_file) {
    if (config_file->empty())
      return malformed("", "config-file", "a path", "''");
    if (auto err = detail::read_config_file(*config_file, options_, pending))
      return err;
  }
  for (size_t i = 0; i < options_.size(); ++i) {
    if (given[i].empty())
      continue;
    auto& opt = options_[i];
    std::vector<std::string> values;
    if (opt.kind == config_kind::string_list) {
      for (const auto& x : given[i])
        detail::split_list(x, values);
    } else {
      // The last occurrence wins, as in most command-line programs.
      values.push_back(std::move(given[i].back()));
      if (auto what = opt.assign(values, false); !what.empty())
        return malformed("", opt.key, what, single_quoted(values.back()));
    }
    pending.push_back(detail::pending_value{&opt, std::move(values)});
  }
  // Everything is valid: store it.
  for (auto& x : pending) {
    x.opt->assign(x.values, true);
    x.opt->given = std::move(x.values);
    x.opt->is_given = true;
  }
  remainder_ = std::move(remainder);
  return {};
}

} // namespace troupe
