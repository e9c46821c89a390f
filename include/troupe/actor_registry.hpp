#pragma once

// Actors by name, as CAF's actor_registry: `sys.registry().put("calc",
// hdl)` here, `sys.registry().get<calculator>("calc")` anywhere in the
// program, and, with troupe::net, `remote_lookup` from another node. The
// registry keeps each named actor alive until erase() or the actor system's
// destructor, and remembers the interface of the handle it was put with, so
// that a typed get checks it.
//
// Threads: every member, any thread.

#include "troupe/actor.hpp"
#include "troupe/detail/handle_traits.hpp"
#include "troupe/detail/interface.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace troupe {

class actor_registry {
public:
  struct entry {
    strong_actor_ptr hdl;
    /// The interface of the handle type it was put with (none: dynamic).
    std::vector<std::string> interface;
  };

  /// Names `hdl`, replacing the actor the name had; an invalid handle
  /// erases the name.
  template <class Handle>
  void put(std::string name, const Handle& hdl) {
    put_entry(std::move(name), entry{strong_actor_ptr{detail::handle_ctrl(hdl)},
                                     detail::interface_of<Handle>()});
  }

  /// The actor called `name` as a `Handle`, or an invalid handle if there
  /// is none or it lacks a signature of `Handle`.
  template <class Handle = actor>
  Handle get(std::string_view name) const {
    auto x = find(name);
    if (!x || !detail::offers_interface(x->interface, detail::interface_of<Handle>()))
      return Handle{};
    return Handle{actor{std::move(x->hdl)}};
  }

  /// The entry called `name`, if any.
  std::optional<entry> find(std::string_view name) const;

  void erase(std::string_view name);

  /// Every name, in order.
  std::vector<std::string> names() const;

  /// Drops every entry (the actor system's destructor).
  void clear();

private:
  void put_entry(std::string name, entry x);

  mutable std::mutex mtx_;
  std::map<std::string, entry, std::less<>> entries_;
};

} // namespace troupe
