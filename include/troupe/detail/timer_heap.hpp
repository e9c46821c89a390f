#pragma once

// timer_heap: the pending actions of a clock, in a binary min-heap ordered by
// (deadline, schedule order) and indexed by slot numbers. A timer_id names a
// slot and the slot's generation, so cancel() finds its action without a
// hash map, and a stale id (the action ran or was cancelled, the slot was
// reused) never cancels someone else's. Not thread-safe: each clock guards
// its heap itself.

#include "troupe/actor_clock.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace troupe::detail {

class timer_heap {
public:
  using time_point = actor_clock::time_point;
  using action_ptr = actor_clock::action_ptr;

  /// Adds `fn` to run at `deadline`. Throws std::bad_alloc before it
  /// changes anything (then `fn` is left to the caller).
  timer_id push(time_point deadline, action_ptr& fn);

  /// Takes out the action `id` names; nullptr if it is no longer pending.
  action_ptr cancel(timer_id id) noexcept;

  bool empty() const noexcept {
    return heap_.empty();
  }

  size_t size() const noexcept {
    return heap_.size();
  }

  /// True if `id` is the earliest pending action.
  bool is_first(timer_id id) const noexcept {
    return !heap_.empty() && heap_.front() == static_cast<uint32_t>(id)
           && slots_[heap_.front()].generation == static_cast<uint32_t>(id >> 32);
  }

  /// The earliest deadline. Requires !empty().
  time_point first_deadline() const noexcept {
    return slots_[heap_.front()].deadline;
  }

  /// The latest deadline. Requires !empty().
  time_point last_deadline() const noexcept;

  /// Takes out the earliest action. Requires !empty().
  action_ptr pop() noexcept;

  /// Takes out every action, for the caller to destroy (outside its lock).
  std::vector<action_ptr> take_all();

private:
  struct slot {
    time_point deadline;
    /// Breaks ties between equal deadlines: schedule order.
    uint64_t seq = 0;
    /// The action while pending; nullptr while the slot is free.
    action_ptr fn;
    /// Bumped each time the slot is freed; the upper half of a timer_id.
    uint32_t generation = 1;
    /// While pending: position in heap_. While free: next free slot.
    uint32_t pos_or_next = 0;
  };

  static constexpr uint32_t no_slot = UINT32_MAX;

  bool earlier(uint32_t a, uint32_t b) const noexcept;
  void place(size_t pos, uint32_t idx) noexcept;
  void sift_up(size_t pos) noexcept;
  void sift_down(size_t pos) noexcept;
  /// Takes the action in slot `idx` out of the heap and frees the slot.
  action_ptr remove(uint32_t idx) noexcept;
  void free_slot(uint32_t idx) noexcept;

  std::vector<slot> slots_;
  /// Slot indices, a min-heap by (deadline, seq).
  std::vector<uint32_t> heap_;
  uint32_t free_head_ = no_slot;
  uint64_t next_seq_ = 0;
};

} // namespace troupe::detail
