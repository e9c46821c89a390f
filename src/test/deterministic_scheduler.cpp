#include "deterministic_scheduler.hpp"

#include "troupe/scheduled_actor.hpp"

#include <algorithm>

namespace troupe::test {

deterministic_scheduler::deterministic_scheduler() = default;

deterministic_scheduler::~deterministic_scheduler() {
  std::deque<resumable*> left;
  {
    std::lock_guard guard{mtx_};
    stopped_ = true;
    left.swap(jobs_);
  }
  for (auto* job : left)
    job->deref_resumable();
}

void deterministic_scheduler::start() {
  // nothing runs on its own
}

void deterministic_scheduler::stop() {
  while (run_once()) {
    // until the queue is empty
  }
  std::lock_guard guard{mtx_};
  stopped_ = true;
}

void deterministic_scheduler::schedule(resumable* job) {
  {
    std::lock_guard guard{mtx_};
    if (!stopped_) {
      jobs_.push_back(job);
      return;
    }
  }
  job->deref_resumable();
}

std::vector<worker_stats> deterministic_scheduler::stats() const {
  std::lock_guard guard{mtx_};
  return {stats_};
}

void deterministic_scheduler::start_actors() {
  // Resuming on no message only initialises; an actor that has started
  // already goes back to the queue unchanged (or leaves it if it has no
  // mail), so the order of the others is kept.
  for (auto* job : jobs())
    if (take(job))
      run(job, 0);
}

bool deterministic_scheduler::run_once() {
  // An actor that a drained mailbox unmuted may have nothing left to do:
  // resuming it then takes no message, and the next one in line runs.
  for (;;) {
    resumable* job = nullptr;
    {
      std::lock_guard guard{mtx_};
      if (jobs_.empty())
        return false;
      job = jobs_.front();
      jobs_.pop_front();
    }
    if (run(job, 1))
      return true;
  }
}

bool deterministic_scheduler::run_once(resumable* job) {
  return take(job) && run(job, 1);
}

bool deterministic_scheduler::queued(const resumable* job) const {
  std::lock_guard guard{mtx_};
  return std::find(jobs_.begin(), jobs_.end(), job) != jobs_.end();
}

std::vector<resumable*> deterministic_scheduler::jobs() const {
  std::lock_guard guard{mtx_};
  return {jobs_.begin(), jobs_.end()};
}

bool deterministic_scheduler::take(resumable* job) {
  std::lock_guard guard{mtx_};
  auto i = std::find(jobs_.begin(), jobs_.end(), job);
  if (i == jobs_.end())
    return false;
  jobs_.erase(i);
  return true;
}

bool deterministic_scheduler::run(resumable* job, size_t n) {
  // What the job schedules goes to the back of the queue.
  outside_unit ctx{*this};
  auto* self = dynamic_cast<scheduled_actor*>(job);
  auto taken = self != nullptr ? self->messages_taken() : 0;
  auto result = job->resume(&ctx, n);
  // An actor left without mail blocks its mailbox now (resuming finds it
  // empty), so that the queue holds only actors with something to do.
  if (result == resumable::resume_result::resume_later && self != nullptr
      && self->mailbox().empty())
    result = job->resume(&ctx, 1);
  // Before the release below, which may destroy the actor.
  bool took = self == nullptr ? n > 0 : self->messages_taken() != taken;
  {
    std::lock_guard guard{mtx_};
    if (took)
      ++stats_.jobs_run;
    if (result == resumable::resume_result::resume_later) {
      jobs_.push_back(job);
      return took;
    }
  }
  job->deref_resumable();
  return took;
}

} // namespace troupe::test
