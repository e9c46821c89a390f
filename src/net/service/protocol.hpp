#pragma once

// What a network service's connection speaks: how the bytes it reads become
// messages for its handler, and how messages sent to it become bytes. One
// object per connection.

#include "troupe/byte_buffer.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/message.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace troupe::net::detail {

class protocol {
public:
  virtual ~protocol() = default;

  /// The I/O thread: appends to `out` the messages that whole units at the
  /// front of `data` make; returns the bytes they took (the rest waits for
  /// more), or an error that closes the connection.
  virtual expected<size_t> consume(std::span<const std::byte> data,
                                   std::vector<message>& out) = 0;

  /// The I/O thread: the peer closed its side; `rest` is what consume()
  /// left. An error if that is a unit cut short.
  virtual error finish(std::span<const std::byte> rest, std::vector<message>& out) = 0;

  /// Any thread, one at a time: appends `msg` to `out` as bytes for the
  /// peer, or says why it can't (a type this protocol does not write).
  virtual error encode(const message& msg, byte_buffer& out) = 0;

  /// The most bytes consume() may need to see at once.
  virtual size_t max_unit_size() const noexcept = 0;

  /// "length-prefix framing", for messages and logs.
  virtual std::string_view name() const noexcept = 0;
};

/// The bytes of a byte_buffer or std::string element, or an error naming
/// what `msg` holds instead.
expected<std::span<const std::byte>> payload_bytes(const message& msg, std::string_view protocol);

} // namespace troupe::net::detail
