#include "troupe/detail/timer_service.hpp"

#include <algorithm>
#include <system_error>

#ifdef __linux__
#  include <pthread.h>
#endif

namespace troupe::detail {

timer_service::timer_service() = default;

timer_service::~timer_service() {
  stop();
}

void timer_service::start() {
  std::lock_guard guard{mtx_};
  if (started_ || stopped_)
    return;
  // The new thread blocks on mtx_ until we are done here.
  try {
    thread_ = std::thread{[this] { run(); }};
  } catch (const std::system_error& ex) {
    // What failed, not just EAGAIN: the actor_system constructor passes it on.
    throw std::system_error(ex.code(), "troupe: cannot start the timer thread");
  }
  started_ = true;
}

size_t timer_service::stop() {
  std::lock_guard stopping{stop_mtx_};
  std::vector<slot> dropped;
  size_t pending = 0;
  {
    std::lock_guard guard{mtx_};
    stopped_ = true;
    pending = heap_.size();
    dropped = std::move(slots_);
    slots_.clear();
    heap_.clear();
    free_head_ = no_slot;
  }
  cv_.notify_all();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id())
    thread_.join();
  // `dropped` destroys the pending actions here, outside the lock.
  return pending;
}

timer_id timer_service::schedule_impl(time_point deadline, action_ptr fn) {
  timer_id id;
  bool earliest;
  {
    std::lock_guard guard{mtx_};
    if (stopped_)
      return invalid_timer_id; // `fn` dies after the guard
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
    earliest = heap_.front() == idx;
    id = (timer_id{s.generation} << 32) | idx;
  }
  // A later deadline than the earliest needs no wake-up: the thread wakes
  // for the earliest anyway and then looks again.
  if (earliest)
    cv_.notify_one();
  return id;
}

bool timer_service::cancel(timer_id id) {
  auto idx = static_cast<uint32_t>(id);
  auto generation = static_cast<uint32_t>(id >> 32);
  action_ptr fn;
  {
    std::lock_guard guard{mtx_};
    if (idx >= slots_.size())
      return false;
    auto& s = slots_[idx];
    if (s.fn == nullptr || s.generation != generation)
      return false;
    fn = remove(idx);
  }
  // No notify: if this was the earliest timer, the thread wakes at its
  // deadline, finds a later one and sleeps again.
  return true; // `fn` is destroyed after the lock was released
}

size_t timer_service::pending() const {
  std::lock_guard guard{mtx_};
  return heap_.size();
}

void timer_service::run() {
#ifdef __linux__
  pthread_setname_np(pthread_self(), "troupe.timer");
#endif
  std::unique_lock lk{mtx_};
  while (!stopped_) {
    if (heap_.empty()) {
      cv_.wait(lk);
      continue;
    }
    auto now = clock::now();
    if (now < slots_[heap_.front()].deadline) {
      // Copy: the slot may be reused while we wait.
      auto deadline = slots_[heap_.front()].deadline;
      cv_.wait_until(lk, deadline);
      continue;
    }
    do {
      due_.push_back(remove(heap_.front()));
    } while (!heap_.empty() && slots_[heap_.front()].deadline <= now);
    lk.unlock();
    for (auto& fn : due_)
      fn->run();
    due_.clear();
    lk.lock();
  }
}

// -- heap (mtx_ held) ---------------------------------------------------------

bool timer_service::earlier(uint32_t a, uint32_t b) const noexcept {
  const auto& x = slots_[a];
  const auto& y = slots_[b];
  return x.deadline < y.deadline || (x.deadline == y.deadline && x.seq < y.seq);
}

void timer_service::place(size_t pos, uint32_t idx) noexcept {
  heap_[pos] = idx;
  slots_[idx].pos_or_next = static_cast<uint32_t>(pos);
}

void timer_service::sift_up(size_t pos) noexcept {
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

void timer_service::sift_down(size_t pos) noexcept {
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

timer_service::action_ptr timer_service::remove(uint32_t idx) noexcept {
  auto& s = slots_[idx];
  auto pos = static_cast<size_t>(s.pos_or_next);
  auto last = heap_.back();
  heap_.pop_back();
  if (pos < heap_.size()) {
    // Fill the hole with the last element; it moves up or down, not both.
    place(pos, last);
    sift_up(pos);
    sift_down(slots_[last].pos_or_next);
  }
  auto fn = std::move(s.fn);
  s.generation = s.generation == UINT32_MAX ? 1 : s.generation + 1;
  s.pos_or_next = free_head_;
  free_head_ = idx;
  return fn;
}

} // namespace troupe::detail
