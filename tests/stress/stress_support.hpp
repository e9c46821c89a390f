#pragma once

// What every stress test shares beyond tests/support/policies.hpp (the
// policies, `patience`, `scaled`): a config that keeps provoked warnings
// quiet, and waits with an upper bound, so a runtime bug fails the test
// instead of hanging the suite.

#include "../support/policies.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/actor_system_config.hpp"
#include "troupe/logger.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace stress {

using namespace std::chrono_literals;

using troupe::test::patience;
using troupe::test::scaled;

/// A config for `policy` with two workers; warnings (an actor terminating on
/// an exception, say) are what several tests provoke on purpose.
struct config : troupe::test::policy_config {
  explicit config(const char* policy) : policy_config(policy) {
    logger.verbosity = troupe::log_level::error;
  }
};

/// Polls `pred` until it holds or `limit` passed; true if it holds.
template <class Pred>
bool wait_until(Pred pred, std::chrono::steady_clock::duration limit = patience) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline)
      return pred();
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

/// Aborts the process with a message if it is still armed after `limit`.
/// For the waits that have no timeout of their own (destroying an actor
/// system, await_all_actors_done): a hang there would block ctest until its
/// own timeout and say nothing about where.
class watchdog {
public:
  watchdog(std::string what, std::chrono::steady_clock::duration limit = patience)
    : what_(std::move(what)) {
    thread_ = std::thread{[this, limit] {
      std::unique_lock guard{mtx_};
      if (!cv_.wait_for(guard, limit, [this] { return disarmed_; })) {
        std::fprintf(stderr, "stress: hung while %s\n", what_.c_str());
        std::fflush(stderr);
        std::abort();
      }
    }};
  }

  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;

  ~watchdog() {
    {
      std::lock_guard guard{mtx_};
      disarmed_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

private:
  std::string what_;
  std::mutex mtx_;
  std::condition_variable cv_;
  bool disarmed_ = false;
  std::thread thread_;
};

/// Waits (bounded) until every non-hidden actor of `sys` has terminated.
inline void await_all_done(troupe::actor_system& sys, const char* what) {
  watchdog guard{std::string{"waiting for all actors to finish: "} + what};
  sys.await_all_actors_done();
}

/// Destroys `sys` (which waits for every actor), bounded.
inline void destroy(std::unique_ptr<troupe::actor_system>& sys, const char* what) {
  watchdog guard{std::string{"destroying the actor system: "} + what};
  sys.reset();
}

} // namespace stress
