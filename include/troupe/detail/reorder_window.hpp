#pragma once

// reorder_window<Slot>: results of work in flight leave in input order. Each
// item gets the next number and a slot at the back; its result may fill the
// slot at any time, but only the front slot leaves. Shared by the patterns'
// ordered farms and the actor stages of patterns and streams.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>

namespace troupe::detail {

template <class Slot>
class reorder_window {
public:
  /// Adds `x` at the back; returns its item's number.
  uint64_t open(Slot x) {
    slots_.push_back(std::move(x));
    return base_ + slots_.size() - 1;
  }

  /// The slot of item `n`; nullptr once it has left (or before it opened).
  Slot* find(uint64_t n) noexcept {
    if (n < base_ || n - base_ >= slots_.size())
      return nullptr;
    return &slots_[n - base_];
  }

  bool empty() const noexcept {
    return slots_.empty();
  }

  size_t size() const noexcept {
    return slots_.size();
  }

  Slot& front() noexcept {
    return slots_.front();
  }

  /// The front slot leaves: the next item's turn.
  Slot take_front() {
    auto x = std::move(slots_.front());
    slots_.pop_front();
    ++base_;
    return x;
  }

private:
  std::deque<Slot> slots_;
  uint64_t base_ = 0; // the number of slots_.front()
};

} // namespace troupe::detail
