#pragma once

// reorder_window<Slot>: results of work in flight leave in input order. Each
// item gets the next number and a slot at the back; its result may fill the
// slot at any time, but only the front slot leaves. Shared by the patterns'
// ordered farms and the actor stages of patterns and streams.
//
// The slots live in a ring that only grows (to the most items ever in
// flight), so a steady stream allocates nothing per item. Slot must be
// default-constructible and movable.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace troupe::detail {

template <class Slot>
class reorder_window {
public:
  /// Adds `x` at the back; returns its item's number.
  uint64_t open(Slot x) {
    if (size_ == slots_.size())
      grow();
    slots_[index(size_)] = std::move(x);
    ++size_;
    return base_ + size_ - 1;
  }

  /// The slot of item `n`; nullptr once it has left (or before it opened).
  Slot* find(uint64_t n) noexcept {
    if (n < base_ || n - base_ >= size_)
      return nullptr;
    return &slots_[index(static_cast<size_t>(n - base_))];
  }

  bool empty() const noexcept {
    return size_ == 0;
  }

  size_t size() const noexcept {
    return size_;
  }

  Slot& front() noexcept {
    return slots_[head_];
  }

  /// The front slot leaves: the next item's turn.
  Slot take_front() {
    auto x = std::move(slots_[head_]);
    head_ = index(1);
    --size_;
    ++base_;
    return x;
  }

private:
  /// Where the `i`th slot from the front is (the capacity is a power of 2).
  size_t index(size_t i) const noexcept {
    return (head_ + i) & (slots_.size() - 1);
  }

  void grow() {
    std::vector<Slot> bigger(std::max<size_t>(16, slots_.size() * 2));
    for (size_t i = 0; i < size_; ++i)
      bigger[i] = std::move(slots_[index(i)]);
    slots_.swap(bigger);
    head_ = 0;
  }

  std::vector<Slot> slots_; // a ring of size_ items from head_
  size_t head_ = 0;
  size_t size_ = 0;
  uint64_t base_ = 0; // the number of the front item
};

} // namespace troupe::detail
