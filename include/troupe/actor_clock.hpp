#pragma once

// The clock of an actor system: what time it is, and actions to run at a
// deadline (delayed sends, request timeouts, idle handlers). The system's
// default runs them on a timer thread at steady-clock time
// (detail/timer_service.hpp); the deterministic test fixture's runs them
// when the test advances its virtual time (troupe/test/virtual_clock.hpp).
// The system's own actions hand their message to actor_system::deliver_due,
// which takes it to an event-based actor through the scheduler's workers.
//
// Threads: every member from any thread, including from inside an action;
// start() and stop() from the owner (the actor system) only.

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <utility>

namespace troupe {

namespace detail {

/// Names one scheduled action; never 0.
using timer_id = uint64_t;

/// What schedule() returns when the clock has stopped.
inline constexpr timer_id invalid_timer_id = 0;

} // namespace detail

class actor_clock {
public:
  using clock_type = std::chrono::steady_clock;
  using time_point = clock_type::time_point;
  using duration_type = clock_type::duration;

  /// What runs at a deadline; it must not throw.
  class action {
  public:
    virtual ~action() = default;
    virtual void run() noexcept = 0;
  };

  using action_ptr = std::unique_ptr<action>;

  virtual ~actor_clock() = default;

  /// The current time of this clock.
  virtual time_point now() const noexcept = 0;

  /// Runs `f()` at `deadline` or later, never before; equal deadlines run
  /// in the order they were scheduled. `f` may be move-only and must not
  /// throw. Returns detail::invalid_timer_id and destroys `f` at once if the
  /// clock has stopped.
  template <class F>
    requires std::invocable<std::decay_t<F>&>
  detail::timer_id schedule(time_point deadline, F&& f) {
    return schedule_action(deadline,
                           std::make_unique<action_impl<std::decay_t<F>>>(std::forward<F>(f)));
  }

  /// Cancels a pending action: it is destroyed without running. False if it
  /// already ran, is running, was cancelled, or `id` is invalid_timer_id.
  virtual bool cancel(detail::timer_id id) = 0;

  /// Number of pending actions (a snapshot).
  virtual size_t pending() const = 0;

  /// Starts running actions. Calls after the first do nothing.
  virtual void start() = 0;

  /// Stops: pending actions are destroyed without running, later
  /// schedule() calls return invalid_timer_id. Returns how many it
  /// destroyed. Idempotent.
  virtual size_t stop() = 0;

protected:
  /// Takes `fn` to run at `deadline`; see schedule().
  virtual detail::timer_id schedule_action(time_point deadline, action_ptr fn) = 0;

private:
  template <class F>
  class action_impl final : public action {
  public:
    template <class G>
    explicit action_impl(G&& g) : f_(std::forward<G>(g)) {}

    void run() noexcept override {
      f_();
    }

  private:
    F f_;
  };
};

} // namespace troupe
