#pragma once

// The frames two Troupe nodes exchange over one TCP connection. Every frame
// is a 4-byte little-endian length L, then L bytes: a kind byte and its
// body, in Troupe's binary format (troupe/binary_serializer.hpp).
//
//   hello      magic "TRP1", protocol version, the node's identity, its
//              largest accepted frame, its type table (ID and name of every
//              registered type), the actor published on the port the
//              connection reached (0 on the connecting side) and that
//              actor's interface (one signature per entry, empty when
//              dynamically typed), the node's service actor (lookups
//              and spawns by name) and a port it listens on for other nodes
//              (0: none). Both sides send one first.
//   message    receiver ID (an actor of the reader's node), message ID,
//              sender (an actor handle, see net/detail/peer's codec), the
//              message (type IDs of the writer's table, then the elements).
//   down       an actor of the writer's node terminated: its ID and reason.
//   heartbeat  nothing: the writer is alive.
//   goodbye    nothing: the writer closes the connection on purpose.
//
// Decoding checks every length against the input and the configured limit,
// so malformed bytes from a peer give an error, never a crash
// (tests/fuzz/net_wire_fuzzer.cpp).

#include "troupe/actor_control_block.hpp"
#include "troupe/error.hpp"
#include "troupe/message.hpp"
#include "troupe/net/node_id.hpp"
#include "troupe/serialization/actor_codec.hpp"
#include "troupe/binary_serializer.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace troupe::net::detail {

inline constexpr uint32_t wire_magic = 0x31505254; // "TRP1" little-endian
inline constexpr uint16_t protocol_version = 2;

/// Length prefix plus kind byte.
inline constexpr size_t frame_header_size = 5;

enum class frame_kind : uint8_t {
  hello = 1,
  message = 2,
  down = 3,
  heartbeat = 4,
  goodbye = 5,
};

using troupe::net::node_id;

struct hello_frame {
  node_id node;
  uint64_t max_message_size = 0;
  std::vector<std::pair<type_id_t, std::string>> types;
  uint64_t published = 0;
  std::vector<std::string> interface;
  /// The node's service actor: lookups and spawns by name.
  uint64_t service = 0;
  /// A port the node listens on (publish or open), so that a third node
  /// handed one of its actors can connect to it; 0 if it listens on none.
  uint16_t listen_port = 0;
};

/// The type table of this program: every registered type's ID and name.
std::vector<std::pair<type_id_t, std::string>> local_type_table();

/// Appends a whole hello frame to `out`.
void write_hello(byte_buffer& out, const hello_frame& x);

/// Reads a hello body (the bytes after the kind byte).
error read_hello(std::span<const std::byte> body, hello_frame& x);

/// Appends a frame of `kind` with no body.
void write_empty_frame(byte_buffer& out, frame_kind kind);

/// Appends a down frame.
void write_down(byte_buffer& out, uint64_t actor, const error& reason);

/// Reads a down body.
error read_down(std::span<const std::byte> body, uint64_t& actor, error& reason);

/// Reserves a frame header at the end of `out`; returns its offset for
/// finish_frame.
size_t begin_frame(byte_buffer& out, frame_kind kind);

/// Writes the length of the frame begun at `offset`; false (and the frame
/// removed) if it exceeds `limit`.
bool finish_frame(byte_buffer& out, size_t offset, size_t limit);

/// The fields of a message frame.
struct message_frame {
  uint64_t receiver = 0;
  uint64_t mid = 0;
  strong_actor_ptr sender;
  message payload;
};

/// Reads a message body: the header fields, the sender through `codec`,
/// the message with the writer's type IDs translated by `type_map`. An
/// error in `header_error` means the frame is not one this protocol
/// writes (the connection should close); an error only in the result means
/// just the message did not load (its header fields are valid).
error read_message(std::span<const std::byte> body, troupe::detail::actor_codec& codec,
                   std::span<const type_id_t> type_map, message_frame& x, error& header_error);

/// Parses a frame header: its body length (after the kind byte) and kind.
/// An unknown kind, an empty frame or a body over `limit` is an error.
error read_frame_header(std::span<const std::byte, frame_header_size> bytes, size_t limit,
                        uint32_t& body_size, frame_kind& kind);

} // namespace troupe::net::detail
