#pragma once

// timer_service: the actor system's default clock. One thread runs actions
// at their deadlines in steady-clock time (delayed sends, request timeouts,
// idle handlers).
//
// One mutex guards the timer_heap; the critical sections are a heap
// insertion or removal. Actions are allocated before and run or destroyed
// after the lock is held. The thread sleeps on a condition variable until
// the earliest deadline, or without a timeout when nothing is pending: an
// idle timer thread never wakes on its own. schedule() wakes it only when
// the new timer became the earliest.
//
// Threads: schedule(), cancel(), pending() and stop() from any thread,
// including from inside an action. start() and the destructor from one
// controlling thread at a time; the destructor never from an action. stop()
// from an action does not wait for the timer thread (it exits once the
// action returns).

#include "troupe/actor_clock.hpp"
#include "troupe/detail/timer_heap.hpp"

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace troupe::detail {

class timer_service final : public actor_clock {
public:
  using clock = clock_type;

  timer_service();

  /// Calls stop().
  ~timer_service() override;

  timer_service(const timer_service&) = delete;
  timer_service& operator=(const timer_service&) = delete;

  /// steady_clock::now().
  time_point now() const noexcept override;

  /// Starts the timer thread. Timers scheduled before start() wait for it.
  /// Calls after the first do nothing. Throws std::system_error naming the
  /// timer thread if the system refuses to start it; a later start() tries
  /// again.
  void start() override;

  /// Stops the timer thread and returns once it has exited. Actions the
  /// thread had already taken because they were due still run before stop()
  /// returns; every other pending action is destroyed without running
  /// (actions that must not be lost are their scheduler's business). Later
  /// schedule() calls return invalid_timer_id. Idempotent. Returns how many
  /// pending actions it destroyed.
  size_t stop() override;

  bool cancel(timer_id id) override;

  size_t pending() const override;

protected:
  timer_id schedule_action(time_point deadline, action_ptr fn) override;

private:
  void run();

  mutable std::mutex mtx_;
  std::condition_variable cv_;
  timer_heap heap_;
  bool started_ = false;
  bool stopped_ = false;

  /// Due actions taken out under the lock and run after it; timer thread
  /// only.
  std::vector<action_ptr> due_;

  std::thread thread_;
  // thread_'s ID, for stop(); guarded by mtx_ (thread_ itself is not, once
  // a stop() joins it).
  std::thread::id timer_thread_;
  // Serializes stop() calls from other threads, so that one joins thread_.
  std::mutex stop_mtx_;
};

} // namespace troupe::detail
