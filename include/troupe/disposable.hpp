#pragma once

// disposable: what a delayed send returns, as in CAF 1.x. dispose() stops
// the message if it has not left yet:
//
//   auto tick = self->mail(tick_atom_v).delay(1s).send(self);
//   ...
//   tick.dispose();  // no tick arrives after this
//
// A disposed message is dropped quietly (it is no dead letter: someone asked
// for it to go), and its timer is cancelled. Any thread may call any member; a
// default-constructed disposable refers to nothing.

#include "troupe/actor_clock.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace troupe {

namespace detail {

/// Shared by a delayed message and the disposables that refer to it.
class delayed_state {
public:
  delayed_state() noexcept = default;

  explicit delayed_state(std::weak_ptr<actor_clock> clock) noexcept : clock_(std::move(clock)) {}

  /// True for the one caller that moves the state out of pending: the timer
  /// (which then delivers) or dispose().
  bool settle() noexcept {
    return !settled_.exchange(true, std::memory_order_acq_rel);
  }

  bool settled() const noexcept {
    return settled_.load(std::memory_order_acquire);
  }

  /// Names the timer, once it is scheduled, so that dispose() can cancel it.
  void set_timer(timer_id id) noexcept {
    timer_.store(id, std::memory_order_release);
  }

  /// Settles; if that was first, cancels the timer while its clock lives: a
  /// disposed message no longer counts as a pending timer, which keeps the
  /// system's destructor waiting.
  void dispose() noexcept {
    if (!settle())
      return;
    if (auto id = timer_.load(std::memory_order_acquire); id != invalid_timer_id)
      if (auto clock = clock_.lock())
        clock->cancel(id);
  }

private:
  std::atomic<bool> settled_{false};
  std::atomic<timer_id> timer_{invalid_timer_id};
  std::weak_ptr<actor_clock> clock_;
};

} // namespace detail

class disposable {
public:
  disposable() noexcept = default;

  explicit disposable(std::shared_ptr<detail::delayed_state> state) noexcept
    : state_(std::move(state)) {}

  /// Cancels the delayed message unless it was sent already. Idempotent.
  void dispose() noexcept {
    if (state_)
      state_->dispose();
  }

  /// True once the message was sent, dropped or disposed, or if this refers
  /// to nothing.
  bool disposed() const noexcept {
    return !state_ || state_->settled();
  }

  /// True if this refers to a delayed message.
  bool valid() const noexcept {
    return state_ != nullptr;
  }

  explicit operator bool() const noexcept {
    return valid();
  }

private:
  std::shared_ptr<detail::delayed_state> state_;
};

} // namespace troupe
