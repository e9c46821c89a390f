#pragma once

// Messages the runtime sends on its own: exit_msg to linked actors,
// down_msg to monitors, and the timeouts an actor sends itself.

#include "troupe/actor.hpp"
#include "troupe/error.hpp"
#include "troupe/serialization/actor_codec.hpp"

#include <string>

namespace troupe {

/// Sent to every actor linked to `source` when `source` terminates.
struct exit_msg {
  actor_addr source;
  error reason;
};

/// Sent to every actor monitoring `source` when `source` terminates.
struct down_msg {
  actor_addr source;
  error reason;
};

std::string to_string(const exit_msg& x);
std::string to_string(const down_msg& x);

// Both cross the network: the source is a handle (serialization/actor_codec.hpp).
template <class Inspector>
bool inspect(Inspector& f, exit_msg& x) {
  return f.object(x).fields(f.field("source", x.source), f.field("reason", x.reason));
}

template <class Inspector>
bool inspect(Inspector& f, down_msg& x) {
  return f.object(x).fields(f.field("source", x.source), f.field("reason", x.reason));
}

namespace detail {

/// Delivered by the timer service when a pending request times out.
struct request_timeout_msg {
  uint64_t request_number;
};

std::string to_string(const request_timeout_msg& x);

/// Delivered by the timer service when an actor's idle handler may be due;
/// `generation` tells a timer of a replaced handler from the current one.
struct idle_timeout_msg {
  uint64_t generation;
};

std::string to_string(const idle_timeout_msg& x);

} // namespace detail

} // namespace troupe

TROUPE_BEGIN_TYPE_ID_BLOCK(core_actors, 110)
  TROUPE_ADD_CORE_TYPE_ID(core_actors, (troupe::actor))
  TROUPE_ADD_CORE_TYPE_ID(core_actors, (troupe::actor_addr))
  TROUPE_ADD_CORE_TYPE_ID(core_actors, (troupe::exit_msg))
  TROUPE_ADD_CORE_TYPE_ID(core_actors, (troupe::down_msg))
  TROUPE_ADD_CORE_TYPE_ID(core_actors, (troupe::detail::request_timeout_msg))
  TROUPE_ADD_CORE_TYPE_ID(core_actors, (troupe::detail::idle_timeout_msg))
  TROUPE_ADD_CORE_TYPE_ID(core_actors, (troupe::message))
TROUPE_END_TYPE_ID_BLOCK(core_actors)
