#include "troupe/detail/signal_shutdown.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/logger.hpp"

#include <pthread.h>

#include <atomic>
#include <cerrno>

namespace troupe::detail {

namespace {

std::atomic<bool> in_use{false};

const char* signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

} // namespace

signal_shutdown::attachment::~attachment() {
  if (owner_ != nullptr) {
    // Waits for a shutdown(grace) the watcher is making.
    std::lock_guard guard{owner_->mtx_};
    owner_->sys_ = nullptr;
  }
}

signal_shutdown::signal_shutdown() {
  if (in_use.exchange(true))
    return;
  sigemptyset(&taken_);
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction current {};
    sigaction(sig, nullptr, &current);
    if (current.sa_handler != SIG_IGN)
      sigaddset(&taken_, sig);
  }
  if (sigismember(&taken_, SIGINT) != 1 && sigismember(&taken_, SIGTERM) != 1) {
    in_use = false;
    return;
  }
  pthread_sigmask(SIG_BLOCK, &taken_, &previous_);
  active_ = true;
  watcher_ = std::thread{[this] { watch(); }};
}

signal_shutdown::~signal_shutdown() {
  if (!active_)
    return;
  bool wake;
  {
    std::lock_guard guard{mtx_};
    stopping_ = true;
    wake = waiting_;
  }
  // A signal of its set ends its sigwait; it sees stopping_ and leaves,
  // and the signal dies with the thread.
  if (wake)
    pthread_kill(watcher_.native_handle(),
                 sigismember(&taken_, SIGINT) == 1 ? SIGINT : SIGTERM);
  cv_.notify_all();
  watcher_.join();
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  in_use = false;
}

signal_shutdown::attachment signal_shutdown::attach(actor_system& sys) {
  if (!active_)
    return attachment{nullptr};
  std::lock_guard guard{mtx_};
  sys_ = &sys;
  return attachment{this};
}

int signal_shutdown::caught() const noexcept {
  std::lock_guard guard{mtx_};
  return caught_;
}

void signal_shutdown::watch() {
  int sig = 0;
  while (sigwait(&taken_, &sig) != 0) {
  }
  std::unique_lock guard{mtx_};
  waiting_ = false;
  if (stopping_)
    return;
  caught_ = sig;
  if (sys_ != nullptr) {
    auto grace = sys_->config().shutdown.grace_period;
    TROUPE_LOG_WARNING("actor_system",
                       "{}: the actor system ends within {} (troupe.shutdown.grace-period); "
                       "another SIGINT or SIGTERM ends the process at once",
                       signal_name(sig), grace);
    sys_->shutdown(grace);
  }
  // The next one takes its default action on this thread: it kills.
  pthread_sigmask(SIG_UNBLOCK, &taken_, nullptr);
  cv_.wait(guard, [this] { return stopping_; });
}

} // namespace troupe::detail
