#pragma once

// Where a loader is: the name of the outermost object and the fields below
// it ("bar.a.b"), kept as views of the field names (string literals) so
// that tracking costs two stores per field and errors render it on failure
// only.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace troupe::detail {

class field_path {
public:
  /// Deeper fields are counted but not named.
  static constexpr size_t max_depth = 32;

  static constexpr size_t no_index = static_cast<size_t>(-1);

  void begin_object(std::string_view type_name) noexcept {
    if (depth_ == 0)
      root_ = type_name;
  }

  void push(std::string_view name, size_t index = no_index) noexcept {
    if (depth_ < max_depth)
      segments_[depth_] = segment{name.data(), name.size(), index};
    ++depth_;
  }

  void pop() noexcept {
    --depth_;
  }

  size_t depth() const noexcept {
    return depth_;
  }

  void clear() noexcept {
    depth_ = 0;
    root_ = {};
  }

  /// "bar.a.b", "message[1].x", or "" at the top.
  std::string to_string() const;

private:
  // Trivial (no string_view inside), so that a path costs nothing to
  // construct: a deserializer is often made per message.
  struct segment {
    const char* name;
    size_t size;
    size_t index;
  };

  size_t depth_ = 0;
  std::string_view root_;
  std::array<segment, max_depth> segments_;
};

} // namespace troupe::detail
