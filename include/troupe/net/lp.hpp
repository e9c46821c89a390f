#pragma once

// Length-prefix framing over TCP (with or without TLS), as CAF's
// caf::net::lp: each message is a frame, its size first. A connection's
// handler receives each frame as a byte_buffer and writes one by sending
// the connection a byte_buffer or a std::string.
//
//   // server
//   auto srv = net::lp::with(sys).accept(7788).start(
//     [](event_based_actor* self, actor conn) -> behavior { ... });
//   // client
//   auto hdl = net::lp::with(sys).connect("localhost", 7788).start(
//     [](event_based_actor* self, actor conn) -> behavior { ... });
//
// See net/service.hpp for what a connection does and the options every
// builder has.

#include "troupe/net/detail/length_prefix.hpp"
#include "troupe/net/service.hpp"

namespace troupe::net::lp {

class builder : public net::detail::service_builder<builder> {
public:
  explicit builder(actor_system& sys) : service_builder<builder>(sys) {}

  /// The bytes of each frame's size (default u4, as CAF's).
  builder& size_field(lp::size_field x) {
    field_ = x;
    return *this;
  }

  /// Each connection's protocol state (net::detail::service_builder).
  net::detail::protocol_factory make_protocol() const;

private:
  lp::size_field field_ = lp::size_field::u4;
};

/// The start of a length-prefix server or client, as CAF's lp::with(sys).
inline builder with(actor_system& sys) {
  return builder{sys};
}

} // namespace troupe::net::lp
