#pragma once

// What a sender meets when a connection's buffer is full, for a remote
// actor's proxy and a service's connection alike: as a full mailbox with
// the mute policy, an event-based sender pauses after its handler; another
// thread waits (its message is queued already, so it is never dropped) until
// `has_room` or troupe.mailbox.push-timeout.

#include "troupe/abstract_actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/local_actor.hpp"

#include <chrono>
#include <thread>

namespace troupe::net::detail {

template <class HasRoom>
void on_buffer_full(abstract_actor& full, HasRoom has_room) {
  if (troupe::detail::running_actor != nullptr) {
    troupe::detail::mute_running_actor(&full);
    return;
  }
  if (!troupe::detail::push_may_wait)
    return;
  auto deadline = std::chrono::steady_clock::now() + full.system().config().mailbox.push_timeout;
  while (!has_room() && !full.terminated() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds{50});
}

} // namespace troupe::net::detail
