#include "troupe/detail/field_path.hpp"

#include "troupe/error.hpp"

#include <algorithm>
#include <iterator>

namespace troupe::detail {

void field_path::add_field(std::string_view name, size_t index) noexcept {
  // Cold: runs once per level of a failure. A full array drops its
  // innermost segment, so that the outermost ones stay named.
  if (fields_ >= max_depth)
    std::shift_left(segments_.begin(), segments_.end(), 1);
  auto slot = std::min(fields_, max_depth - 1);
  segments_[slot] = segment{name.data(), name.size(), index};
  ++fields_;
}

std::string field_path::to_string() const {
  std::string result{root_};
  auto named = std::min(fields_, max_depth);
  for (size_t i = named; i-- > 0;) {
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
  if (fields_ > max_depth)
    result += ".(...)";
  return result;
}

void field_path::move_into(error& err) {
  if (empty())
    return;
  if (err) {
    auto path = to_string();
    if (!path.empty()) {
      path += ": ";
      err.prepend_context(path);
    }
  }
  clear();
}

} // namespace troupe::detail
