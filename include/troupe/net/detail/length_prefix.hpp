#pragma once

// Length-prefix framing: each frame is its size in network byte order (1, 2
// or 4 bytes), then that many bytes. The decoder is what a server runs on
// every byte a client sends; tests/fuzz/net_lp_fuzzer.cpp feeds it.

#include "troupe/byte_buffer.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace troupe::net::lp {

/// The bytes of a frame's size field, as CAF's lp::size_field_type.
enum class size_field : uint8_t { u1 = 1, u2 = 2, u4 = 4 };

constexpr std::string_view to_string(size_field x) noexcept {
  switch (x) {
    case size_field::u1:
      return "u1";
    case size_field::u2:
      return "u2";
    default:
      return "u4";
  }
}

/// The largest payload a size field can state.
constexpr size_t max_payload(size_field x) noexcept {
  switch (x) {
    case size_field::u1:
      return 0xFF;
    case size_field::u2:
      return 0xFFFF;
    default:
      return 0xFFFF'FFFF;
  }
}

} // namespace troupe::net::lp

namespace troupe::net::detail {

struct lp_decoder {
  lp::size_field field = lp::size_field::u4;
  /// A frame stating more than this is an error (the connection closes).
  size_t max_message_size = 0;

  size_t header_size() const noexcept {
    return static_cast<size_t>(field);
  }

  /// Calls `emit(std::span<const std::byte>)` for each whole frame at the
  /// front of `data`; returns the bytes they took (a partial frame stays),
  /// or an error naming the size of a frame that is too large.
  template <class F>
  expected<size_t> decode(std::span<const std::byte> data, F&& emit) const {
    size_t pos = 0;
    auto n = header_size();
    while (data.size() - pos >= n) {
      uint64_t len = 0;
      for (size_t i = 0; i < n; ++i)
        len = (len << 8) | std::to_integer<uint8_t>(data[pos + i]);
      if (len > max_message_size)
        return make_error(errc::invalid_argument,
                          "a frame of " + std::to_string(len)
                            + " bytes exceeds max_message_size ("
                            + std::to_string(max_message_size) + " bytes)");
      if (data.size() - pos - n < len)
        break;
      emit(data.subspan(pos + n, static_cast<size_t>(len)));
      pos += n + static_cast<size_t>(len);
    }
    return pos;
  }
};

/// Appends `payload` as one frame to `out`, or says why it can't be one.
inline error lp_encode(lp::size_field field, size_t max_message_size,
                       std::span<const std::byte> payload, byte_buffer& out) {
  auto limit = std::min(max_message_size, lp::max_payload(field));
  if (payload.size() > limit)
    return make_error(errc::invalid_argument,
                      "a frame of " + std::to_string(payload.size())
                        + " bytes exceeds the limit of " + std::to_string(limit)
                        + " bytes (max_message_size, size field "
                        + std::string{lp::to_string(field)} + ")");
  auto n = static_cast<size_t>(field);
  auto len = static_cast<uint64_t>(payload.size());
  for (size_t i = n; i-- > 0;)
    out.push_back(static_cast<std::byte>((len >> (8 * i)) & 0xFF));
  out.insert(out.end(), payload.begin(), payload.end());
  return {};
}

} // namespace troupe::net::detail
