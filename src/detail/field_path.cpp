#include "troupe/detail/field_path.hpp"

#include <algorithm>

namespace troupe::detail {

std::string field_path::to_string() const {
  std::string result{root_};
  auto named = std::min(depth_, max_depth);
  for (size_t i = 0; i < named; ++i) {
    auto& seg = segments_[i];
    if (seg.size > 0) {
      if (!result.empty())
        result += '.';
      result.append(seg.name, seg.size);
    }
    if (seg.index != no_index) {
      result += '[';
      result += std::to_string(seg.index);
      result += ']';
    }
  }
  if (depth_ > max_depth)
    result += ".(...)";
  return result;
}

} // namespace troupe::detail
