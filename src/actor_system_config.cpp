// actor_system_config: declaring options, reading and setting one, and the
// modules and actor types it carries. The built-in options, the command
// line, the config file and the help text have files of their own in
// src/config/.

#include "troupe/actor_system_config.hpp"

#include "config/config.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <utility>

namespace troupe {

using detail::config_kind;
using detail::config_option;
using detail::single_quoted;

namespace {

// Letters, digits, '-' and '_' between dots; at least `min_parts` parts,
// each starting with a letter or digit, the first with a letter.
bool is_dotted_name(std::string_view key, size_t min_parts) {
  if (key.empty() || !std::isalpha(static_cast<unsigned char>(key.front())))
    return false;
  size_t parts = 0;
  while (true) {
    auto part = key.substr(0, key.find('.'));
    if (part.empty() || !std::isalnum(static_cast<unsigned char>(part.front())))
      return false;
    for (char c : part)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
        return false;
    ++parts;
    if (part.size() == key.size())
      return parts >= min_parts;
    key.remove_prefix(part.size() + 1);
  }
}

} // namespace

actor_system_config::~actor_system_config() = default;

void actor_system_config::add_actor_factory(std::string name, actor_factory make) {
  actor_factories_[std::move(name)] = std::move(make);
}

const actor_system_config::actor_factory*
actor_system_config::find_actor_factory(std::string_view name) const {
  auto i = actor_factories_.find(name);
  return i != actor_factories_.end() ? &i->second : nullptr;
}

void actor_system_config::add_module(std::string_view name, module_factory make) {
  for (auto& [known, fn] : modules_)
    if (known == name)
      return;
  modules_.emplace_back(name, make);
}

void actor_system_config::add_option_impl(config_option opt, bool null_storage) {
  auto caller = "add_option(\"" + opt.key + "\")";
  if (null_storage)
    throw std::logic_error("troupe: " + caller + ": storage is null");
  declare(std::move(opt), caller, false);
}

void actor_system_config::declare(config_option opt, const std::string& caller,
                                  bool plain_key) {
  auto fail = [&caller](std::string_view why) {
    throw std::logic_error("troupe: " + caller + ": " + std::string{why});
  };
  if (!is_dotted_name(opt.key, plain_key ? 1 : 2)) {
    if (plain_key)
      fail("a key is a name such as port or a dotted name such as app.rate, made of "
           "letters, digits, '-' and '_'");
    fail("a key is a dotted name such as app.rate, made of letters, digits, '-' and '_'");
  }
  // A key "troupe" would also take the [troupe] table of a config file.
  if (opt.key == "troupe" || opt.key.starts_with("troupe."))
    fail("keys starting with troupe. belong to Troupe");
  if (opt.key == "help" || opt.key == "config-file")
    fail("--" + opt.key + " belongs to Troupe");
  if (find_option(opt.key) != nullptr)
    fail("key declared twice");
  for (size_t i = 0; i < opt.short_names.size(); ++i) {
    char c = opt.short_names[i];
    std::string flag{'-', c};
    // A digit would make -5 an option where it is a negative number.
    if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z'))
      fail("a short name is a letter, such as p for -p, not " + single_quoted(flag));
    if (c == 'h')
      fail("-h belongs to --help");
    if (opt.short_names.find(c) != i)
      fail(flag + " given twice");
    if (auto other = find_short_option(c))
      fail(flag + " belongs to --" + other->key + " already");
  }
  options_.push_back(std::move(opt));
}

void actor_system_config::add_builtin(config_option opt) {
  options_.push_back(std::move(opt));
}

const config_option* actor_system_config::find_option(std::string_view key) const noexcept {
  auto i = std::find_if(options_.begin(), options_.end(),
                        [key](const config_option& x) { return x.key == key; });
  return i != options_.end() ? &*i : nullptr;
}

config_option* actor_system_config::find_option(std::string_view key) noexcept {
  return const_cast<config_option*>(std::as_const(*this).find_option(key));
}

const config_option* actor_system_config::find_short_option(char name) const noexcept {
  auto i = std::find_if(options_.begin(), options_.end(), [name](const config_option& x) {
    return x.short_names.find(name) != std::string::npos;
  });
  return i != options_.end() ? &*i : nullptr;
}

error actor_system_config::read_given(
  std::string_view key, std::string_view type_name, bool list,
  const std::function<std::string(std::span<const std::string>)>& read) const {
  auto opt = find_option(key);
  if (opt == nullptr)
    return detail::unknown_key("", key, "", options_);
  if (!opt->is_given)
    return make_error(errc::unknown_key, "no value for " + single_quoted(key)
                                           + ": not given on the command line, in the "
                                             "config file or with set()");
  std::string text;
  for (const auto& x : opt->given) {
    if (!text.empty())
      text += ',';
    text += x;
  }
  auto cannot = [&](std::string_view why) {
    std::string msg{key};
    msg += ": cannot read the ";
    msg += opt->type_name;
    msg += ' ';
    msg += single_quoted(text);
    msg += " as ";
    msg += type_name;
    msg += why;
    return make_error(errc::malformed_value, std::move(msg));
  };
  // A list is no scalar, even one with a single element, and the other way
  // round.
  if (list != (opt->kind == config_kind::string_list))
    return cannot("");
  if (auto what = read(opt->given); !what.empty())
    return cannot(": expected " + what);
  return {};
}

error actor_system_config::set(std::string_view key, std::string_view value) {
  auto opt = find_option(key);
  if (opt == nullptr)
    return detail::unknown_key("", key, "", options_);
  std::vector<std::string> values;
  if (opt->kind == config_kind::string_list)
    detail::split_list(value, values);
  else
    values.emplace_back(value);
  if (auto what = opt->assign(values, true); !what.empty())
    return detail::malformed("", key, what, single_quoted(value));
  opt->given = std::move(values);
  opt->is_given = true;
  return {};
}

} // namespace troupe
