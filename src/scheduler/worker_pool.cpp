#include "worker_pool.hpp"

#include "troupe/detail/thread_affinity.hpp"
#include "troupe/detail/thread_name.hpp"

#include <string>
#include <system_error>

namespace troupe::detail {

worker_pool::worker_pool(const char* policy, const char* thread_name, size_t size, bool pin)
  : policy_(policy), thread_name_(thread_name), pin_(pin), threads_(size) {
}

worker_pool::~worker_pool() = default;

void worker_pool::never_started(size_t) {
  // Policies whose workers don't count each other need nothing here.
}

void worker_pool::start() {
  std::lock_guard guard{lifecycle_mtx_};
  if (lifecycle_ != phase::idle)
    return;
  lifecycle_ = phase::running;
  auto abandon = [this](size_t started) {
    never_started(started);
    stop_locked();
  };
  for (size_t i = 0; i < threads_.size(); ++i) {
    try {
      threads_[i] = std::thread{[this, i] { run_worker(i); }};
    } catch (const std::system_error& ex) {
      abandon(i);
      // What failed, not just EAGAIN: the actor_system constructor passes it on.
      throw std::system_error(ex.code(), std::string{"troupe: "} + policy_
                                           + ": cannot start worker thread "
                                           + std::to_string(i + 1) + " of "
                                           + std::to_string(threads_.size()));
    } catch (...) {
      abandon(i);
      throw;
    }
    name_thread(threads_[i], thread_name_, i);
    if (auto cpu = cpu_of(i); cpu >= 0)
      pin_thread_to(threads_[i], cpu, i);
    else if (pin_)
      pin_thread(threads_[i], i);
  }
}

void worker_pool::stop() {
  std::lock_guard guard{lifecycle_mtx_};
  stop_locked();
}

void worker_pool::stop_locked() {
  if (lifecycle_ == phase::stopped)
    return;
  if (lifecycle_ == phase::running) {
    request_stop();
    for (auto& t : threads_)
      if (t.joinable())
        t.join();
  }
  lifecycle_ = phase::stopped;
  drop_leftovers();
}

} // namespace troupe::detail
