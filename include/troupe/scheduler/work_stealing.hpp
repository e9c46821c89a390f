#pragma once

// The work-stealing scheduler, policy "work-stealing" (the default).
//
// Each worker owns a Chase-Lev deque: jobs scheduled from a worker (schedule()
// on a worker thread, execution_unit::exec_later) go to the bottom of its own
// deque and run LIFO, while idle workers steal from the top. Jobs scheduled
// from other threads go to a shared injection queue (FIFO), which every
// worker also checks every 61 jobs (every 976 while more than 64 jobs wait
// in its own queues: outside work starts more work). A job that returns
// `resume_later` goes to the back of its worker's own `later` queue, which
// runs after the worker's deque and before outside work: a busy actor waits
// behind its neighbours instead of running again at once.
//
// In the adaptive idle mode (the default), idle workers look for work for
// `spin_attempts` rounds, then park with no timeout. One atomic word counts
// searching and parked workers: an enqueue that finds no searching worker but
// a parked one wakes exactly one, and a worker that stops searching because
// it found work wakes another if more work is visible, so bursts fan out
// without a thundering herd and an idle scheduler costs no CPU. With an idle
// budget, the worker the next enqueue wakes may spin where it expects work
// (troupe/detail/anticipation.hpp). See src/scheduler/idle/adaptive.hpp for
// the protocol and why no wake-up is lost; the event and polling modes are
// beside it in src/scheduler/idle/.
//
// The policy "locality" (Barghi and Karsten, "Work-Stealing, Locality-Aware
// Actor Scheduling") is this scheduler over the memory hierarchy
// (troupe.scheduler.topology: hwloc's tree of this machine, or a synthetic
// one): each worker sits on a core (pinned on a real topology whose cores
// do not all share one cache, or with troupe.scheduler.pin-workers), and a thief
// looks for work level by level, nearest first (its core, shared caches,
// NUMA node, then the other nodes by distance), skipping levels whose deques
// look empty and backing off when most of its node polls a single deque.
// New actors start on the spawner's worker; an actor a message unblocks goes
// to the sender's worker (troupe.scheduler.placement = local, LAS/L) or to
// the worker that ran it last unless that one is parked (affinity, LAS/A),
// through that worker's affinity queue, an array queue whose pushers never
// wait for a lock; thieves take from it only once the worker has been stuck
// in one job for a while. Hub actors (spawn<hub>) start on NUMA nodes far
// from each other. The policy runs the adaptive idle mode only; stats()
// counts steals by level.

#include "troupe/scheduler/scheduler.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace troupe {

class work_stealing final : public scheduler {
public:
  explicit work_stealing(const scheduler_config& cfg);

  /// Stops the scheduler if it still runs.
  ~work_stealing() override;

  work_stealing(const work_stealing&) = delete;
  work_stealing& operator=(const work_stealing&) = delete;

  void start() override;

  /// Must not be called from one of this scheduler's workers.
  void stop() override;

  void schedule(resumable* job) override;

  size_t num_workers() const noexcept override;

  /// "work-stealing", or "locality" for the locality policy.
  const char* name() const noexcept override;

  std::vector<worker_stats> stats() const override;

private:
  struct state;
  std::unique_ptr<state> state_;
};

} // namespace troupe
