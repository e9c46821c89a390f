#include "troupe/test/virtual_clock.hpp"

#include <algorithm>
#include <vector>

namespace troupe::test {

virtual_clock::~virtual_clock() {
  stop();
}

actor_clock::time_point virtual_clock::now() const noexcept {
  return time_point{duration_type{now_.load(std::memory_order_acquire)}};
}

bool virtual_clock::cancel(detail::timer_id id) {
  action_ptr fn;
  {
    std::lock_guard guard{mtx_};
    fn = heap_.cancel(id);
  }
  return fn != nullptr; // destroyed outside the lock: it may cancel more
}

size_t virtual_clock::pending() const {
  std::lock_guard guard{mtx_};
  return heap_.size();
}

void virtual_clock::start() {
  // nothing runs on its own
}

size_t virtual_clock::stop() {
  std::vector<action_ptr> dropped;
  {
    std::lock_guard guard{mtx_};
    stopped_ = true;
    dropped = heap_.take_all();
  }
  return dropped.size();
}

detail::timer_id virtual_clock::schedule_action(time_point deadline, action_ptr fn) {
  std::lock_guard guard{mtx_};
  if (stopped_)
    return detail::invalid_timer_id;
  return heap_.push(deadline, fn);
}

actor_clock::action_ptr virtual_clock::take_due(time_point t) {
  std::lock_guard guard{mtx_};
  if (heap_.empty() || heap_.first_deadline() > t)
    return nullptr;
  auto deadline = heap_.first_deadline();
  if (deadline > now())
    now_.store(deadline.time_since_epoch().count(), std::memory_order_release);
  return heap_.pop();
}

size_t virtual_clock::set_time(time_point t) {
  size_t ran = 0;
  // One at a time: an action may schedule another that is due by `t` too.
  while (auto fn = take_due(t)) {
    fn->run();
    ++ran;
  }
  if (t > now())
    now_.store(t.time_since_epoch().count(), std::memory_order_release);
  return ran;
}

size_t virtual_clock::advance_time(duration_type amount) {
  return set_time(now() + amount);
}

bool virtual_clock::trigger_timeout() {
  auto fn = take_due(time_point::max());
  if (fn == nullptr)
    return false;
  fn->run();
  return true;
}

size_t virtual_clock::trigger_all_timeouts() {
  size_t ran = 0;
  while (trigger_timeout())
    ++ran;
  return ran;
}

std::optional<actor_clock::time_point> virtual_clock::next_timeout() const {
  std::lock_guard guard{mtx_};
  if (heap_.empty())
    return std::nullopt;
  return heap_.first_deadline();
}

std::optional<actor_clock::time_point> virtual_clock::last_timeout() const {
  std::lock_guard guard{mtx_};
  if (heap_.empty())
    return std::nullopt;
  return heap_.last_deadline();
}

} // namespace troupe::test
