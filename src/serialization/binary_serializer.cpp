#include "troupe/serialization/binary_serializer.hpp"

#include "troupe/message.hpp"

#include <cstdio>
#include <string>

namespace troupe {

void binary_serializer::set_error(error err) {
  if (!err_)
    err_ = std::move(err);
}

void binary_serializer::write_long_varint(uint64_t x) {
  std::byte tmp[10];
  size_t n = 0;
  while (x >= 0x80) {
    tmp[n++] = static_cast<std::byte>((x & 0x7F) | 0x80);
    x >>= 7;
  }
  tmp[n++] = static_cast<std::byte>(x);
  std::memcpy(grow(n), tmp, n);
}

void binary_serializer::write_long_double(long double x) {
  // Hexadecimal text is exact and independent of the long double layout.
  char str[64];
  auto n = std::snprintf(str, sizeof(str), "%La", x);
  write_bytes(str, static_cast<size_t>(n));
}

bool binary_serializer::value(const message& x) {
  auto types = x.types();
  write_varint(types.size());
  for (auto id : types)
    value(id);
  if (types.empty())
    return true;
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
