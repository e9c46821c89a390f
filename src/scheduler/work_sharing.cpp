// One FIFO queue under a mutex, N workers waiting on a condition variable.
//
// A worker takes the lock once per job: in one critical section it re-queues
// the job it just ran (if that returned `resume_later`), updates the count of
// workers running a job, and takes the next job. `running` is what lets
// stop() tell "the queue is empty for now" (a running job may still schedule
// more) from "everything is done": workers leave only when the queue is empty
// and none of them runs a job.

#include "troupe/scheduler/work_sharing.hpp"

#include "worker_pool.hpp"

#include "troupe/detail/worker_counters.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace troupe {

struct work_sharing::state final : detail::worker_pool {
  class worker;

  explicit state(const scheduler_config& cfg);

  /// From any thread, workers included.
  void push(resumable* job);

  void run_worker(size_t index) override;
  void request_stop() override;
  void drop_leftovers() override;

  const size_t max_throughput;

  std::vector<std::unique_ptr<worker>> workers;

  std::mutex mtx;
  std::condition_variable cv;

  // Guarded by mtx.
  std::deque<resumable*> queue;
  size_t waiting = 0; // Workers blocked on cv.
  size_t running = 0; // Workers running a job.
  bool stopping = false;
  bool closed = false; // After stop(): schedule() drops jobs.
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

private:
  state& parent_;
};

work_sharing::state::state(const scheduler_config& cfg)
  : worker_pool("work-sharing", "troupe-share", cfg.num_workers(), cfg.pin_workers),
    max_throughput(std::max<size_t>(cfg.max_throughput, 1)) {
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
  state_->start();
}

void work_sharing::stop() {
  state_->stop();
}

void work_sharing::state::run_worker(size_t index) {
  workers[index]->run();
}

void work_sharing::state::request_stop() {
  {
    std::lock_guard queue_guard{mtx};
    stopping = true;
  }
  cv.notify_all();
}

void work_sharing::state::drop_leftovers() {
  std::deque<resumable*> rest;
  {
    std::lock_guard queue_guard{mtx};
    closed = true;
    rest.swap(queue);
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
  return detail::collect_stats(state_->workers);
}

} // namespace troupe
