#pragma once

// A plain byte stream over TCP (with or without TLS), as CAF's
// caf::net::octet_stream. A connection's handler receives what arrives as
// byte_buffer chunks (their bounds are wherever the reads fell) and writes
// by sending the connection a byte_buffer or a std::string. With lines(),
// it receives each line as a std::string (without "\n" or "\r\n") and each
// std::string it sends goes out as a line.
//
//   auto srv = net::octet_stream::with(sys).lines().accept(7789).start(
//     [](event_based_actor* self, actor conn) -> behavior {
//       return {[self, conn](const std::string& line) { self->mail(line).send(conn); }};
//     });
//
// See net/service.hpp for what a connection does and the options every
// builder has; max_message_size bounds a line.

#include "troupe/net/service.hpp"

namespace troupe::net::octet_stream {

class builder : public net::detail::service_builder<builder> {
public:
  explicit builder(actor_system& sys) : service_builder<builder>(sys) {}

  /// Splits what arrives into lines, and ends what is sent with "\n".
  builder& lines() {
    lines_ = true;
    return *this;
  }

  /// Each connection's protocol state (net::detail::service_builder).
  net::detail::protocol_factory make_protocol() const;

private:
  bool lines_ = false;
};

/// The start of a byte-stream server or client, as CAF's
/// octet_stream::with(sys).
inline builder with(actor_system& sys) {
  return builder{sys};
}

} // namespace troupe::net::octet_stream
