#pragma once

// While a signal_shutdown lives, SIGINT and SIGTERM end the actor system
// attached to it after its grace period (actor_system::shutdown(grace))
// instead of killing the process at once; a second SIGINT or SIGTERM kills
// it as usual. exec_main holds one around the program's main function and
// the wait for its end.
//
// No signal handler: the constructor blocks both signals on the calling
// thread, so every thread started later (the actor system's) inherits the
// mask, and a thread of the guard's own takes them with sigwait. After the
// first, that thread unblocks them for itself with their default action,
// so the next one kills the process. A signal the process was started
// ignoring (nohup, a background job) stays ignored. One guard per process
// at a time: a second one does nothing.
//
//   detail::signal_shutdown signals;    // before the system
//   actor_system sys{cfg};
//   auto attached = signals.attach(sys);
//
// Threads: construction, attach, the attachment's and the guard's
// destruction from one thread; caught() from any.

#include <condition_variable>
#include <mutex>
#include <thread>

#include <signal.h>

namespace troupe {
class actor_system;
} // namespace troupe

namespace troupe::detail {

class signal_shutdown {
public:
  /// Detaches the system on destruction: create it after the system, so
  /// that it goes first.
  class attachment {
  public:
    explicit attachment(signal_shutdown* owner) noexcept : owner_(owner) {}
    attachment(attachment&& other) noexcept : owner_(other.owner_) {
      other.owner_ = nullptr;
    }
    attachment(const attachment&) = delete;
    attachment& operator=(const attachment&) = delete;
    attachment& operator=(attachment&&) = delete;
    ~attachment();

  private:
    signal_shutdown* owner_;
  };

  /// Blocks SIGINT and SIGTERM on this thread and starts the watcher.
  signal_shutdown();

  /// Stops the watcher and restores this thread's signal mask.
  ~signal_shutdown();

  signal_shutdown(const signal_shutdown&) = delete;
  signal_shutdown& operator=(const signal_shutdown&) = delete;

  /// From now until the attachment dies, the first signal ends `sys`.
  [[nodiscard]] attachment attach(actor_system& sys);

  /// The first signal that arrived, or 0.
  int caught() const noexcept;

private:
  void watch();

  bool active_ = false;
  sigset_t taken_{};    // the signals it waits for
  sigset_t previous_{}; // the constructing thread's mask before
  std::thread watcher_;
  mutable std::mutex mtx_;
  std::condition_variable cv_;
  actor_system* sys_ = nullptr; // guarded by mtx_
  int caught_ = 0;              // guarded by mtx_
  bool stopping_ = false;       // guarded by mtx_
  bool waiting_ = true;         // guarded by mtx_: the watcher is in sigwait
};

} // namespace troupe::detail
