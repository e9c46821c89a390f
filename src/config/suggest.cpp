// "Did you mean": the declared key nearest to a mistyped one.

#include "config.hpp"

#include <algorithm>
#include <vector>

namespace troupe::detail {

namespace {

// Optimal string alignment distance: Levenshtein plus swaps of neighbours,
// the most common typo in a key.
size_t edit_distance(std::string_view x, std::string_view y) {
  std::vector<std::vector<size_t>> d(x.size() + 1, std::vector<size_t>(y.size() + 1));
  for (size_t i = 0; i <= x.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= y.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= x.size(); ++i) {
    for (size_t j = 1; j <= y.size(); ++j) {
      size_t cost = x[i - 1] == y[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[x.size()][y.size()];
}

} // namespace

// The nearest at distance 2 or less.
std::string suggestion(std::string_view key, const std::vector<config_option>& options,
                       std::initializer_list<std::string_view> extra) {
  std::string_view best;
  size_t best_distance = 3;
  auto consider = [&](std::string_view candidate) {
    auto dist = edit_distance(key, candidate);
    if (dist < best_distance) {
      best = candidate;
      best_distance = dist;
    }
  };
  for (const auto& opt : options)
    consider(opt.key);
  for (auto name : extra)
    consider(name);
  if (best.empty())
    return {};
  return "; did you mean '" + std::string{best} + "'?";
}

error unknown_key(std::string_view where, std::string_view key, std::string_view context,
                  const std::vector<config_option>& options,
                  std::initializer_list<std::string_view> extra) {
  std::string msg{where};
  if (auto renamed = renamed_builtin_key(key); !renamed.empty()) {
    msg += key;
    msg += " was renamed to ";
    msg += renamed;
  } else {
    msg += "unknown key " + single_quoted(key);
    msg += context;
    msg += suggestion(key, options, extra);
  }
  return make_error(errc::unknown_key, std::move(msg));
}

} // namespace troupe::detail
