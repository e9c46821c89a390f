#include "troupe/detail/signal_shutdown.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/logger.hpp"

#include <cerrno>
#include <csignal>
#include <utility>

#include <pthread.h>
#include <semaphore.h>

namespace troupe::detail {

namespace {

// Process-wide: a signal handler has no other way to its guard.
std::atomic<int> caught_signal{0};
std::atomic<bool> stopping{false};
std::atomic<bool> in_use{false};
std::atomic<bool> took_int{false};
std::atomic<bool> took_term{false};
struct sigaction previous_int;
struct sigaction previous_term;

/// Posted by the handler. Never destroyed: a handler still running on
/// another thread as a guard goes away may post it. First called by a
/// guard's constructor, before any handler is installed.
sem_t& wakeup() {
  struct semaphore {
    semaphore() {
      sem_init(&sem, 0, 0);
    }
    sem_t sem;
  };
  static semaphore x;
  return x.sem;
}

extern "C" void on_signal(int sig) {
  auto saved = errno;
  // The first signal wins; the next one, of either kind, kills us.
  int none = 0;
  caught_signal.compare_exchange_strong(none, sig);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  if (took_int.load())
    sigaction(SIGINT, &dfl, nullptr);
  if (took_term.load())
    sigaction(SIGTERM, &dfl, nullptr);
  sem_post(&wakeup());
  errno = saved;
}

const char* signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

} // namespace

signal_shutdown::signal_shutdown(actor_system& sys) : sys_(sys) {
  if (in_use.exchange(true))
    return;
  auto& sem = wakeup();
  while (sem_trywait(&sem) == 0) {
  }
  caught_signal = 0;
  stopping = false;
  // The watcher takes no signal: the handler runs on another thread, and
  // the sem_wait below is not interrupted.
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  watcher_ = std::thread{[this] { watch(); }};
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  struct sigaction act {};
  act.sa_handler = on_signal;
  sigemptyset(&act.sa_mask);
  act.sa_flags = SA_RESTART;
  // A signal the process was started ignoring (nohup, a background job)
  // stays ignored.
  auto take = [&act](int sig, struct sigaction& previous, std::atomic<bool>& took) {
    sigaction(sig, nullptr, &previous);
    took = previous.sa_handler != SIG_IGN;
    if (took)
      sigaction(sig, &act, nullptr);
  };
  take(SIGINT, previous_int, took_int);
  take(SIGTERM, previous_term, took_term);
  installed_ = true;
}

signal_shutdown::~signal_shutdown() {
  if (!installed_)
    return;
  if (took_int.exchange(false))
    sigaction(SIGINT, &previous_int, nullptr);
  if (took_term.exchange(false))
    sigaction(SIGTERM, &previous_term, nullptr);
  stopping = true;
  sem_post(&wakeup());
  watcher_.join();
  in_use = false;
}

int signal_shutdown::caught() const noexcept {
  return installed_ ? caught_signal.load() : 0;
}

void signal_shutdown::watch() {
  bool ended = false;
  for (;;) {
    while (sem_wait(&wakeup()) != 0 && errno == EINTR) {
    }
    if (stopping)
      return;
    auto sig = caught_signal.load();
    if (sig == 0 || std::exchange(ended, true))
      continue;
    auto grace = sys_.config().shutdown_grace_period;
    TROUPE_LOG_WARNING("actor_system",
                       "{}: the actor system ends within {} (troupe.shutdown.grace-period); "
                       "another {} ends the process at once",
                       signal_name(sig), grace, signal_name(sig));
    sys_.shutdown(grace);
  }
}

} // namespace troupe::detail
