#pragma once

// virtual_clock: an actor_clock whose time moves only when a test says so.
// Delayed sends, request timeouts and idle handlers become due when the
// test advances the time; their actions then run on the test's thread, in
// deadline order (equal deadlines in schedule order), and each sees the
// clock at its own deadline. The time starts at the clock's epoch.
//
// Threads: schedule, cancel, now and pending from any thread; the members
// that move time from one thread at a time (the test's).

#include "troupe/actor_clock.hpp"
#include "troupe/detail/timer_heap.hpp"

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>

namespace troupe::test {

class virtual_clock final : public actor_clock {
public:
  virtual_clock() = default;

  virtual_clock(const virtual_clock&) = delete;
  virtual_clock& operator=(const virtual_clock&) = delete;

  ~virtual_clock() override;

  // -- actor_clock ----------------------------------------------------------------

  time_point now() const noexcept override;

  bool cancel(detail::timer_id id) override;

  size_t pending() const override;

  /// Nothing to start: actions run when the time moves.
  void start() override;

  size_t stop() override;

  // -- moving time ------------------------------------------------------------------

  /// Moves the time to `t` and runs every action due by then; returns how
  /// many ran. Time never goes back: an earlier `t` runs nothing.
  size_t set_time(time_point t);

  /// Moves the time forward by `amount`; see set_time.
  size_t advance_time(duration_type amount);

  /// Runs the earliest pending action, moving the time to its deadline if
  /// that is later; false if none is pending.
  bool trigger_timeout();

  /// Runs pending actions until none is left, including those they
  /// schedule; returns how many ran. The time ends at the last deadline.
  size_t trigger_all_timeouts();

  /// The deadline of the earliest pending action.
  std::optional<time_point> next_timeout() const;

  /// The deadline of the latest pending action.
  std::optional<time_point> last_timeout() const;

protected:
  detail::timer_id schedule_action(time_point deadline, action_ptr fn) override;

private:
  /// Takes out the earliest action if it is due by `t`, and moves the time
  /// to its deadline.
  action_ptr take_due(time_point t);

  mutable std::mutex mtx_;
  detail::timer_heap heap_;
  bool stopped_ = false;
  std::atomic<duration_type::rep> now_{0};
};

} // namespace troupe::test
