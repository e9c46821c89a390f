#include "troupe/detail/timer_service.hpp"

#include <system_error>

#ifdef __linux__
#  include <pthread.h>
#endif

namespace troupe::detail {

timer_service::timer_service() = default;

timer_service::~timer_service() {
  stop();
}

actor_clock::time_point timer_service::now() const noexcept {
  return clock::now();
}

void timer_service::start() {
  std::lock_guard guard{mtx_};
  if (started_ || stopped_)
    return;
  // The new thread blocks on mtx_ until we are done here.
  try {
    thread_ = std::thread{[this] { run(); }};
    timer_thread_ = thread_.get_id();
  } catch (const std::system_error& ex) {
    // What failed, not just EAGAIN: the actor_system constructor passes it on.
    throw std::system_error(ex.code(), "troupe: cannot start the timer thread");
  }
  started_ = true;
}

size_t timer_service::stop() {
  std::vector<action_ptr> dropped;
  bool on_timer_thread;
  {
    std::lock_guard guard{mtx_};
    stopped_ = true;
    dropped = heap_.take_all();
    on_timer_thread = started_ && timer_thread_ == std::this_thread::get_id();
  }
  cv_.notify_all();
  // An action that stops the clock neither waits for its own thread nor
  // for a stop() on another thread, which waits for this action to return.
  if (!on_timer_thread) {
    std::lock_guard stopping{stop_mtx_};
    if (thread_.joinable())
      thread_.join();
  }
  // `dropped` destroys the pending actions here, outside the lock.
  return dropped.size();
}

timer_id timer_service::schedule_action(time_point deadline, action_ptr fn) {
  std::lock_guard guard{mtx_};
  if (stopped_)
    return invalid_timer_id; // `fn` dies after the guard
  auto id = heap_.push(deadline, fn);
  // A later deadline than the earliest needs no wake-up: the thread wakes
  // for the earliest anyway and then looks again. Notified under the lock:
  // a caller on another thread may be the last to touch the service before
  // its owner stops and destroys it (the timer may fire at once).
  if (heap_.is_first(id))
    cv_.notify_one();
  return id;
}

bool timer_service::cancel(timer_id id) {
  action_ptr fn;
  {
    std::lock_guard guard{mtx_};
    fn = heap_.cancel(id);
  }
  // No notify: if this was the earliest timer, the thread wakes at its
  // deadline, finds a later one and sleeps again. `fn` is destroyed after
  // the lock was released.
  return fn != nullptr;
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
    if (auto deadline = heap_.first_deadline(); now < deadline) {
      cv_.wait_until(lk, deadline);
      continue;
    }
    do {
      due_.push_back(heap_.pop());
    } while (!heap_.empty() && heap_.first_deadline() <= now);
    lk.unlock();
    for (auto& fn : due_)
      fn->run();
    due_.clear();
    lk.lock();
  }
}

} // namespace troupe::detail
