// --help: every option with its default, range and description.

#include "troupe/actor_system_config.hpp"

#include <algorithm>

namespace troupe {

using detail::config_kind;

std::string actor_system_config::helptext() const {
  std::string out = "Usage: ";
  out += program_name_.empty() ? std::string{"program"} : program_name_;
  out += " [options] [--] [arguments]\n\nOptions:\n";
  auto entry = [&out](std::string_view head, std::string_view default_text,
                      std::string_view range, std::string_view description) {
    out += "  ";
    out += head;
    if (!default_text.empty()) {
      out += "  (default: ";
      out += default_text;
      if (!range.empty()) {
        out += ", range: ";
        out += range;
      }
      out += ')';
    }
    out += '\n';
    // Descriptions wrap at 80 columns, indented under their option.
    std::string_view rest = description;
    while (!rest.empty()) {
      auto n = rest.size() <= 74 ? rest.size() : rest.rfind(' ', 74);
      if (n == std::string_view::npos || n == 0)
        n = std::min(rest.find(' '), rest.size());
      out += "      ";
      out += rest.substr(0, n);
      out += '\n';
      rest.remove_prefix(std::min(n + 1, rest.size()));
    }
  };
  entry("-h, --help", "", "", "print this text");
  entry("--config-file=<path>", "", "",
        "read options from a TOML file whose tables spell the keys ([troupe.scheduler] "
        "max-threads = 4); the command line wins over it");
  for (const auto& opt : options_) {
    std::string head;
    for (char c : opt.short_names) {
      head += '-';
      head += c;
      head += ", ";
    }
    head += "--" + opt.key;
    std::string default_text = opt.default_text;
    if (opt.kind == config_kind::boolean) {
      head += "[=true|false]";
    } else {
      head += '=';
      head += opt.placeholder;
    }
    if (!opt.has_default)
      default_text.clear();
    else if (default_text.empty())
      default_text = opt.kind == config_kind::string_list ? "empty" : "\"\"";
    entry(head, default_text, opt.range, opt.description);
  }
  return out;
}

} // namespace troupe
