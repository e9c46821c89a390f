#pragma once

// The threads that run the middleman's io_context.
//
// One thread, the owner, reads every connection. With
// troupe.net.inline-receivers it also runs an actor that a read wakes up
// (dispatch: the last woken; the others go to the workers, to run in
// parallel), so a remote message reaches its receiver without a thread
// handoff. A handler may run long, though, or block: the connections,
// heartbeats included, would wait for it. So a second thread stands by
// while the owner runs actors: when one run lasts longer than
// troupe.net.inline-limit, the standby becomes the owner and goes on
// reading; the old owner finishes its handler and stands by in turn.
//
// Only the owner runs actors inline, and only while the other thread
// stands by: a run that overstays always has someone to take over.
//
// Who touches what:
//   units_[i]             thread i only
//   taken_over_[i]        thread i only
//   owner_, standby_      written by the thread that changes role
//   inline_seq_, started  written by the owner; the standby takes over by
//                         moving inline_seq_ past an odd value the owner
//                         would move past at the end of its run
//   mtx_ guards           woken_, stopping_

#include "troupe/resumable.hpp"
#include "troupe/scheduler/scheduler.hpp"

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace troupe::net::detail {

/// Collects the actors that the messages of one read wake up, to run them
/// once the read is handled.
class io_unit final : public execution_unit {
public:
  void exec_later(resumable* job) override {
    jobs_.push_back(job);
  }

  std::vector<resumable*> take() noexcept {
    std::vector<resumable*> result;
    result.swap(jobs_);
    return result;
  }

  bool empty() const noexcept {
    return jobs_.empty();
  }

private:
  std::vector<resumable*> jobs_;
};

class io_runner {
public:
  struct settings {
    bool inline_receivers = false;
    /// How long one inline run may hold the connections.
    std::chrono::milliseconds inline_limit{10};
    /// How often the standby looks while no actor runs inline.
    std::chrono::milliseconds quiet_tick{500};
    /// Whether there is a connection, hence inline runs to watch for.
    std::function<bool()> connected;
  };

  io_runner(boost::asio::io_context& io, scheduler& sched, size_t max_throughput,
            settings cfg);

  ~io_runner();

  void start();

  /// Returns once the io_context ran out of work and both threads ended.
  void join();

  /// The unit that collects what the current I/O thread's read wakes up
  /// (I/O threads only).
  io_unit& unit() noexcept;

  /// Runs here, or hands to the workers, what the current I/O thread's
  /// unit collected (I/O threads only).
  void dispatch();

  /// A connection came: the standby looks out again (any thread).
  void wake();

  /// How often a standby took over from an owner stuck in an actor.
  uint64_t takeovers() const noexcept {
    return takeovers_.load(std::memory_order_relaxed);
  }

private:
  void run(int me);
  /// Stands by until the owner overstays an inline run (returns true: `me`
  /// owns now) or the io_context stopped (false).
  bool stand_by(int me);

  boost::asio::io_context& io_;
  scheduler& sched_;
  size_t max_throughput_;
  settings cfg_;
  io_unit units_[2];
  std::thread threads_[2];

  std::atomic<int> owner_{0};
  // Thread i only: its inline run was taken over; it stands by next.
  bool taken_over_[2] = {false, false};
  std::atomic<bool> standby_{false};
  // Odd while the owner runs an actor; inline_started_ns_ says since when.
  std::atomic<uint64_t> inline_seq_{0};
  std::atomic<int64_t> inline_started_ns_{0};
  std::atomic<uint64_t> takeovers_{0};

  std::mutex mtx_;
  std::condition_variable cv_;
  bool woken_ = false;
  bool stopping_ = false;
};

} // namespace troupe::net::detail
