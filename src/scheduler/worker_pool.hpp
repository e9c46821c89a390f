#pragma once

// The life cycle every scheduler policy shares: start N named (and, if
// configured, pinned) worker threads, stop and join them, collect their
// counters. A policy derives from worker_pool and supplies the thread body
// and how its workers are told to finish.
//
// Threads: start() and stop() from controlling threads (never a worker),
// serialised by a mutex; run_worker() on the worker threads.

#include "troupe/scheduler/scheduler.hpp"

#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace troupe::detail {

class worker_pool {
public:
  /// `policy` names the scheduler in errors ("work-stealing"), `thread_name`
  /// prefixes the names of its threads ("troupe-steal").
  worker_pool(const char* policy, const char* thread_name, size_t size, bool pin);

  virtual ~worker_pool();

  worker_pool(const worker_pool&) = delete;
  worker_pool& operator=(const worker_pool&) = delete;

  /// Starts the threads once. If one fails to start, stops and joins those
  /// already started, leaves the pool stopped and throws: std::system_error
  /// naming the worker, or what std::thread threw otherwise.
  void start();

  /// Lets the workers finish, joins them and drops what is left. Idempotent.
  void stop();

  size_t size() const noexcept {
    return threads_.size();
  }

protected:
  /// The body of worker thread `index`.
  virtual void run_worker(size_t index) = 0;

  /// Workers `started` and up will never run: the started ones must not
  /// wait for them before they leave.
  virtual void never_started(size_t started);

  /// Asks the running workers to run what is queued and then return.
  virtual void request_stop() = 0;

  /// After every worker returned (or none started): releases the jobs left.
  virtual void drop_leftovers() = 0;

  /// The CPU (OS index) worker `index` must be pinned to whatever
  /// pin-workers says, or -1 for none.
  virtual int cpu_of(size_t) const noexcept {
    return -1;
  }

private:
  void stop_locked();

  const char* policy_;
  const char* thread_name_;
  const bool pin_;

  /// Written by start(), joined by stop(): under lifecycle_mtx_.
  std::vector<std::thread> threads_;

  std::mutex lifecycle_mtx_;
  enum class phase { idle, running, stopped } lifecycle_ = phase::idle;
};

/// A snapshot of the counters of every worker in `workers` (pointers to
/// objects with a `counters` member).
template <class Workers>
std::vector<worker_stats> collect_stats(const Workers& workers) {
  std::vector<worker_stats> result;
  result.reserve(workers.size());
  for (auto& w : workers)
    result.push_back(w->counters.snapshot());
  return result;
}

} // namespace troupe::detail
