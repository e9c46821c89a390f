#pragma once

// What a network service's connection speaks: how the bytes it reads become
// messages for its handler, and how messages sent to it become bytes. One
// object per connection.

#include "troupe/actor_control_block.hpp"
#include "troupe/byte_buffer.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/message.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace troupe::net::detail {

/// What the connection does with a message the protocol made of its input.
struct delivery {
  /// Null: the connection's handler. Else another actor (an HTTP route's),
  /// or the connection itself (an answer the protocol made on its own).
  strong_actor_ptr dest;
  message_id mid;
  message msg;
};

class protocol {
public:
  virtual ~protocol() = default;

  /// The I/O thread: appends to `out` what whole units at the front of
  /// `data` make; returns the bytes they took (the rest waits for more),
  /// or an error that closes the connection. `self` is the connection.
  virtual expected<size_t> consume(std::span<const std::byte> data, const strong_actor_ptr& self,
                                   std::vector<delivery>& out) = 0;

  /// The I/O thread: the peer closed its side; `rest` is what consume()
  /// left. An error if that is a unit cut short.
  virtual error finish(std::span<const std::byte> rest, std::vector<delivery>& out) = 0;

  /// Any thread, under the connection's lock: appends `elem`'s message to
  /// `out` as bytes for the peer, or says why it can't (a type this
  /// protocol does not write). `close_after`: the connection closes once
  /// this is out.
  virtual error encode(const mailbox_element& elem, byte_buffer& out, bool& close_after) = 0;

  /// Whether each connection has a handler actor (else the protocol sends
  /// its deliveries where they go).
  virtual bool needs_handler() const noexcept {
    return true;
  }

  /// Whether the protocol answers the requests sent to the connection
  /// itself (an HTTP client); else the connection answers each request it
  /// wrote with an empty message.
  virtual bool answers_requests() const noexcept {
    return false;
  }

  /// The I/O thread: the connection ended with `reason`; appends what
  /// still waits for an answer, answered with it.
  virtual void on_close(const error& reason, std::vector<delivery>& out) {
    (void) reason;
    (void) out;
  }

  /// Under the connection's lock: what came in and is not answered yet;
  /// reading pauses at max_pending_messages (protocols without a handler).
  virtual size_t backlog() const noexcept {
    return 0;
  }

  /// The most bytes consume() may need to see at once.
  virtual size_t max_unit_size() const noexcept = 0;

  /// "length-prefix framing", for messages and logs.
  virtual std::string_view name() const noexcept = 0;
};

/// The bytes of a byte_buffer or std::string element, or an error naming
/// what `msg` holds instead.
expected<std::span<const std::byte>> payload_bytes(const message& msg, std::string_view protocol);

} // namespace troupe::net::detail
