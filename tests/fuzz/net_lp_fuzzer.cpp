// Fuzzes length-prefix framing (net/detail/length_prefix.hpp), what a
// server decodes from every client: the first byte picks the size field and
// the frame limit, the rest is the stream. Every input splits into frames
// and a partial rest, or gives an error for a frame over the limit; the
// frames encode back to exactly the bytes they came from.

#include "troupe/net/detail/length_prefix.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace troupe;
  if (size == 0)
    return 0;
  static constexpr net::lp::size_field fields[] = {net::lp::size_field::u1,
                                                   net::lp::size_field::u2,
                                                   net::lp::size_field::u4};
  static constexpr size_t limits[] = {0, 1, 16, 255, 4096, size_t{1} << 20};
  net::detail::lp_decoder decoder{fields[data[0] % 3], limits[(data[0] / 3) % 6]};
  std::span<const std::byte> input{reinterpret_cast<const std::byte*>(data + 1), size - 1};
  byte_buffer again;
  auto took = decoder.decode(input, [&](std::span<const std::byte> frame) {
    if (frame.size() > decoder.max_message_size)
      std::abort();
    if (net::detail::lp_encode(decoder.field, decoder.max_message_size, frame, again))
      std::abort();
  });
  if (!took)
    return 0;
  if (*took > input.size() || again.size() != *took
      || (*took > 0 && std::memcmp(again.data(), input.data(), *took) != 0))
    std::abort();
  // What stays is less than one whole frame.
  auto rest = input.subspan(*took);
  size_t frames_in_rest = 0;
  auto more = decoder.decode(rest, [&](std::span<const std::byte>) { ++frames_in_rest; });
  if (!more || *more != 0 || frames_in_rest != 0)
    std::abort();
  return 0;
}
