#pragma once

// A slice is an index range [first, last) of a container that the workers of
// a map or div_conq pattern share without copying. Distinct slices of one
// container never overlap, so workers may write through them in parallel.
// The container needs size(); begin() and operator[] only where a slice's
// are used, so any type whose size() counts work items will do (rows of an
// image, partitions of a problem).

#include <cstddef>
#include <iterator>
#include <type_traits>

namespace troupe::patterns {

template <class Container>
class slice {
public:
  using container_type = Container;

  slice() noexcept = default;

  slice(Container& c, size_t first, size_t last) noexcept
    : c_(&c), first_(first), last_(last) {}

  /// The whole container.
  explicit slice(Container& c) noexcept : slice(c, 0, c.size()) {}

  auto begin() const noexcept {
    return std::next(c_->begin(), static_cast<std::ptrdiff_t>(first_));
  }

  auto end() const noexcept {
    return std::next(c_->begin(), static_cast<std::ptrdiff_t>(last_));
  }

  /// Index of the first element in the container.
  size_t first() const noexcept {
    return first_;
  }

  /// Index one past the last element in the container.
  size_t last() const noexcept {
    return last_;
  }

  size_t size() const noexcept {
    return last_ - first_;
  }

  bool empty() const noexcept {
    return first_ == last_;
  }

  /// Element `i` of the slice (element first() + i of the container).
  decltype(auto) operator[](size_t i) const {
    return (*c_)[first_ + i];
  }

  Container& container() const noexcept {
    return *c_;
  }

  /// Elements [first() + from, first() + to) as a slice.
  slice sub(size_t from, size_t to) const noexcept {
    return slice{*c_, first_ + from, first_ + to};
  }

private:
  Container* c_ = nullptr;
  size_t first_ = 0;
  size_t last_ = 0;
};

template <class T>
struct is_slice : std::false_type {};

template <class Container>
struct is_slice<slice<Container>> : std::true_type {};

} // namespace troupe::patterns
