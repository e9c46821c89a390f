#pragma once

// actor_stage_core<Slot>: an ordinary actor as a stage, the part both layers
// share (patterns' seq of an actor, stream::graph::add_actor): each item
// becomes a request to the actor, at most max_in_flight wait at once, the
// answers leave in input order, and an error names the stage.
//
// Only the transport stays with each layer, because it differs: a pattern's
// items arrive and leave as messages (each keeps its requester), a stream's
// come from and go to SPSC rings. Slot is what the layer keeps per item; it
// fills the slot in its handlers, and `slot.ready()` says it may leave.

#include "troupe/actor.hpp"
#include "troupe/detail/reorder_window.hpp"
#include "troupe/error.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/message.hpp"

#include <cstddef>
#include <string>
#include <utility>

namespace troupe::detail {

template <class Slot>
class actor_stage_core {
public:
  /// `label`: how errors name the stage ("stage pipeline[0]/seq").
  actor_stage_core(std::string label, size_t max_in_flight)
    : prefix_(std::move(label) + ": "), max_in_flight_(max_in_flight) {}

  /// Whether another request may go out.
  bool has_room() const noexcept {
    return window_.size() < max_in_flight_;
  }

  /// No request waits for its answer or its turn.
  bool idle() const noexcept {
    return window_.empty();
  }

  /// Sends `msg` from `self` to `target` as a request, for a new item
  /// behind those in flight, whose slot starts as `init`. An answer of
  /// types `Answer...` goes to `on_answer(Slot&, Answer&...)`; an error (an
  /// answer of other types too), named after the stage, to
  /// `on_error(Slot&, error&)`.
  template <class... Answer, class Self, class OnAnswer, class OnError>
  void ask(Self* self, const actor& target, message msg, Slot init, OnAnswer on_answer,
           OnError on_error) {
    auto n = window_.open(std::move(init));
    self->request_message(target, infinite, std::move(msg))
      .then(
        [this, n, on_answer](Answer&... xs) mutable {
          if (auto* s = window_.find(n))
            on_answer(*s, xs...);
        },
        [this, n, on_error](error& err) mutable {
          if (auto* s = window_.find(n)) {
            name_error(err);
            on_error(*s, err);
          }
        });
  }

  /// Puts the stage's name in front of `err`'s context.
  void name_error(error& err) const {
    err.prepend_context(prefix_);
  }

  /// Whether the oldest item may leave.
  bool front_ready() noexcept {
    return !window_.empty() && window_.front().ready();
  }

  /// The oldest item leaves (front_ready() must hold).
  Slot take_front() {
    return window_.take_front();
  }

private:
  reorder_window<Slot> window_;
  std::string prefix_;
  size_t max_in_flight_;
};

} // namespace troupe::detail
