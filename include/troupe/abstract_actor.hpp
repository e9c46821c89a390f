#pragma once

// The base of every actor: identity, the enqueue entry point, and the
// lifecycle state links and monitors hang on. Termination happens once
// (`cleanup`): it records the exit reason, closes the mailbox, answers
// queued requests with `actor_down`, and tells linked and monitoring actors.

#include "troupe/actor.hpp"
#include "troupe/actor_control_block.hpp"
#include "troupe/error.hpp"
#include "troupe/mailbox_element.hpp"

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace troupe {

class actor_system;
class execution_unit;

/// What the actor system hands every actor constructor.
struct actor_config {
  actor_control_block* ctrl;
};

class abstract_actor {
public:
  explicit abstract_actor(actor_config& cfg) noexcept : ctrl_(cfg.ctrl) {}

  abstract_actor(const abstract_actor&) = delete;
  abstract_actor& operator=(const abstract_actor&) = delete;

  virtual ~abstract_actor() = default;

  actor_control_block* ctrl() const noexcept {
    return ctrl_;
  }

  actor_id id() const noexcept {
    return ctrl_->id();
  }

  actor_system& system() const noexcept {
    return ctrl_->system();
  }

  actor_addr address() const noexcept {
    return actor_addr{weak_actor_ptr{ctrl_}};
  }

  /// Delivers `elem`; if the actor has terminated, answers a request with
  /// `actor_down` and counts anything else as a dead letter. Any thread.
  virtual void enqueue(mailbox_element_ptr elem, execution_unit* ctx) = 0;

  /// True once the actor has terminated. Any thread.
  bool terminated() const noexcept {
    return terminated_.load(std::memory_order_acquire);
  }

  /// The exit reason once terminated.
  error fail_state() const;

  /// What kind of actor this is, for log lines and the shutdown report.
  /// Any thread.
  virtual const char* name() const noexcept {
    return "actor";
  }

  /// What the actor waits on, for the shutdown report. Any thread.
  virtual std::string wait_report() const {
    return {};
  }

  /// Messages the actor has taken from its mailbox so far. Any thread.
  virtual uint64_t messages_taken() const noexcept {
    return 0;
  }

  /// True while something of the actor's own can still make it run: a
  /// queued message, a handler or a blocking body that runs, a receive with
  /// a timeout. The actor system's destructor waits while any actor is
  /// active (actor_system::activity). Any thread; a recent snapshot.
  virtual bool active() const noexcept {
    return false;
  }

  /// True for an actor the scheduler's workers run (not a blocking or a
  /// detached one): its due timers reach it through the workers
  /// (actor_system::deliver_due). Any thread.
  virtual bool runs_on_workers() const noexcept {
    return false;
  }

  // -- links and monitors (any thread) ----------------------------------------

  /// Links this actor and `other`: when one terminates, the other gets an
  /// exit_msg. Linking to a terminated actor delivers its exit_msg at once.
  void link_to(abstract_actor* other);
  void unlink_from(abstract_actor* other);

  /// `observer` gets a down_msg when this actor terminates (at once if it
  /// already has).
  void add_monitor(const actor_addr& observer);
  void remove_monitor(const actor_addr& observer);

  /// True if the actor's bounded mailbox is at its capacity; false for an
  /// unbounded one. Any thread.
  virtual bool mailbox_full() const noexcept {
    return false;
  }

  /// True once the actor's bounded mailbox is below half its capacity (or
  /// unbounded, or closed). Any thread.
  virtual bool mailbox_drained() const noexcept {
    return true;
  }

  /// Keeps `sender`, an event-based actor that sent to this one while it
  /// had no room, muted until there is room again (local_actor: its bounded
  /// mailbox drains; a proxy: its connection's buffer); false if there is
  /// room already, and for actors that never run out of it. The thread
  /// running `sender`, as its handler returns.
  virtual bool add_muted(strong_actor_ptr sender);

  /// Called when the last strong reference is gone: terminates the actor
  /// with exit_reason::unreachable unless it already terminated.
  virtual void on_unreachable() noexcept;

  /// Sends the exit notice hold_exit_notice() kept back: exit_msgs to
  /// links, down_msgs to monitors, and the system's count of live actors.
  /// Any thread; later calls do nothing.
  void release_exit_notice(execution_unit* ctx);

  /// Answers `elem` with `actor_down` if it is a request, or counts it as a
  /// dead letter; `reason` says why it could not be delivered.
  static void bounce(mailbox_element_ptr elem, const error& reason,
                     actor_system& sys, execution_unit* ctx) noexcept;

protected:
  /// Terminates the actor with `reason`; false if it had already terminated.
  bool cleanup(error reason, execution_unit* ctx);

  /// Subclasses close their mailbox here and bounce what was left in it.
  virtual void on_cleanup(const error& reason, execution_unit* ctx) = 0;

  /// Called from on_cleanup by an actor whose work outlives its mailbox (a
  /// stream graph's nodes still finish): links, monitors and
  /// await_all_actors_done hear of the exit only at release_exit_notice(),
  /// so nothing the work touches is freed under it. Links and monitors
  /// added meanwhile get the notice then too. Only for an actor that set
  /// may_hold_exit_notice_.
  void hold_exit_notice() noexcept;

  /// Set in the constructor of an actor that may call hold_exit_notice():
  /// its cleanup takes the lock twice, around on_cleanup; every other
  /// actor's tells links and monitors in one step, under one lock.
  bool may_hold_exit_notice_ = false;

  /// True if the actor system counts this actor in await_all_actors_done
  /// (everything but hidden actors); set once at spawn.
  bool registered_ = false;

  /// The actor system's list of live actors (for shutdown and its report),
  /// guarded by the system's registry lock; `listed_` is set once at spawn.
  abstract_actor* registry_prev_ = nullptr;
  abstract_actor* registry_next_ = nullptr;
  bool listed_ = false;
  /// Set once shutdown() has sent this actor its exit; guarded like the list.
  bool stop_sent_ = false;

  friend class actor_system;

private:
  static void send_exit_to(const actor_addr& dest, const actor_addr& source,
                           const error& reason, execution_unit* ctx);

  /// Moves links_ and monitors_ into the caller's vectors and marks the
  /// notice sent; mtx_ held.
  void take_exit_notice(std::vector<actor_addr>& links,
                        std::vector<actor_addr>& monitors) noexcept;

  /// Tells `links` and `monitors` that this actor exited with `reason`, and
  /// the system that it is gone; no lock held.
  void send_exit_notice(const std::vector<actor_addr>& links,
                        const std::vector<actor_addr>& monitors, const error& reason,
                        execution_unit* ctx);

  actor_control_block* ctrl_;
  std::atomic<bool> terminated_{false};
  mutable std::mutex mtx_;
  // Guarded by mtx_.
  error fail_state_;
  std::vector<actor_addr> links_;
  std::vector<actor_addr> monitors_;
  bool notice_held_ = false; // hold_exit_notice() was called
  bool notice_sent_ = false; // links_ and monitors_ were told; they stay empty
};

/// The actor behind a handle, or nullptr.
inline abstract_actor* actor_cast_raw(const actor& x) noexcept {
  return x ? x.ctrl()->get() : nullptr;
}

} // namespace troupe
