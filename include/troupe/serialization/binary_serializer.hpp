#pragma once

// Writes values in Troupe's binary format into a byte buffer:
//
//   auto bytes = troupe::to_binary(my_value);          // expected<byte_buffer>
//   troupe::byte_buffer buf;
//   if (auto err = troupe::to_binary(my_value, buf))   // appends, reuses buf
//     ...
//
// The format (little-endian, no padding, no field names):
//   bool, std::byte        one byte, 0 or 1 for bool
//   integers, characters   fixed width, two's complement
//   float, double          IEEE 754 bits, fixed width
//   long double            its hexadecimal text ("%La"), as a string
//   enum                   its underlying integer
//   string, byte vector    varint length (code units), then the units
//   sequence, set, map     varint element count, then the elements (a map
//                          entry is key then value)
//   tuple, pair, array     the elements, no count
//   optional, optional     one presence byte (0 or 1), then the value if 1
//     or fallback field
//   variant                varint alternative index, then the value
//   duration, time point   the count of ticks, as its integer (or float)
//   message                varint element count, each type ID as u16, then
//                          each element through its meta object
// Varints are unsigned LEB128 (7 bits a byte, low bits first, at most 10
// bytes).

#ifndef TROUPE_SERIALIZATION_HEADERS_OPEN
#define TROUPE_SERIALIZATION_HEADERS_OPEN
#define TROUPE_SERIALIZATION_OPENED_BY_BINARY_SERIALIZER
#endif

#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/serialization/inspect.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe {

// Declared for the entry points below: expected.hpp may still be open here.
template <class T>
class expected;

using byte_buffer = std::vector<std::byte>;

namespace detail {

template <class T>
T to_little_endian(T x) noexcept {
  static_assert(std::is_unsigned_v<T>);
  if constexpr (std::endian::native == std::endian::little || sizeof(T) == 1)
    return x;
  else if constexpr (sizeof(T) == 2)
    return __builtin_bswap16(x);
  else if constexpr (sizeof(T) == 4)
    return __builtin_bswap32(x);
  else
    return __builtin_bswap64(x);
}

/// The unsigned integer of the same width, for the fixed-width encodings.
template <class T>
using wire_uint_t = std::conditional_t<
  sizeof(T) == 1, uint8_t,
  std::conditional_t<sizeof(T) == 2, uint16_t, std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

} // namespace detail

class binary_serializer : public save_inspector<binary_serializer> {
public:
  static constexpr bool has_human_readable_format = false;

  /// Appends to `buf`, which must outlive the serializer.
  explicit binary_serializer(byte_buffer& buf) noexcept : buf_(&buf) {}

  binary_serializer(const binary_serializer&) = delete;
  binary_serializer& operator=(const binary_serializer&) = delete;

  byte_buffer& buffer() noexcept {
    return *buf_;
  }

  /// Keeps the first error.
  void set_error(error err);

  const error& get_error() const noexcept {
    return err_;
  }

  // -- objects and fields ------------------------------------------------------

  bool begin_object(type_id_t, std::string_view) noexcept {
    return true;
  }

  bool end_object() noexcept {
    return true;
  }

  bool begin_field(std::string_view) noexcept {
    return true;
  }

  bool begin_field(std::string_view, bool is_present) {
    return value(is_present);
  }

  bool end_field() noexcept {
    return true;
  }

  // -- framing -------------------------------------------------------------------

  bool begin_optional(bool is_present) {
    return value(is_present);
  }

  bool end_optional() noexcept {
    return true;
  }

  bool begin_variant(size_t index, std::span<const std::string_view>) {
    write_varint(index);
    return true;
  }

  bool end_variant() noexcept {
    return true;
  }

  bool begin_tuple(size_t) noexcept {
    return true;
  }

  bool end_tuple() noexcept {
    return true;
  }

  bool begin_sequence(size_t size) {
    write_varint(size);
    return true;
  }

  bool end_sequence() noexcept {
    return true;
  }

  bool begin_associative_array(size_t size) {
    write_varint(size);
    return true;
  }

  bool end_associative_array() noexcept {
    return true;
  }

  bool begin_key_value_pair() noexcept {
    return true;
  }

  bool end_key_value_pair() noexcept {
    return true;
  }

  // -- values ----------------------------------------------------------------------

  template <class T>
    requires std::is_arithmetic_v<T>
  bool value(T x) {
    if constexpr (std::is_same_v<T, bool>) {
      buf_->push_back(static_cast<std::byte>(x ? 1 : 0));
    } else if constexpr (std::is_same_v<T, long double>) {
      write_long_double(x);
    } else {
      using wire = detail::wire_uint_t<T>;
      auto bits = detail::to_little_endian(std::bit_cast<wire>(x));
      append_small<sizeof(wire)>(&bits);
    }
    return true;
  }

  bool value(std::string_view x) {
    write_bytes(x.data(), x.size());
    return true;
  }

  bool value(std::u16string_view x) {
    return write_code_units(x);
  }

  bool value(std::u32string_view x) {
    return write_code_units(x);
  }

  bool value(std::span<const std::byte> x) {
    write_bytes(x.data(), x.size());
    return true;
  }

  /// Type IDs, then each element through its meta object's save_binary.
  bool value(const message& x);

  // -- raw encoding --------------------------------------------------------------

  void write_varint(uint64_t x) {
    if (x < 0x80) {
      buf_->push_back(static_cast<std::byte>(x));
      return;
    }
    write_long_varint(x);
  }

private:
  /// Appends `N` bytes: push_back stays inline, where resize or insert
  /// call out of line (and resize zero-fills first).
  template <size_t N>
  void append_small(const void* data) {
    auto* src = static_cast<const std::byte*>(data);
    [&]<size_t... Is>(std::index_sequence<Is...>) {
      (buf_->push_back(src[Is]), ...);
    }(std::make_index_sequence<N>{});
  }

  /// A varint length, then `n` bytes.
  void write_bytes(const void* data, size_t n) {
    write_varint(n);
    auto* src = static_cast<const std::byte*>(data);
    buf_->insert(buf_->end(), src, src + n);
  }

  template <class Char>
  bool write_code_units(std::basic_string_view<Char> x) {
    write_varint(x.size());
    for (auto c : x)
      value(static_cast<detail::wire_uint_t<Char>>(c));
    return true;
  }

  void write_long_varint(uint64_t x);

  void write_long_double(long double x);

  byte_buffer* buf_;
  error err_;
};

/// Appends the binary form of `x` to `buf`; on error `buf` keeps its old size.
template <class T>
error to_binary(const T& x, byte_buffer& buf) {
  auto old_size = buf.size();
  binary_serializer sink{buf};
  if (sink.apply(x))
    return {};
  buf.resize(old_size);
  return sink.get_error();
}

namespace detail {

// Keeps a return type dependent, so that it may be incomplete where the
// template is defined: expected.hpp may still be open (include protocol).
template <class T, class U>
struct dependent_type {
  using type = U;
};

} // namespace detail

/// The binary form of `x`.
template <class T>
expected<typename detail::dependent_type<T, byte_buffer>::type> to_binary(const T& x) {
  byte_buffer buf;
  if (auto err = to_binary(x, buf))
    return err;
  return buf;
}

} // namespace troupe

#ifdef TROUPE_SERIALIZATION_OPENED_BY_BINARY_SERIALIZER
#undef TROUPE_SERIALIZATION_OPENED_BY_BINARY_SERIALIZER
#include "troupe/detail/meta_object_hooks.hpp"
#undef TROUPE_SERIALIZATION_HEADERS_OPEN
#endif
