#pragma once

// A one-token parker: park() blocks its thread until unpark() has been called
// since the last park() returned. An unpark() that comes first leaves a token
// and the next park() returns at once, so a wake-up can't be lost between a
// worker's decision to park and the moment it blocks. A parked thread costs
// no CPU until someone unparks it or, with park_until(), its deadline comes.
//
// Threads: park(), park_until() and try_take() only from the one thread that
// owns the parker; unpark() from any thread.
//
// Blocking: the futex system call on Linux (FUTEX_WAIT_PRIVATE and
// FUTEX_WAKE_PRIVATE on the state word; FUTEX_WAIT_BITSET_PRIVATE with an
// absolute CLOCK_MONOTONIC deadline, the clock of std::chrono::steady_clock,
// for park_until), std::atomic::wait elsewhere. Not
// std::atomic::wait on Linux too, because libstdc++ 12 spins and yields before
// its futex wait and counts waiters in a global table shared by all waiting
// addresses; a direct futex is one system call on each side and nothing else,
// which keeps the wake-up latency and the idle CPU predictable.
//
// States (as in Rust's std futex parker): empty 0, notified 1, parked -1.
// Memory orders: unpark() exchanges in `notified` with release, park()
// (and park_until(), try_take()) consumes it with acquire, so what the
// waker did before unpark() happens before park() returns. The futex calls
// carry no ordering of their own.

#include <atomic>
#include <chrono>
#include <cstdint>

#ifdef __linux__
#  include <linux/futex.h>
#  include <sys/syscall.h>
#  include <time.h>
#  include <unistd.h>
#else
#  include <thread>
#endif

namespace troupe::detail {

class alignas(64) parker {
public:
  parker() noexcept = default;
  parker(const parker&) = delete;
  parker& operator=(const parker&) = delete;

  /// Owner thread only. Returns once a token is available, consuming it.
  void park() noexcept {
    // notified -> empty: return at once; empty -> parked: block.
    if (state_.fetch_sub(1, std::memory_order_acquire) == notified)
      return;
    for (;;) {
      wait_while_parked();
      int32_t expected = notified;
      if (state_.compare_exchange_strong(expected, empty, std::memory_order_acquire,
                                         std::memory_order_relaxed))
        return;
      // Spurious return from the futex (EINTR, or a stale wake): block again.
    }
  }

  /// Owner thread only. Like park(), but returns false at `deadline` if no
  /// token came by then.
  bool park_until(std::chrono::steady_clock::time_point deadline) noexcept {
    if (state_.fetch_sub(1, std::memory_order_acquire) == notified)
      return true;
    for (;;) {
      wait_while_parked_until(deadline);
      int32_t expected = notified;
      if (state_.compare_exchange_strong(expected, empty, std::memory_order_acquire,
                                         std::memory_order_relaxed))
        return true;
      if (std::chrono::steady_clock::now() < deadline)
        continue; // spurious return
      // parked -> empty, unless a token arrived just now: then take it.
      expected = parked;
      if (state_.compare_exchange_strong(expected, empty, std::memory_order_relaxed,
                                         std::memory_order_relaxed))
        return false;
      state_.exchange(empty, std::memory_order_acquire);
      return true;
    }
  }

  /// Owner thread only. Consumes a token if one is there, without blocking:
  /// a spinning owner polls this, and an unpark() then makes no system call.
  bool try_take() noexcept {
    // Look before the read-modify-write: a spinner reads a shared line.
    if (state_.load(std::memory_order_relaxed) != notified)
      return false;
    int32_t expected = notified;
    return state_.compare_exchange_strong(expected, empty, std::memory_order_acquire,
                                          std::memory_order_relaxed);
  }

  /// Any thread. Wakes the owner if it is parked, or lets its next park()
  /// return at once.
  void unpark() noexcept {
    if (state_.exchange(notified, std::memory_order_release) == parked)
      wake();
  }

private:
  static constexpr int32_t empty = 0;
  static constexpr int32_t notified = 1;
  static constexpr int32_t parked = -1;

#ifdef __linux__
  static_assert(sizeof(std::atomic<int32_t>) == sizeof(int32_t));

  int* word() noexcept {
    return reinterpret_cast<int*>(&state_);
  }

  void wait_while_parked() noexcept {
    // Returns at once if the state is no longer `parked`.
    syscall(SYS_futex, word(), FUTEX_WAIT_PRIVATE, parked, nullptr, nullptr, 0);
  }

  void wait_while_parked_until(std::chrono::steady_clock::time_point deadline) noexcept {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline.time_since_epoch());
    if (ns.count() < 0)
      return;
    timespec ts{static_cast<time_t>(ns.count() / 1'000'000'000),
                static_cast<long>(ns.count() % 1'000'000'000)};
    // Absolute, on CLOCK_MONOTONIC (no FUTEX_CLOCK_REALTIME flag).
    syscall(SYS_futex, word(), FUTEX_WAIT_BITSET_PRIVATE, parked, &ts, nullptr,
            FUTEX_BITSET_MATCH_ANY);
  }

  void wake() noexcept {
    syscall(SYS_futex, word(), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
  }
#else
  void wait_while_parked() noexcept {
    state_.wait(parked, std::memory_order_relaxed);
  }

  // No timed atomic wait in the standard: look again every 50 µs.
  void wait_while_parked_until(std::chrono::steady_clock::time_point deadline) noexcept {
    while (state_.load(std::memory_order_relaxed) == parked
           && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::microseconds{50});
  }

  void wake() noexcept {
    state_.notify_one();
  }
#endif

  /// Written by the owner (park) and by wakers (unpark).
  std::atomic<int32_t> state_{empty};
};

} // namespace troupe::detail
