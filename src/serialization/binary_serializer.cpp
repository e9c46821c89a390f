#include "troupe/binary_serializer.hpp"

#include "troupe/message.hpp"
#include "troupe/serialization/actor_codec.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace troupe {

void binary_serializer::set_error(error err) {
  if (!err_)
    err_ = std::move(err);
}

namespace {

/// Writes `x` as LEB128 into `out` (room for 10 bytes); returns the length.
size_t encode_varint(uint64_t x, std::byte* out) {
  size_t n = 0;
  while (x >= 0x80) {
    out[n++] = static_cast<std::byte>((x & 0x7F) | 0x80);
    x >>= 7;
  }
  out[n++] = static_cast<std::byte>(x);
  return n;
}

} // namespace

void binary_serializer::close_scratch() noexcept {
  if (pos_ == nullptr)
    return;
  if (pos_ != scratch_)
    buf_->insert(buf_->end(), scratch_, pos_); // room reserved: no allocation
  pos_ = end_ = nullptr;
}

void binary_serializer::open_scratch() {
  close_scratch();
  start_scratch();
}

void binary_serializer::reserve_scratch() {
  buf_->reserve(std::max(buf_->size() + scratch_size, 2 * buf_->capacity()));
}

void binary_serializer::write_long_varint(uint64_t x) {
  std::byte tmp[10];
  auto n = encode_varint(x, tmp);
  std::memcpy(claim(n), tmp, n);
}

void binary_serializer::write_long_double(long double x) {
  // Hexadecimal text is exact and independent of the long double layout.
  char str[64];
  auto n = std::snprintf(str, sizeof(str), "%La", x);
  write_bytes(str, static_cast<size_t>(n));
}

bool binary_serializer::value(const message& x) {
  auto types = x.types();
  if (types.empty()) {
    write_varint(0);
    return true;
  }
  call_scope guard{*this};
  write_varint(types.size());
  for (auto id : types) {
    auto bits = detail::to_little_endian(id);
    std::memcpy(claim(sizeof(bits)), &bits, sizeof(bits));
  }
  auto* ptr = x.raw()->storage();
  for (size_t i = 0; i < types.size(); ++i) {
    auto* meta = detail::global_meta_object(types[i]);
    if (meta->save_binary == nullptr) {
      set_error(make_error(errc::unsupported_type,
                           "message element " + std::to_string(i) + " has type "
                             + std::string{meta->type_name}
                             + ", which has no inspect() and can't be serialized"));
      return false;
    }
    if (!meta->save_binary(*this, ptr))
      return false;
    ptr += meta->padded_size;
  }
  return true;
}

} // namespace troupe

namespace troupe {

bool binary_serializer::actor_handle(actor_control_block* x) {
  if (codec_ != nullptr)
    return codec_->save(*this, x);
  set_error(make_error(errc::unsupported_type,
                       "an actor handle saves only into a message to another node"));
  return false;
}

} // namespace troupe
