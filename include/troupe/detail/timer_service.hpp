#pragma once

// timer_service: one thread that runs actions at deadlines (delayed sends,
// request and receive timeouts).
//
// Pending timers live in a binary min-heap ordered by (deadline, schedule
// order), indexed by slot numbers. A timer_id names a slot and the slot's
// generation, so cancel() finds its timer without a hash map and a stale id
// (timer ran or was cancelled, slot reused) never cancels someone else's
// timer. One mutex guards heap and slots; the critical sections are a heap
// insertion or removal. Actions are allocated before and run or destroyed
// after the lock is held. The thread sleeps on a condition variable until the
// earliest deadline (steady clock), or without a timeout when nothing is
// pending: an idle timer thread never wakes on its own. schedule() wakes it
// only when the new timer became the earliest.
//
// Threads: schedule(), cancel(), pending() and stop() from any thread,
// including from inside an action. start() and the destructor from one
// controlling thread at a time; the destructor never from an action. stop()
// from an action does not wait for the timer thread (it exits once the
// action returns).

#include <chrono>
#include <condition_variable>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::detail {

/// Names one scheduled action; never 0.
using timer_id = uint64_t;

/// What schedule() returns when the service has stopped.
inline constexpr timer_id invalid_timer_id = 0;

class timer_service {
public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;

  timer_service();

  /// Calls stop().
  ~timer_service();

  timer_service(const timer_service&) = delete;
  timer_service& operator=(const timer_service&) = delete;

  /// Starts the timer thread. Timers scheduled before start() wait for it.
  /// Calls after the first do nothing. Throws std::system_error naming the
  /// timer thread if the system refuses to start it; a later start() tries
  /// again.
  void start();

  /// Stops the timer thread and returns once it has exited. Actions the
  /// thread had already taken because they were due still run before stop()
  /// returns; every other pending action is destroyed without running
  /// (actions that must not be lost are their scheduler's business). Later
  /// schedule() calls return invalid_timer_id. Idempotent. Returns how many
  /// pending actions it destroyed.
  size_t stop();

  /// Runs `f()` on the timer thread at `deadline` or soon after, never
  /// before. Timers with equal deadlines run in the order they were
  /// scheduled. `f` may be move-only; it must not throw (a throwing action
  /// terminates the program) and should be short, since it delays every later
  /// timer. Returns invalid_timer_id and destroys `f` at once if the service
  /// has stopped.
  template <class F>
    requires std::invocable<std::decay_t<F>&>
  timer_id schedule(time_point deadline, F&& f) {
    using impl = action_impl<std::decay_t<F>>;
    return schedule_impl(deadline, std::make_unique<impl>(std::forward<F>(f)));
  }

  /// Cancels a pending timer: its action is destroyed without running.
  /// Returns false if the timer already ran, is running, was cancelled, or
  /// `id` is invalid_timer_id.
  bool cancel(timer_id id);

  /// Number of pending timers (a snapshot).
  size_t pending() const;

private:
  struct action {
    virtual ~action() = default;
    virtual void run() noexcept = 0;
  };

  template <class F>
  struct action_impl final : action {
    template <class G>
    explicit action_impl(G&& g) : f(std::forward<G>(g)) {}
    void run() noexcept override {
      f();
    }
    F f;
  };

  using action_ptr = std::unique_ptr<action>;

  struct slot {
    time_point deadline;
    /// Breaks ties between equal deadlines: schedule order.
    uint64_t seq = 0;
    /// The action while pending; nullptr while the slot is free.
    std::unique_ptr<action> fn;
    /// Bumped each time the slot is freed; the upper half of a timer_id.
    uint32_t generation = 1;
    /// While pending: position in heap_. While free: next free slot.
    uint32_t pos_or_next = 0;
  };

  static constexpr uint32_t no_slot = UINT32_MAX;

  timer_id schedule_impl(time_point deadline, action_ptr fn);

  void run();

  // All of the following require mtx_ to be held.
  bool earlier(uint32_t a, uint32_t b) const noexcept;
  void place(size_t pos, uint32_t idx) noexcept;
  void sift_up(size_t pos) noexcept;
  void sift_down(size_t pos) noexcept;
  /// Takes the timer in slot `idx` out of the heap and frees the slot.
  action_ptr remove(uint32_t idx) noexcept;

  mutable std::mutex mtx_;
  std::condition_variable cv_;
  std::vector<slot> slots_;
  /// Slot indices, a min-heap by (deadline, seq).
  std::vector<uint32_t> heap_;
  uint32_t free_head_ = no_slot;
  uint64_t next_seq_ = 0;
  bool started_ = false;
  bool stopped_ = false;

  /// Due actions taken out under the lock and run after it; timer thread
  /// only.
  std::vector<action_ptr> due_;

  std::thread thread_;
  // Serializes stop() calls, so that one thread joins thread_.
  std::mutex stop_mtx_;
};

} // namespace troupe::detail
