#pragma once

// What every stress test shares: the two scheduler policies it runs under,
// sizes scaled down under a sanitizer, and waits with an upper bound, so a
// runtime bug fails the test instead of hanging the suite.

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

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
inline constexpr bool sanitized = true;
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
inline constexpr bool sanitized = true;
#  else
inline constexpr bool sanitized = false;
#  endif
#else
inline constexpr bool sanitized = false;
#endif

/// `full` in an optimised build, `small` under a sanitizer (which runs 5-20x
/// slower and must stay within a minute per file).
template <class T>
constexpr T scaled(T full, T small) noexcept {
  return sanitized ? small : full;
}

/// Long enough that only a broken runtime runs into it.
inline constexpr auto patience = std::chrono::seconds{sanitized ? 90 : 30};

/// A config for `policy` with two workers; warnings (an actor terminating on
/// an exception, say) are what several tests provoke on purpose.
inline void configure(troupe::actor_system_config& cfg, const std::string& policy) {
  cfg.scheduler.policy = policy;
  cfg.scheduler.max_threads = 2;
  cfg.logger_verbosity = troupe::log_level::error;
}

/// The test-name suffix for a policy: "work-stealing" -> "work_stealing".
inline std::string policy_name(const testing::TestParamInfo<std::string>& info) {
  auto result = info.param;
  for (auto& c : result)
    if (c == '-')
      c = '_';
  return result;
}

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
