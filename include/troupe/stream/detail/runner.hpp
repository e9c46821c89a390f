#pragma once

// A runner is one replica of a stream node as the scheduler sees it: a
// resumable like an actor, but with typed rings for input and output
// instead of a mailbox, and its references counted as a job's are
// (counted_resumable). The graph state owns the runners and the rings.
//
// A runner is running (queued or on a thread), notified (running, and woken
// since it last looked for work) or parked. wake() sets notified: the one
// that finds it parked schedules the runner, so it is never queued twice; a
// runner out of work parks only if nobody notified it meanwhile (one CAS),
// else it looks again. Every change is an RMW on one word, so each reads
// the one before: what a waker published before waking is visible to the
// runner's next look, and no wake-up is lost.
//
// Threads: run_some is called by the thread that runs the job; wake by any
// thread.

#include "troupe/actor.hpp"
#include "troupe/error.hpp"
#include "troupe/detail/counted_resumable.hpp"
#include "troupe/stream/detail/spsc_ring.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace troupe {
class actor_system;
} // namespace troupe

namespace troupe::stream::detail {

class graph_state;

class runner : public troupe::detail::counted_resumable, public waker {
public:
  runner(std::shared_ptr<graph_state> graph, std::string name);

  ~runner() override;

  resume_result resume(execution_unit* ctx, size_t max_throughput) final;

  /// Schedules the runner if it is parked; makes it look for work again
  /// before it parks if it runs. Any thread.
  void wake() final;

  /// Starts the runner: schedules it, or starts its thread.
  void start();

  /// How often it ran: the graph's sign of life for the actor system's
  /// shutdown, as messages taken are an actor's. Any thread.
  uint64_t resumes() const noexcept {
    return resumes_.load(std::memory_order_relaxed);
  }

  /// Queued or running, not parked or finished: for the actor system's
  /// shutdown, which waits while a graph works. Any thread; a snapshot.
  bool working() const noexcept {
    return !finished_.load(std::memory_order_acquire)
           && state_.load(std::memory_order_acquire) != parked;
  }

  /// The node and replica, for error messages: "counter[1]".
  const std::string& name() const noexcept {
    return name_;
  }

protected:
  enum class step {
    /// The budget ran out with work left.
    more,
    /// Nothing to do until an input has tuples or an output has room.
    idle,
    /// The node has stopped and closed its outputs.
    finished,
  };

  /// Works through at most `budget` tuples.
  virtual step run_some(size_t budget) = 0;

  graph_state& graph() noexcept {
    return *graph_;
  }

  /// Records `e` (thrown by user code) as the graph's failure.
  void fail_with(std::exception_ptr e);

private:
  /// The body of the runner's own thread (execution = threads).
  void run_thread();

  std::shared_ptr<graph_state> graph_;
  std::string name_;
  enum : uint8_t { running, notified, parked };
  std::atomic<uint8_t> state_{running};
  std::atomic<uint32_t> signal_{0}; // execution = threads: set by wake
  std::atomic<bool> finished_{false}; // set by the running thread as run_some finishes
  std::atomic<uint64_t> resumes_{0}; // written by the running thread only
};

/// Destroys a ring of any tuple type.
struct ring_holder {
  virtual ~ring_holder() = default;
};

template <class T>
struct typed_ring_holder final : ring_holder {
  explicit typed_ring_holder(size_t capacity) : ring(capacity) {}
  spsc_ring<T> ring;
};

/// What one running graph's runners share.
class graph_state {
public:
  graph_state(actor_system& sys, bool own_threads) : sys_(sys), own_threads_(own_threads) {}

  actor_system& system() noexcept {
    return sys_;
  }

  bool own_threads() const noexcept {
    return own_threads_;
  }

  /// A new ring, owned by the graph.
  template <class T>
  spsc_ring<T>* make_ring(size_t capacity) {
    auto holder = std::make_unique<typed_ring_holder<T>>(capacity);
    auto* result = &holder->ring;
    rings_.push_back(std::move(holder));
    return result;
  }

  /// Adds a runner (before start).
  void add(runner* r);

  /// Keeps `x` alive as long as the graph (the ports of an actor member).
  void keep(std::shared_ptr<void> x) {
    kept_.push_back(std::move(x));
  }

  /// Adds a thread outside the graph that pushes into it (an input): woken
  /// when the graph fails, so it stops waiting for room.
  void add_external(waker* w);

  /// Adds an actor taking part in the graph (before start): an external
  /// that start() wakes, and, if `finishes`, one the graph waits for as for
  /// a runner (it calls runner_finished once).
  void add_member(waker* w, bool finishes);

  /// Undoes add_external; the waker is not called after this returns. The
  /// runners stay alive while an external is added (it may wake them).
  void remove_external(waker* w);

  /// Starts every runner; `coordinator` hears when the last one finished.
  void start(strong_actor_ptr coordinator);

  /// True once a node failed or the graph was stopped.
  bool failed() const noexcept {
    return failed_.load(std::memory_order_acquire);
  }

  /// Stops the graph with `reason` (the first reason wins): every runner
  /// drops what it holds, closes its outputs and finishes. Any thread.
  void fail(error reason);

  /// The reason the graph failed with; none if it did not.
  error reason() const;

  /// True while a runner of the graph works (see runner::working). Any
  /// thread.
  bool working() const;

  /// The sum of its runners' resumes (see runner::resumes). Any thread.
  uint64_t resumes() const;

  /// Called by each runner once, when it finished; the last tells the
  /// coordinator (or releases its exit notice, if it exited first) and
  /// releases the runners.
  void runner_finished();

  /// Called by the coordinator when it exits before the graph finished
  /// (killed, system shutdown), after it held its exit notice: fails the
  /// graph with `reason`. True if runners still run: the last releases the
  /// notice; false if none does, and the caller releases it.
  bool coordinator_exited(error reason);

private:
  actor_system& sys_;
  bool own_threads_;
  std::vector<std::unique_ptr<ring_holder>> rings_;
  std::vector<runner*> runners_; // guarded by mtx_ once started; one reference each
  std::vector<waker*> externals_; // guarded by mtx_
  std::vector<waker*> members_;   // before start only
  size_t finishing_members_ = 0;  // before start only
  std::vector<std::shared_ptr<void>> kept_; // before start only
  std::atomic<size_t> live_{0};
  std::atomic<bool> failed_{false};
  mutable std::mutex mtx_;
  error reason_;                  // guarded by mtx_
  strong_actor_ptr coordinator_;  // guarded by mtx_
  bool finished_ = false;         // guarded by mtx_: every runner has finished
  bool coordinator_exited_ = false; // guarded by mtx_: it holds its exit notice
};

} // namespace troupe::stream::detail
