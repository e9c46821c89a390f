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
sem_t wakeup;
std::atomic<int> caught_signal{0};
std::atomic<bool> stopping{false};
std::atomic<bool> in_use{false};
struct sigaction previous_int;
struct sigaction previous_term;

extern "C" void on_signal(int sig) {
  // The first signal wins; SA_RESETHAND made the next one kill us.
  int none = 0;
  caught_signal.compare_exchange_strong(none, sig);
  sem_post(&wakeup);
}

const char* signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

} // namespace

signal_shutdown::signal_shutdown(actor_system& sys) : sys_(sys) {
  if (in_use.exchange(true))
    return;
  sem_init(&wakeup, 0, 0);
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
  act.sa_flags = SA_RESETHAND | SA_RESTART;
  // A signal the process was started ignoring (nohup, a background job)
  // stays ignored.
  auto take = [&act](int sig, struct sigaction& previous) {
    sigaction(sig, nullptr, &previous);
    if (previous.sa_handler != SIG_IGN)
      sigaction(sig, &act, nullptr);
  };
  take(SIGINT, previous_int);
  take(SIGTERM, previous_term);
  installed_ = true;
}

signal_shutdown::~signal_shutdown() {
  if (!installed_)
    return;
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);
  stopping = true;
  sem_post(&wakeup);
  watcher_.join();
  sem_destroy(&wakeup);
  in_use = false;
}

int signal_shutdown::caught() const noexcept {
  return installed_ ? caught_signal.load() : 0;
}

void signal_shutdown::watch() {
  bool ended = false;
  for (;;) {
    while (sem_wait(&wakeup) != 0 && errno == EINTR) {
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
