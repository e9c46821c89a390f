#pragma once

// The frames of the `threads` and `asio` programs: a 4-byte length, then a
// 32-byte head (tag, value, padding), about what a small actor message
// takes on a wire, then the payload of a throughput_1k message.
//
//   u32 length | u32 tag | u32 0 | i64 value | 16 bytes 0 | payload
//
// Host byte order: both ends are this machine.

#include "peer.hpp"

#include <cstdint>
#include <cstring>
#include <vector>

namespace dist::wire {

enum class tag : uint32_t { request = 1, response = 2, data = 3, done = 4 };

constexpr size_t length_bytes = 4;
constexpr size_t head_bytes = 32;
/// A frame longer than this is a broken stream.
constexpr size_t max_frame = 1 << 24;

struct frame {
  wire::tag tag;
  int64_t value;
  size_t payload;
};

inline void append(std::vector<char>& out, tag t, int64_t value, size_t payload = 0) {
  auto at = out.size();
  out.resize(at + length_bytes + head_bytes + payload);
  char* p = out.data() + at;
  auto length = static_cast<uint32_t>(head_bytes + payload);
  auto raw_tag = static_cast<uint32_t>(t);
  std::memcpy(p, &length, 4);
  std::memcpy(p + 4, &raw_tag, 4);
  std::memset(p + 8, 0, 4);
  std::memcpy(p + 12, &value, 8);
  std::memset(p + 20, 0, 16);
  if (payload > 0)
    std::memset(p + length_bytes + head_bytes, 'x', payload);
}

/// Calls f(frame) for each whole frame at the start of [data, data + size);
/// returns the bytes they take. Exits on a malformed frame.
template <class F>
size_t parse(const char* data, size_t size, F&& f) {
  size_t used = 0;
  while (size - used >= length_bytes) {
    uint32_t length = 0;
    std::memcpy(&length, data + used, 4);
    if (length < head_bytes || length > max_frame)
      die("wire: malformed frame");
    if (size - used < length_bytes + length)
      break;
    const char* p = data + used + length_bytes;
    uint32_t raw_tag = 0;
    int64_t value = 0;
    std::memcpy(&raw_tag, p, 4);
    std::memcpy(&value, p + 8, 8);
    used += length_bytes + length;
    f(frame{static_cast<tag>(raw_tag), value, length - head_bytes});
  }
  return used;
}

/// The bytes of the next frame at `data` (at least length_bytes there), so
/// that a reader can make room for it.
inline size_t frame_size(const char* data) {
  uint32_t length = 0;
  std::memcpy(&length, data, 4);
  return length_bytes + length;
}

/// What the server of both programs does with each frame: answers requests
/// (echoing the value), counts data and answers the last with `done`.
class responder {
public:
  responder(const config& cfg, server_side& side) : cfg_(cfg), side_(side) {
  }

  /// Handles one frame; appends its answer, if any, to `out`.
  void on_frame(const frame& f, std::vector<char>& out) {
    switch (f.tag) {
      case tag::request:
        if (f.value >= 0) {
          side_.begin();
          if (++count_ == cfg_.ops)
            finished_ = true;
        }
        append(out, tag::response, f.value);
        break;
      case tag::data:
        side_.begin();
        if (f.payload != cfg_.payload)
          die("server: a message of the wrong size");
        if (++count_ == cfg_.ops) {
          append(out, tag::done, static_cast<int64_t>(count_));
          finished_ = true;
        }
        break;
      default:
        die("server: unexpected frame");
    }
  }

  /// Whether the last answer of the case has been appended.
  bool finished() const noexcept {
    return finished_;
  }

private:
  const config& cfg_;
  server_side& side_;
  uint64_t count_ = 0;
  bool finished_ = false;
};

} // namespace dist::wire
