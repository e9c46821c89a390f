#pragma once

// due_deliveries: the messages of timers that came due (delayed sends,
// request timeouts, idle timeouts), on their way from the clock to an actor
// that runs on the scheduler's workers.
//
// Why not enqueue them on the timer thread: an actor that gets a message
// from a thread outside the workers goes to the scheduler's injection
// queue, already scheduled. When more timers come due than the workers get
// through (a million sessions ticking once a second), that queue holds
// nearly every actor, and a message one actor sends another waits behind
// the whole queue for its receiver's turn. Here a due message waits instead,
// outside the actor: the actor stays idle, a message sent to it runs it at
// once on the sender's worker, and the due message reaches it when a worker
// takes the job that carries it, from the worker, which then runs the actor
// next. Under light load this costs a lock and a job per timer, next to the
// wake-up the timer needs anyway.
//
// Each message is one entry, which is also one job handed to the scheduler
// with it. Whichever job a worker runs, it delivers the oldest entry, under
// the mutex: messages reach their actors in the order the clock released
// them (for one actor: deadline order), whichever worker runs which job.
//
// Threads: push() from any thread (the timer thread); the jobs on the
// scheduler's workers; the destructor once the scheduler has stopped.

#include "troupe/abstract_actor.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/resumable.hpp"

#include <mutex>

namespace troupe {

class scheduler;

} // namespace troupe

namespace troupe::detail {

class due_deliveries {
public:
  explicit due_deliveries(scheduler& sched) noexcept : sched_(sched) {}

  /// Counts the messages no job delivered (the scheduler dropped their
  /// jobs) as dead letters.
  ~due_deliveries();

  due_deliveries(const due_deliveries&) = delete;
  due_deliveries& operator=(const due_deliveries&) = delete;

  /// Queues `elem` for `dest` and hands the scheduler a job that delivers
  /// the oldest queued message.
  void push(strong_actor_ptr dest, mailbox_element_ptr elem);

private:
  class entry;

  /// Delivers the oldest entry from the worker `ctx`; one per job run.
  void deliver_oldest(execution_unit* ctx);

  scheduler& sched_;
  std::mutex mtx_;
  /// Oldest first, linked through entry::next; under mtx_.
  entry* head_ = nullptr;
  entry* tail_ = nullptr;
};

} // namespace troupe::detail
