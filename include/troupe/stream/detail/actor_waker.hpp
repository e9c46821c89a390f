#pragma once

// The waker of a graph member that is an actor (an actor input or an actor
// stage): its rings, the graph's start and the graph's failure wake it by
// sending it one pull_atom. Wakes before the actor took that message send
// nothing more, so a busy edge does not flood the mailbox.
//
// Like a runner's state, the pending flag changes by RMWs only: taken() reads
// the last wake's exchange, so what a waker published before waking is
// visible to the actor's next look at its rings, and no wake-up is lost (a
// wake after taken() sends a new message).
//
// Threads: wake from any thread; set before the graph starts; taken by the
// actor.

#include "troupe/actor.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/stream/detail/graph_messages.hpp"
#include "troupe/stream/detail/spsc_ring.hpp"

#include <atomic>
#include <utility>

namespace troupe::stream::detail {

class actor_waker final : public waker {
public:
  /// The actor to wake; once, before anyone wakes it.
  void set(actor x) noexcept {
    actor_ = std::move(x);
  }

  void wake() override {
    if (pending_.exchange(true, std::memory_order_acq_rel))
      return;
    // An actor that terminated drops the message: nothing left to pull.
    anon_send(actor_, pull_atom{});
  }

  /// The actor took the pull message and looks at its rings now.
  void taken() noexcept {
    pending_.exchange(false, std::memory_order_acq_rel);
  }

private:
  // Kept until the graph goes: a ring may wake it after the actor finished.
  // The actor drops its reference to the graph when it terminates, which
  // breaks the cycle.
  actor actor_;
  std::atomic<bool> pending_{false};
};

} // namespace troupe::stream::detail
