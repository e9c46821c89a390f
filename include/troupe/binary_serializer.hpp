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

#include "troupe/byte_buffer.hpp"
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
#include <vector>

namespace troupe {

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
  explicit binary_serializer(byte_buffer& buf) : buf_(&buf) {
    start_scratch();
  }

  binary_serializer(const binary_serializer&) = delete;
  binary_serializer& operator=(const binary_serializer&) = delete;

  /// The buffer, holding exactly the bytes written so far.
  byte_buffer& buffer() noexcept {
    close_scratch();
    return *buf_;
  }

  /// Inspects `x` (see save_inspector); the buffer holds exactly the bytes
  /// written when the outermost call returns.
  template <class T>
  bool apply(const T& x) {
    call_scope guard{*this};
    return save_inspector::apply(x);
  }

  /// Holds the scratch array open across the calls made while it lives:
  /// what they write reaches the buffer in one insert when it ends (buffer()
  /// is exact again only then). For a caller that writes many small values.
  class batch;

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
    call_scope guard{*this};
    if constexpr (std::is_same_v<T, bool>) {
      *claim(1) = static_cast<std::byte>(x ? 1 : 0);
    } else if constexpr (std::is_same_v<T, long double>) {
      write_long_double(x);
    } else {
      using wire = detail::wire_uint_t<T>;
      auto bits = detail::to_little_endian(std::bit_cast<wire>(x));
      std::memcpy(claim(sizeof(wire)), &bits, sizeof(wire));
    }
    return true;
  }

  bool value(std::string_view x) {
    call_scope guard{*this};
    write_bytes(x.data(), x.size());
    return true;
  }

  bool value(std::u16string_view x) {
    call_scope guard{*this};
    return write_code_units(x);
  }

  bool value(std::u32string_view x) {
    call_scope guard{*this};
    return write_code_units(x);
  }

  bool value(std::span<const std::byte> x) {
    call_scope guard{*this};
    write_bytes(x.data(), x.size());
    return true;
  }

  /// Type IDs, then each element through its meta object's save_binary.
  bool value(const message& x);

  /// An actor handle, through the codec set with set_actor_codec (a
  /// network connection's); without one, an errc::unsupported_type error.
  bool actor_handle(actor_control_block* x);

  /// The codec actor handles go through; null (the default) refuses them.
  void set_actor_codec(detail::actor_codec* codec) noexcept {
    codec_ = codec;
  }

  // -- raw encoding --------------------------------------------------------------

  void write_varint(uint64_t x) {
    call_scope guard{*this};
    if (x < 0x80) {
      *claim(1) = static_cast<std::byte>(x);
      return;
    }
    write_long_varint(x);
  }

private:
  // Writing. Values go to a small scratch array inside the serializer, with
  // a bounds check and a memcpy each, and reach the buffer in one insert
  // when the array fills or the outermost public call returns (so callers
  // never see a value half written). Appending byte by byte through the vector
  // instead re-reads its end pointer after every byte (a byte store may alias
  // it): about 2 ns a byte, measured. Opening the array reserves room for
  // all of it in the buffer, so the insert never allocates and closing
  // can't throw. The constructor opens it first, so the common case (one
  // apply() per serializer) makes no out-of-line call until the close.

  static constexpr size_t scratch_size = 128;

  /// Counts nested public calls; the outermost closes the scratch array.
  struct call_scope {
    explicit call_scope(binary_serializer& s) noexcept : self(s) {
      ++self.depth_;
    }
    ~call_scope() {
      if (--self.depth_ == 0 && self.pos_ != nullptr)
        self.close_scratch();
    }
    binary_serializer& self;
  };

public:
  class batch {
  public:
    explicit batch(binary_serializer& s) noexcept : scope_(s) {}

  private:
    call_scope scope_;
  };

private:
  /// Room for `n` <= scratch_size bytes at the write position, which moves
  /// past them.
  std::byte* claim(size_t n) {
    if (static_cast<size_t>(end_ - pos_) < n) [[unlikely]]
      open_scratch();
    auto* result = pos_;
    pos_ += n;
    return result;
  }

  /// Flushes the scratch array and starts an empty one.
  void open_scratch();

  /// Empties the scratch array, with room reserved for all of it in the
  /// buffer.
  void start_scratch() {
    if (buf_->capacity() - buf_->size() < scratch_size) [[unlikely]]
      reserve_scratch();
    pos_ = scratch_;
    end_ = scratch_ + scratch_size;
  }

  /// Grows the buffer so that a full scratch array fits beyond its size.
  void reserve_scratch();

  /// Appends the scratch array's bytes to the buffer. Out of line, so that
  /// the inlined call scopes stay small.
  void close_scratch() noexcept;

  /// A varint length, then `n` bytes.
  void write_bytes(const void* data, size_t n) {
    write_varint(n);
    if (n <= 16) {
      copy_small(claim(n), static_cast<const std::byte*>(data), n);
      return;
    }
    if (n <= scratch_size) {
      std::memcpy(claim(n), data, n);
      return;
    }
    close_scratch();
    auto* first = static_cast<const std::byte*>(data);
    buf_->insert(buf_->end(), first, first + n);
  }

  /// Copies `n` <= 16 bytes with at most two loads and two stores, which
  /// beats a call to memcpy for the short strings most fields hold.
  static void copy_small(std::byte* dst, const std::byte* src, size_t n) noexcept {
    auto copy2 = [&]<class Word>(Word) {
      Word head;
      Word tail;
      std::memcpy(&head, src, sizeof(Word));
      std::memcpy(&tail, src + n - sizeof(Word), sizeof(Word));
      std::memcpy(dst, &head, sizeof(Word));
      std::memcpy(dst + n - sizeof(Word), &tail, sizeof(Word));
    };
    if (n >= 8)
      copy2(uint64_t{});
    else if (n >= 4)
      copy2(uint32_t{});
    else if (n >= 2)
      copy2(uint16_t{});
    else if (n == 1)
      *dst = *src;
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
  /// The write position in scratch_ and the array's end; both null while
  /// it is not open.
  std::byte* pos_ = nullptr;
  std::byte* end_ = nullptr;
  size_t depth_ = 0;
  detail::actor_codec* codec_ = nullptr;
  error err_;
  std::byte scratch_[scratch_size];
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

/// The binary form of `x`.
template <class T>
expected<byte_buffer> to_binary(const T& x) {
  byte_buffer buf;
  if (auto err = to_binary(x, buf))
    return err;
  return buf;
}

} // namespace troupe

// Last: it includes the other serialization headers (see there).
#include "troupe/detail/meta_object_hooks.hpp"
