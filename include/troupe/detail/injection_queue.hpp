#pragma once

// A FIFO queue for jobs that reach a scheduler from outside its own deques:
// schedule() from a thread that is not a worker, and jobs re-queued after
// `resume_later`. A mutex guards the items; an atomic copy of the size lets
// idle workers look at it without taking the lock.
//
// Threads: every function from any thread.
//
// Memory orders: `size_` is written under the mutex. Readers that need to see
// a push made before the pusher's full_fence() (the work_stealing idle
// protocol) load it after a full_fence() of their own; relaxed is enough
// there, the fences order it.

#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

namespace troupe::detail {

template <class T>
class injection_queue {
public:
  /// Appends `x`. Returns false, leaving `x` to the caller, once closed.
  bool push(T x) {
    std::lock_guard guard{mtx_};
    if (closed_)
      return false;
    items_.push_back(x);
    size_.store(items_.size(), std::memory_order_relaxed);
    return true;
  }

  /// Takes the oldest item. Doesn't touch the lock when the queue looks
  /// empty.
  std::optional<T> try_pop() {
    if (size_.load(std::memory_order_relaxed) == 0)
      return std::nullopt;
    std::lock_guard guard{mtx_};
    if (items_.empty())
      return std::nullopt;
    T x = items_.front();
    items_.pop_front();
    size_.store(items_.size(), std::memory_order_relaxed);
    return x;
  }

  size_t size_approx() const noexcept {
    return size_.load(std::memory_order_relaxed);
  }

  /// Whether close() was called.
  bool closed() {
    std::lock_guard guard{mtx_};
    return closed_;
  }

  /// Refuses further pushes and hands back what is left.
  std::vector<T> close() {
    std::lock_guard guard{mtx_};
    closed_ = true;
    std::vector<T> rest(items_.begin(), items_.end());
    items_.clear();
    size_.store(0, std::memory_order_relaxed);
    return rest;
  }

private:
  /// Guards items_ and closed_; taken by every pusher and popper.
  alignas(64) std::mutex mtx_;
  std::deque<T> items_;
  bool closed_ = false;

  /// items_.size(), written under mtx_; polled by idle workers, hence its own
  /// cache line.
  alignas(64) std::atomic<size_t> size_{0};
};

} // namespace troupe::detail
