#pragma once

// While a signal_shutdown lives, SIGINT and SIGTERM end its actor system
// after the grace period (actor_system::shutdown(grace)) instead of killing
// the process at once; a second SIGINT or SIGTERM kills it as usual.
// exec_main holds one around the program's main function and the wait for
// its end.
//
// The signal handler only restores the default handlers and posts a
// semaphore (both async-signal-safe); a thread of the guard's own calls
// into the system. One guard per process at a time: a second one does
// nothing.
//
// Threads: construction and destruction from one thread; caught() from any.

#include <atomic>
#include <thread>

namespace troupe {
class actor_system;
} // namespace troupe

namespace troupe::detail {

class signal_shutdown {
public:
  explicit signal_shutdown(actor_system& sys);

  /// Restores the handlers that were there before and joins the thread.
  ~signal_shutdown();

  signal_shutdown(const signal_shutdown&) = delete;
  signal_shutdown& operator=(const signal_shutdown&) = delete;

  /// The signal that ended the system, or 0.
  int caught() const noexcept;

private:
  void watch();

  actor_system& sys_;
  bool installed_ = false;
  std::thread watcher_;
};

} // namespace troupe::detail
