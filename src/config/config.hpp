#pragma once

// What the parts of actor_system_config share: the text of its errors, the
// key suggestions and the values waiting to be stored.

#include "troupe/detail/config_option.hpp"
#include "troupe/error.hpp"

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::detail {

inline std::string single_quoted(std::string_view str) {
  std::string result = "'";
  result += str;
  result += '\'';
  return result;
}

/// "<where>key: expected <what>, got <got>".
inline error malformed(std::string_view where, std::string_view key, std::string_view what,
                       std::string_view got) {
  std::string msg{where};
  msg += key;
  msg += ": expected ";
  msg += what;
  msg += ", got ";
  msg += got;
  return make_error(errc::malformed_value, std::move(msg));
}

/// Splits a command-line list at its commas; an empty string is an empty list.
void split_list(std::string_view str, std::vector<std::string>& out);

/// "; did you mean 'x'?" for the declared key (or `extra` name) nearest to
/// `key`, if one is near enough; else empty.
std::string suggestion(std::string_view key, const std::vector<config_option>& options,
                       std::initializer_list<std::string_view> extra = {});

/// The key a built-in key was renamed to, or empty.
std::string_view renamed_builtin_key(std::string_view old_key);

/// The error for `key`, which names no option: "<where>unknown key 'key'
/// <context>" with a suggestion, or "<where>key was renamed to new-key".
error unknown_key(std::string_view where, std::string_view key, std::string_view context,
                  const std::vector<config_option>& options,
                  std::initializer_list<std::string_view> extra = {});

/// A value checked and waiting to be stored: a parse stores nothing until
/// every value has been checked.
struct pending_value {
  config_option* opt;
  std::vector<std::string> values;
};

/// Reads the TOML file at `path`, checks each value it gives against its
/// option in `options` and appends it to `pending`.
error read_config_file(const std::string& path, std::vector<config_option>& options,
                       std::vector<pending_value>& pending);

} // namespace troupe::detail
