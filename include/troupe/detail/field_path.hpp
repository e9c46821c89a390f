#pragma once

// Where a load or save failed: the name of the outermost object and the
// fields below it ("bar.a.b", "message[1].x"). Recorded while the failure
// unwinds, innermost field first, so that a value that loads costs nothing
// here; names are views of the field names (string literals).

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace troupe {
class error;
} // namespace troupe

namespace troupe::detail {

class field_path {
public:
  /// Only the outermost this many fields are named; deeper ones show as
  /// "(...)".
  static constexpr size_t max_depth = 32;

  static constexpr size_t no_index = static_cast<size_t>(-1);

  /// The failure passed out of field `name` (or element `index` of a
  /// message, with an empty name). Innermost first.
  void add_field(std::string_view name, size_t index = no_index) noexcept;

  /// The failure passed out of an object of type `type_name`; the last one
  /// added, the outermost, names the path.
  void add_object(std::string_view type_name) noexcept {
    root_ = type_name;
  }

  bool empty() const noexcept {
    return fields_ == 0 && root_.empty();
  }

  void clear() noexcept {
    fields_ = 0;
    root_ = {};
  }

  /// "bar.a.b", "message[1].x", or "".
  std::string to_string() const;

  /// Puts "<path>: " in front of the context of `err` (if both are
  /// nonempty) and clears the path.
  void move_into(error& err);

private:
  // Trivial (no string_view inside), so that a path costs nothing to
  // construct: a deserializer is often made per message.
  struct segment {
    const char* name;
    size_t size;
    size_t index;
  };

  /// Fields added so far; the outermost max_depth of them are kept, the
  /// innermost first.
  size_t fields_ = 0;
  std::string_view root_;
  std::array<segment, max_depth> segments_;
};

} // namespace troupe::detail
