#pragma once

// CAF's mail_cache: an actor keeps messages it cannot handle yet and puts
// them back in its mailbox once it can (a philosopher that waits for its
// chopsticks keeps the "think" and "eat" of others).
//
//   mail_cache cache{self, 20};
//   behavior waiting{..., [this](message msg) { cache.stash(std::move(msg)); }};
//   ...
//   cache.unstash();  // before the handler that changed the state returns
//   self->become(ready);
//
// stash() keeps the current message's sender and request ID: a stashed
// request is answered when the actor handles it after unstash(), not when
// the handler that stashed it returns. Only the actor's own thread (its
// handlers) may call any member.

#include "troupe/local_actor.hpp"
#include "troupe/message.hpp"

#include <cstddef>

namespace troupe {

class mail_cache {
public:
  /// A cache for `self` that holds at most `max_size` messages.
  mail_cache(local_actor* self, size_t max_size) noexcept
    : self_(self), max_size_(max_size) {}

  mail_cache(const mail_cache&) = delete;
  mail_cache& operator=(const mail_cache&) = delete;

  /// Bounces what is still stashed: requests get errc::actor_down ("dropped
  /// from a mail_cache"), other messages count as dead letters.
  ~mail_cache();

  size_t max_size() const noexcept {
    return max_size_;
  }

  size_t size() const noexcept {
    return elements_.size();
  }

  bool empty() const noexcept {
    return elements_.empty();
  }

  bool full() const noexcept {
    return size() >= max_size_;
  }

  /// Keeps `msg`, from the sender of the current message and with its
  /// request ID. Throws std::length_error if the cache is full (the actor
  /// then fails as for any exception in a handler, and the message goes back
  /// to its sender as an error if it was a request).
  void stash(message msg);

  /// Puts every stashed message back in the mailbox, in front of the others
  /// and in the order they were stashed.
  void unstash();

private:
  local_actor* self_;
  size_t max_size_;
  local_actor::mailbox_type::list_type elements_;
};

} // namespace troupe
