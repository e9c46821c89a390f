#pragma once

// What the runtime's own classes reach inside an actor_system and a user
// never needs: actor ids, the list shutdown() reaches, threads of its own,
// the messages of due timers. actor_system befriends this class alone, and
// only files under src/ include it.

#include "troupe/actor_system.hpp"

#include <functional>
#include <utility>

namespace troupe::detail {

class system_internals {
public:
  static actor_id next_actor_id(actor_system& sys) noexcept {
    return sys.next_actor_id();
  }

  /// Adds `x` to the live actors shutdown() reaches; undone by unlist_actor.
  static void list_actor(actor_system& sys, abstract_actor* x) {
    sys.list_actor(x);
  }

  static void unlist_actor(actor_system& sys, abstract_actor* x) noexcept {
    sys.unlist_actor(x);
  }

  /// A registered (not hidden) actor terminated.
  static void unregister_actor(actor_system& sys) noexcept {
    sys.unregister_actor();
  }

  /// Runs `job` on a thread of its own; joined at shutdown.
  static void start_thread(actor_system& sys, std::function<void()> job) {
    sys.start_thread(std::move(job));
  }

  /// Delivers `elem`, the message of a timer that came due, to `dest`: the
  /// clock's actions call it.
  static void deliver_due(actor_system& sys, strong_actor_ptr dest, mailbox_element_ptr elem) {
    sys.deliver_due(std::move(dest), std::move(elem));
  }
};

} // namespace troupe::detail
