#pragma once

// HTTP route patterns: "/api/users/<id>/posts" matches a path of as many
// segments, each literal segment equal and each <name> taking whatever the
// path has there. tests/fuzz/net_route_fuzzer.cpp feeds both the pattern
// parser and the matcher.

#include "troupe/error.hpp"
#include "troupe/expected.hpp"

#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace troupe::net::detail {

class route_pattern {
public:
  /// Parses `text`: it starts with "/", its segments are literal or a
  /// whole "<name>" (a name of letters, digits, "_" and "-", given once).
  static expected<route_pattern> parse(std::string_view text) {
    if (text.empty() || text.front() != '/')
      return bad(text, "it does not start with \"/\"");
    route_pattern result;
    result.text_ = std::string{text};
    for (auto seg : split(text)) {
      if (seg.find_first_of("<>") == std::string_view::npos) {
        result.segments_.push_back({std::string{seg}, false});
        continue;
      }
      if (seg.size() < 3 || seg.front() != '<' || seg.back() != '>')
        return bad(text, "a parameter must be a whole segment, as <name>");
      auto name = seg.substr(1, seg.size() - 2);
      for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
          return bad(text, "the parameter name \"" + std::string{name}
                             + "\" has a character other than letters, digits, _ and -");
      for (auto& other : result.segments_)
        if (other.param && other.text == name)
          return bad(text, "the parameter <" + std::string{name} + "> appears twice");
      result.segments_.push_back({std::string{name}, true});
    }
    return result;
  }

  /// True if `path` (without its query) matches; then `params` holds each
  /// parameter's name and value, in the pattern's order.
  bool match(std::string_view path,
             std::vector<std::pair<std::string, std::string>>& params) const {
    params.clear();
    auto segs = split(path);
    if (segs.size() != segments_.size())
      return false;
    for (size_t i = 0; i < segs.size(); ++i) {
      auto& seg = segments_[i];
      if (seg.param) {
        if (segs[i].empty())
          return false;
        params.emplace_back(seg.text, std::string{segs[i]});
      } else if (seg.text != segs[i]) {
        return false;
      }
    }
    return true;
  }

  const std::string& text() const noexcept {
    return text_;
  }

private:
  struct segment {
    std::string text;
    bool param;
  };

  /// The segments of "/a/b" ("a", "b"); "/" has one empty segment.
  static std::vector<std::string_view> split(std::string_view path) {
    std::vector<std::string_view> result;
    path.remove_prefix(path.empty() ? 0 : 1);
    for (;;) {
      auto pos = path.find('/');
      result.push_back(path.substr(0, pos));
      if (pos == std::string_view::npos)
        return result;
      path.remove_prefix(pos + 1);
    }
  }

  static error bad(std::string_view text, std::string why) {
    return make_error(errc::invalid_argument,
                      "route \"" + std::string{text} + "\": " + std::move(why));
  }

  std::string text_;
  std::vector<segment> segments_;
};

} // namespace troupe::net::detail
