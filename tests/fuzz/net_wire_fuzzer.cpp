// Fuzzes what a node decodes from a peer (net/detail/wire.hpp): a frame
// header, then its body as a hello, a down and a message frame. Every input
// decodes or gives an error; none crashes, leaks or reads out of bounds.

#include "troupe/net/detail/wire.hpp"
#include "troupe/binary_deserializer.hpp"

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <string>
#include <vector>

namespace {

/// Reads handles as a peer's codec does, without a connection: every
/// handle loads as null.
class null_codec : public troupe::detail::actor_codec {
public:
  bool save(troupe::binary_serializer&, troupe::actor_control_block*) override {
    return false;
  }

  bool load(troupe::binary_deserializer& source, troupe::strong_actor_ptr& x) override {
    uint8_t tag = 0;
    uint64_t id = 0;
    if (!source.apply(tag))
      return false;
    if (tag == 3) {
      std::array<uint8_t, 16> node{};
      if (!source.apply(node))
        return false;
    }
    if (tag > 3) {
      source.set_error(troupe::make_error(troupe::errc::malformed_input, "bad tag"));
      return false;
    }
    if (tag != 0 && !source.apply(id))
      return false;
    // A third node's handle: where to reach that node.
    std::string host;
    uint16_t port = 0;
    if (tag == 3 && (!source.apply(host) || !source.apply(port)))
      return false;
    x = nullptr;
    return true;
  }
};

/// The identity map, as between two builds of one program, with a hole.
const std::vector<troupe::type_id_t>& identity_map() {
  static const std::vector<troupe::type_id_t> map = [] {
    std::vector<troupe::type_id_t> result(300);
    std::iota(result.begin(), result.end(), troupe::type_id_t{0});
    result[5] = troupe::invalid_type_id;
    return result;
  }();
  return map;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace troupe::net::detail;
  auto input = std::as_bytes(std::span{data, size});
  if (input.size() >= frame_header_size) {
    uint32_t body_size = 0;
    frame_kind kind{};
    std::span<const std::byte, frame_header_size> header{input.data(), frame_header_size};
    (void) read_frame_header(header, 1 << 20, body_size, kind);
    input = input.subspan(frame_header_size);
  }
  hello_frame hello;
  (void) read_hello(input, hello);
  uint64_t id = 0;
  troupe::error reason;
  (void) read_down(input, id, reason);
  null_codec codec;
  message_frame frame;
  troupe::error header_error;
  (void) read_message(input, codec, identity_map(), frame, header_error);
  return 0;
}
