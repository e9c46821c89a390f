// The config file: a TOML file whose tables spell the keys, read with
// toml++.

#include "config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <sstream>

namespace troupe::detail {

namespace {

std::string location(const std::string& path, const toml::source_position& pos) {
  return path + ':' + std::to_string(pos.line) + ':' + std::to_string(pos.column) + ": ";
}

std::string toml_type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// The TOML value as it reads in the file, after its type: a string "four".
std::string describe_toml(const toml::node& node) {
  std::ostringstream out;
  out << toml_type_name(node.type());
  if (!node.is_table() && !node.is_array()) {
    out << ' ';
    node.visit([&out](const auto& x) { out << x; });
  }
  return out.str();
}

std::string number_text(double x) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, res.ptr);
}

// Turns a TOML value into the strings a command line would give for `opt`,
// or returns false if its TOML type does not fit.
bool toml_to_values(const config_option& opt, const toml::node& node,
                    std::vector<std::string>& out) {
  switch (opt.kind) {
    case config_kind::boolean:
      if (auto x = node.as_boolean()) {
        out.emplace_back(x->get() ? "true" : "false");
        return true;
      }
      return false;
    case config_kind::integer:
      if (auto x = node.as_integer()) {
        out.emplace_back(std::to_string(x->get()));
        return true;
      }
      return false;
    case config_kind::number:
      if (auto x = node.as_integer()) {
        out.emplace_back(std::to_string(x->get()));
        return true;
      }
      if (auto x = node.as_floating_point()) {
        out.emplace_back(number_text(x->get()));
        return true;
      }
      return false;
    case config_kind::string:
    case config_kind::duration:
      if (auto x = node.as_string()) {
        out.emplace_back(x->get());
        return true;
      }
      return false;
    case config_kind::string_list:
      if (auto arr = node.as_array()) {
        for (const auto& elem : *arr) {
          auto str = elem.as_string();
          if (!str)
            return false;
          out.emplace_back(str->get());
        }
        return true;
      }
      return false;
  }
  return false;
}

// What `opt` takes, in the words of its own parser where it has some: the
// empty string is malformed for every kind but strings and lists.
std::string expected_toml(const config_option& opt) {
  std::string empty[] = {std::string{}};
  if (auto what = opt.assign(empty, false); !what.empty())
    return what;
  return opt.kind == config_kind::string_list ? "an array of strings" : "a string";
}


} // namespace

error read_config_file(const std::string& path, std::vector<config_option>& options,
                       std::vector<pending_value>& pending) {
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& ex) {
    // toml++ gives no position when it cannot open or read the file.
    if (!ex.source().begin) {
      auto why = errno;
      return make_error(errc::parse_error, "cannot open config file " + single_quoted(path)
                                             + ": " + std::strerror(why));
    }
    return make_error(errc::parse_error,
                      location(path, ex.source().begin) + std::string{ex.description()});
  }
  auto find = [&options](std::string_view key) -> config_option* {
    auto i = std::find_if(options.begin(), options.end(),
                          [key](const config_option& x) { return x.key == key; });
    return i != options.end() ? &*i : nullptr;
  };
  auto has_options_below = [&options](const std::string& key) {
    return std::any_of(options.begin(), options.end(), [&key](const config_option& x) {
      return x.key.size() > key.size() && x.key.starts_with(key) && x.key[key.size()] == '.';
    });
  };
  // Walks the tables depth first; a key names an option or a table.
  auto walk = [&](auto& self, const toml::table& tbl, const std::string& prefix) -> error {
    for (const auto& [k, node] : tbl) {
      auto key = prefix + std::string{k.str()};
      auto opt = find(key);
      auto sub = node.as_table();
      // A table whose name is also a key ("tls" and "tls.ca-file") holds
      // the options below it; no option takes a table.
      if (sub != nullptr && has_options_below(key))
        opt = nullptr;
      if (opt != nullptr) {
        std::vector<std::string> values;
        if (!toml_to_values(*opt, node, values))
          return malformed(location(path, node.source().begin), key, expected_toml(*opt),
                           describe_toml(node));
        if (auto what = opt->assign(values, false); !what.empty())
          return malformed(location(path, node.source().begin), key, what,
                           single_quoted(values.back()));
        pending.push_back(pending_value{opt, std::move(values)});
      } else if (sub != nullptr) {
        if (auto err = self(self, *sub, key + '.'))
          return err;
      } else {
        return unknown_key(location(path, k.source().begin), key, " in " + path, options);
      }
    }
    return {};
  };
  return walk(walk, root, "");
}

} // namespace troupe::detail
