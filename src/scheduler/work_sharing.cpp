// One FIFO queue under a mutex, N workers waiting on a condition variable.
//
// A worker takes the lock once per job: in one critical section it re-queues
// the job it just ran (if that returned `resume_later`), updates the count of
// workers running a job, and takes the next job. `running` is what lets
// stop() tell "the queue is empty for now" (a running job may still schedule
// more) from "everything is done": workers leave only when the queue is empty
// and none of them runs a job.

#include "troupe/scheduler/work_sharing.hpp"

#include "troupe/detail/thread_name.hpp"

#include "troupe/detail/thread_affinity.hpp"
#include "troupe/detail/worker_counters.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>

namespace troupe {

struct work_sharing::state {
  class worker;

  explicit state(const scheduler_config& cfg);

  /// From any thread, workers included.
  void push(resumable* job);

  const size_t max_throughput;
  const bool pin_workers;

  std::vector<std::unique_ptr<worker>> workers;

  std::mutex mtx;
  std::condition_variable cv;

  // Guarded by mtx.
  std::deque<resumable*> queue;
  size_t waiting = 0; // Workers blocked on cv.
  size_t running = 0; // Workers running a job.
  bool stopping = false;
  bool closed = false; // After stop(): schedule() drops jobs.

  /// Guards the life cycle (start, stop); caller threads only.
  std::mutex lifecycle_mtx;
  enum class phase { idle, running, stopped } lifecycle = phase::idle;

  /// stop() with lifecycle_mtx held.
  void stop_locked();
};

class work_sharing::state::worker final : public execution_unit {
public:
  explicit worker(state& parent) : parent_(parent) {
  }

  void exec_later(resumable* job) override {
    parent_.push(job);
  }

  /// The thread body.
  void run();

  /// Written by the owner only.
  detail::worker_counters counters;

  /// Written by start(), joined by stop(): controlling thread only.
  std::thread thread;

private:
  state& parent_;
};

work_sharing::state::state(const scheduler_config& cfg)
  : max_throughput(std::max<size_t>(cfg.max_throughput, 1)), pin_workers(cfg.pin_workers) {
  auto n = cfg.num_workers();
  workers.reserve(n);
  for (size_t i = 0; i < n; ++i)
    workers.push_back(std::make_unique<worker>(*this));
}

void work_sharing::state::push(resumable* job) {
  bool wake;
  {
    std::lock_guard guard{mtx};
    if (closed) {
      wake = false;
    } else {
      queue.push_back(job);
      wake = waiting > 0;
      job = nullptr;
    }
  }
  if (job != nullptr)
    job->deref_resumable(); // Stopped: drop it.
  else if (wake)
    cv.notify_one();
}

void work_sharing::state::worker::run() {
  auto& st = parent_;
  resumable* requeue = nullptr;
  bool ran_job = false;
  std::unique_lock lock{st.mtx};
  for (;;) {
    if (ran_job) {
      ran_job = false;
      --st.running;
    }
    if (requeue != nullptr) {
      st.queue.push_back(requeue);
      requeue = nullptr;
      // Someone else may run it if this worker takes an older job first.
      if (st.queue.size() > 1 && st.waiting > 0)
        st.cv.notify_one();
    }
    bool idle = st.queue.empty();
    if (idle)
      counters.begin_idle();
    while (st.queue.empty()) {
      if (st.stopping && st.running == 0) {
        st.cv.notify_all(); // Everything is done: let the others leave too.
        counters.end_idle();
        return;
      }
      ++st.waiting;
      counters.parks.bump();
      st.cv.wait(lock);
      counters.wakeups.bump();
      --st.waiting;
    }
    if (idle)
      counters.end_idle();
    auto* job = st.queue.front();
    st.queue.pop_front();
    ++st.running;
    ran_job = true;
    lock.unlock();
    counters.jobs_run.bump();
    switch (job->resume(this, st.max_throughput)) {
      case resumable::resume_result::resume_later:
        requeue = job; // Keeps the reference; goes to the back.
        break;
      case resumable::resume_result::awaiting_message:
      case resumable::resume_result::done:
        job->deref_resumable();
        break;
    }
    lock.lock();
  }
}

work_sharing::work_sharing(const scheduler_config& cfg)
  : state_(std::make_unique<state>(cfg)) {
}

work_sharing::~work_sharing() {
  stop();
}

void work_sharing::start() {
  std::lock_guard guard{state_->lifecycle_mtx};
  if (state_->lifecycle != state::phase::idle)
    return;
  state_->lifecycle = state::phase::running;
  auto& ws = state_->workers;
  for (size_t i = 0; i < ws.size(); ++i) {
    auto* w = ws[i].get();
    try {
      w->thread = std::thread{[w] { w->run(); }};
    } catch (const std::system_error& ex) {
      state_->stop_locked();
      // What failed, not just EAGAIN: the actor_system constructor passes it on.
      throw std::system_error(ex.code(), "troupe: work-sharing: cannot start worker thread "
                                           + std::to_string(i + 1) + " of "
                                           + std::to_string(ws.size()));
    } catch (...) {
      state_->stop_locked();
      throw;
    }
    detail::name_thread(w->thread, "troupe-share", i);
    if (state_->pin_workers)
      detail::pin_thread(w->thread, i);
  }
}

void work_sharing::stop() {
  std::lock_guard guard{state_->lifecycle_mtx};
  state_->stop_locked();
}

void work_sharing::state::stop_locked() {
  auto& st = *this;
  if (st.lifecycle == state::phase::stopped)
    return;
  if (st.lifecycle == state::phase::running) {
    {
      std::lock_guard queue_guard{st.mtx};
      st.stopping = true;
    }
    st.cv.notify_all();
    for (auto& w : st.workers)
      if (w->thread.joinable())
        w->thread.join();
  }
  st.lifecycle = state::phase::stopped;
  std::deque<resumable*> rest;
  {
    std::lock_guard queue_guard{st.mtx};
    st.closed = true;
    rest.swap(st.queue);
  }
  // Only jobs from other threads that raced with stop() can be left here.
  for (auto* job : rest)
    job->deref_resumable();
}

void work_sharing::schedule(resumable* job) {
  state_->push(job);
}

size_t work_sharing::num_workers() const noexcept {
  return state_->workers.size();
}

std::vector<worker_stats> work_sharing::stats() const {
  std::vector<worker_stats> result;
  result.reserve(state_->workers.size());
  for (auto& w : state_->workers)
    result.push_back(w->counters.snapshot());
  return result;
}

} // namespace troupe
