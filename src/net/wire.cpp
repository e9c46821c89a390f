#include "troupe/net/detail/wire.hpp"

#include "troupe/binary_deserializer.hpp"
#include "troupe/type_id.hpp"

#include <cstring>
#include <random>
#include <unistd.h>

namespace troupe::net {

node_id node_id::make() {
  node_id result;
  std::random_device rd;
  for (size_t i = 0; i < result.bytes.size(); i += 4) {
    auto r = rd();
    std::memcpy(result.bytes.data() + i, &r, 4);
  }
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0)
    result.host = host;
  else
    result.host = "localhost";
  result.pid = static_cast<uint32_t>(getpid());
  return result;
}

std::string node_id::to_string() const {
  static constexpr char digits[] = "0123456789abcdef";
  // An identity known only by its bytes (a third node's) is "#0123abcd".
  std::string result = host.empty() ? "#" : host + ':' + std::to_string(pid) + '#';
  for (size_t i = 0; i < 4; ++i) {
    result += digits[bytes[i] >> 4];
    result += digits[bytes[i] & 0xF];
  }
  return result;
}

} // namespace troupe::net

namespace troupe::net::detail {

namespace {

/// Entries of a type table, and signatures of an interface, at most.
constexpr size_t max_table_entries = 65536;
constexpr size_t max_name_size = 4096;

template <class Inspector>
bool inspect_hello(Inspector& f, hello_frame& x, uint32_t& magic, uint16_t& version) {
  return f.apply(magic) && f.apply(version) && f.apply(x.node.bytes) && f.apply(x.node.host)
         && f.apply(x.node.pid) && f.apply(x.max_message_size) && f.apply(x.types)
         && f.apply(x.published) && f.apply(x.interface) && f.apply(x.service)
         && f.apply(x.listen_port);
}

} // namespace

std::vector<std::pair<type_id_t, std::string>> local_type_table() {
  std::vector<std::pair<type_id_t, std::string>> result;
  for (uint32_t id = 0; id < invalid_type_id; ++id)
    if (auto* meta = troupe::detail::global_meta_object(static_cast<type_id_t>(id)))
      result.emplace_back(static_cast<type_id_t>(id), std::string{meta->type_name});
  return result;
}

size_t begin_frame(byte_buffer& out, frame_kind kind) {
  auto offset = out.size();
  out.resize(offset + frame_header_size);
  out[offset + 4] = static_cast<std::byte>(kind);
  return offset;
}

bool finish_frame(byte_buffer& out, size_t offset, size_t limit) {
  auto body = out.size() - offset - frame_header_size;
  if (body > limit || body + 1 > UINT32_MAX) {
    out.resize(offset);
    return false;
  }
  auto len = static_cast<uint32_t>(body + 1);
  auto le = troupe::detail::to_little_endian(len);
  std::memcpy(out.data() + offset, &le, 4);
  return true;
}

void write_hello(byte_buffer& out, const hello_frame& x) {
  auto offset = begin_frame(out, frame_kind::hello);
  {
    binary_serializer sink{out};
    uint32_t magic = wire_magic;
    uint16_t version = protocol_version;
    inspect_hello(sink, const_cast<hello_frame&>(x), magic, version);
  }
  finish_frame(out, offset, UINT32_MAX - 1);
}

error read_hello(std::span<const std::byte> body, hello_frame& x) {
  // The magic and version first, so that another protocol gets the error
  // that says so rather than a decoding error.
  if (body.size() < 6)
    return make_error(errc::incompatible_versions, "the peer's first frame is not a Troupe hello");
  uint32_t magic = 0;
  uint16_t version = 0;
  std::memcpy(&magic, body.data(), 4);
  std::memcpy(&version, body.data() + 4, 2);
  magic = troupe::detail::to_little_endian(magic);
  version = troupe::detail::to_little_endian(version);
  if (magic != wire_magic)
    return make_error(errc::incompatible_versions, "the peer's first frame is not a Troupe hello");
  if (version != protocol_version)
    return make_error(errc::incompatible_versions,
                      "the peer speaks protocol version " + std::to_string(version) + ", this node "
                        + std::to_string(protocol_version));
  binary_deserializer source{body};
  hello_frame result;
  if (!inspect_hello(source, result, magic, version))
    return source.get_error();
  if (source.remaining() != 0)
    return make_error(errc::malformed_input, "hello: " + std::to_string(source.remaining())
                                               + " bytes after its end");
  if (result.types.size() > max_table_entries || result.interface.size() > max_table_entries)
    return make_error(errc::malformed_input, "hello: table too large");
  for (auto& [id, name] : result.types)
    if (name.empty() || name.size() > max_name_size || id == invalid_type_id)
      return make_error(errc::malformed_input, "hello: bad entry for type ID " + std::to_string(id));
  x = std::move(result);
  return {};
}

void write_empty_frame(byte_buffer& out, frame_kind kind) {
  auto offset = begin_frame(out, kind);
  finish_frame(out, offset, 0);
}

void write_down(byte_buffer& out, uint64_t actor, const error& reason) {
  auto offset = begin_frame(out, frame_kind::down);
  {
    binary_serializer sink{out};
    sink.apply(actor);
    sink.apply(reason);
  }
  finish_frame(out, offset, UINT32_MAX - 1);
}

error read_down(std::span<const std::byte> body, uint64_t& actor, error& reason) {
  binary_deserializer source{body};
  uint64_t id = 0;
  error why;
  if (!source.apply(id) || !source.apply(why))
    return source.get_error();
  if (source.remaining() != 0)
    return make_error(errc::malformed_input, "down: bytes after its end");
  actor = id;
  reason = std::move(why);
  return {};
}

error read_message(std::span<const std::byte> body, troupe::detail::actor_codec& codec,
                   std::span<const type_id_t> type_map, message_frame& x, error& header_error) {
  binary_deserializer source{body};
  source.set_actor_codec(&codec);
  source.set_type_map(type_map);
  if (!source.apply(x.receiver) || !source.apply(x.mid) || !source.actor_handle(x.sender)) {
    header_error = source.get_error();
    return header_error;
  }
  if (!source.value(x.payload))
    return source.get_error();
  if (source.remaining() != 0)
    return make_error(errc::malformed_input,
                      std::to_string(source.remaining()) + " bytes after the message");
  return {};
}

error read_frame_header(std::span<const std::byte, frame_header_size> bytes, size_t limit,
                        uint32_t& body_size, frame_kind& kind) {
  uint32_t len = 0;
  std::memcpy(&len, bytes.data(), 4);
  len = troupe::detail::to_little_endian(len);
  if (len == 0)
    return make_error(errc::malformed_input, "a frame without a kind");
  if (len - 1 > limit)
    return make_error(errc::malformed_input,
                      "a frame of " + std::to_string(len - 1)
                        + " bytes exceeds troupe.net.max-message-size (" + std::to_string(limit)
                        + ")");
  auto k = static_cast<uint8_t>(bytes[4]);
  if (k < static_cast<uint8_t>(frame_kind::hello) || k > static_cast<uint8_t>(frame_kind::goodbye))
    return make_error(errc::malformed_input, "unknown frame kind " + std::to_string(k));
  body_size = len - 1;
  kind = static_cast<frame_kind>(k);
  return {};
}

} // namespace troupe::net::detail
