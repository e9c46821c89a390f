#include "troupe/detail/timer_heap.hpp"

#include <algorithm>

namespace troupe::detail {

timer_id timer_heap::push(time_point deadline, action_ptr& fn) {
  // The only steps that may throw come first and leave a consistent state.
  if (free_head_ == no_slot) {
    slots_.emplace_back();
    slots_.back().pos_or_next = no_slot;
    free_head_ = static_cast<uint32_t>(slots_.size() - 1);
  }
  if (heap_.size() == heap_.capacity())
    heap_.reserve(std::max<size_t>(64, 2 * heap_.capacity()));
  auto idx = free_head_;
  auto& s = slots_[idx];
  free_head_ = s.pos_or_next;
  s.deadline = deadline;
  s.seq = next_seq_++;
  s.fn = std::move(fn);
  heap_.push_back(idx);
  s.pos_or_next = static_cast<uint32_t>(heap_.size() - 1);
  sift_up(heap_.size() - 1);
  return (timer_id{s.generation} << 32) | idx;
}

timer_heap::action_ptr timer_heap::cancel(timer_id id) noexcept {
  auto idx = static_cast<uint32_t>(id);
  auto generation = static_cast<uint32_t>(id >> 32);
  if (idx >= slots_.size())
    return nullptr;
  auto& s = slots_[idx];
  if (s.fn == nullptr || s.generation != generation)
    return nullptr;
  return remove(idx);
}

timer_heap::time_point timer_heap::last_deadline() const noexcept {
  // The latest deadline sits in a leaf: the second half of the heap.
  auto result = slots_[heap_.front()].deadline;
  for (size_t pos = heap_.size() / 2; pos < heap_.size(); ++pos)
    result = std::max(result, slots_[heap_[pos]].deadline);
  return result;
}

timer_heap::action_ptr timer_heap::pop() noexcept {
  return remove(heap_.front());
}

std::vector<timer_heap::action_ptr> timer_heap::take_all() {
  std::vector<action_ptr> result;
  result.reserve(heap_.size());
  for (auto idx : heap_) {
    result.push_back(std::move(slots_[idx].fn));
    free_slot(idx);
  }
  heap_.clear();
  return result;
}

bool timer_heap::earlier(uint32_t a, uint32_t b) const noexcept {
  const auto& x = slots_[a];
  const auto& y = slots_[b];
  return x.deadline < y.deadline || (x.deadline == y.deadline && x.seq < y.seq);
}

void timer_heap::place(size_t pos, uint32_t idx) noexcept {
  heap_[pos] = idx;
  slots_[idx].pos_or_next = static_cast<uint32_t>(pos);
}

void timer_heap::sift_up(size_t pos) noexcept {
  auto idx = heap_[pos];
  while (pos > 0) {
    auto parent = (pos - 1) / 2;
    if (!earlier(idx, heap_[parent]))
      break;
    place(pos, heap_[parent]);
    pos = parent;
  }
  place(pos, idx);
}

void timer_heap::sift_down(size_t pos) noexcept {
  auto idx = heap_[pos];
  auto n = heap_.size();
  for (;;) {
    auto child = 2 * pos + 1;
    if (child >= n)
      break;
    if (child + 1 < n && earlier(heap_[child + 1], heap_[child]))
      ++child;
    if (!earlier(heap_[child], idx))
      break;
    place(pos, heap_[child]);
    pos = child;
  }
  place(pos, idx);
}

timer_heap::action_ptr timer_heap::remove(uint32_t idx) noexcept {
  auto pos = static_cast<size_t>(slots_[idx].pos_or_next);
  auto last = heap_.back();
  heap_.pop_back();
  if (pos < heap_.size()) {
    // Fill the hole with the last element; it moves up or down, not both.
    place(pos, last);
    sift_up(pos);
    sift_down(slots_[last].pos_or_next);
  }
  auto fn = std::move(slots_[idx].fn);
  free_slot(idx);
  return fn;
}

void timer_heap::free_slot(uint32_t idx) noexcept {
  auto& s = slots_[idx];
  s.generation = s.generation == UINT32_MAX ? 1 : s.generation + 1;
  s.pos_or_next = free_head_;
  free_head_ = idx;
}

} // namespace troupe::detail
