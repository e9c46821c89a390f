#pragma once

// Actor handles in serialized messages. A handle means something only to
// the node that can reach its actor, so the binary inspectors write and
// read handles through a codec that a network connection supplies
// (troupe::net): it turns a local actor into an ID the peer can address,
// and an ID from the peer into a local actor or a proxy. Without a codec,
// saving or loading a handle is an errc::unsupported_type error, and the
// human-readable inspectors print a handle as to_string does.

#include "troupe/actor.hpp"
#include "troupe/error.hpp"
#include "troupe/fwd.hpp"
#include "troupe/serialization/inspect.hpp"

#include <string>

namespace troupe::detail {

class actor_codec {
public:
  virtual ~actor_codec() = default;

  /// Writes `x` (may be null); false after calling sink.set_error().
  virtual bool save(binary_serializer& sink, actor_control_block* x) = 0;

  /// Reads a handle written by the peer's save(); false after calling
  /// source.set_error().
  virtual bool load(binary_deserializer& source, strong_actor_ptr& x) = 0;
};

/// What every inspector does with a handle whose control block is `ctrl`:
/// the binary ones use the codec, the human-readable writers print it, the
/// human-readable readers refuse it.
template <class Inspector>
bool inspect_actor_handle(Inspector& f, actor_control_block* ctrl, strong_actor_ptr* loaded) {
  if constexpr (Inspector::is_loading) {
    if constexpr (requires { f.actor_handle(*loaded); }) {
      return f.actor_handle(*loaded);
    } else {
      f.set_error(make_error(errc::unsupported_type,
                             "an actor handle loads only from a connection to another node"));
      return false;
    }
  } else {
    if constexpr (requires { f.actor_handle(ctrl); }) {
      return f.actor_handle(ctrl);
    } else {
      std::string str = ctrl != nullptr ? "actor#" + std::to_string(ctrl->id()) : "actor#null";
      return f.value(std::string_view{str});
    }
  }
}

} // namespace troupe::detail

template <>
struct troupe::inspector_access<troupe::actor> {
  template <class Inspector>
  static bool apply(Inspector& f, actor& x) {
    strong_actor_ptr loaded;
    if (!detail::inspect_actor_handle(f, x.ctrl(), &loaded))
      return false;
    if constexpr (Inspector::is_loading)
      x = actor{std::move(loaded)};
    return true;
  }
};

template <>
struct troupe::inspector_access<troupe::actor_addr> {
  template <class Inspector>
  static bool apply(Inspector& f, actor_addr& x) {
    strong_actor_ptr loaded;
    if (!detail::inspect_actor_handle(f, x.ctrl(), &loaded))
      return false;
    if constexpr (Inspector::is_loading)
      x = actor_addr{weak_actor_ptr{loaded}};
    return true;
  }
};
