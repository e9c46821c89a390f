#pragma once

// Reads values in the binary format of binary_serializer.hpp from a span of
// bytes it does not own:
//
//   auto x = troupe::from_binary<my_type>(bytes);     // expected<my_type>
//   if (auto err = troupe::from_binary(bytes, x))     // x unchanged on error
//     ...
//
// The input is untrusted: every length is checked against the bytes left
// (a sequence may not claim more elements than the rest of the input can
// hold at its elements' minimum size), so truncated, oversized or random
// input yields an error naming the field path and what failed
// ("bar.b: length 4000000000 exceeds the 12 bytes left") and never an
// overread or an allocation the input can't justify.

#include "troupe/detail/field_path.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/binary_serializer.hpp"
#include "troupe/serialization/inspect.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace troupe {

class binary_deserializer : public load_inspector<binary_deserializer> {
public:
  static constexpr bool has_human_readable_format = false;

  /// Elements that take no bytes (empty classes) cost the input nothing, so
  /// their count is capped instead.
  static constexpr size_t max_empty_elements = 65536;

  /// Sequences, maps and messages nest at most this deep: loading recurses
  /// once per level, and recursive types (which need one of the three)
  /// would otherwise let a few hundred KB of input overflow the stack.
  static constexpr size_t max_nesting = 256;

  /// Reads from `input`, which must outlive the deserializer.
  explicit binary_deserializer(std::span<const std::byte> input) noexcept
    : pos_(input.data()), end_(input.data() + input.size()) {}

  binary_deserializer(const binary_deserializer&) = delete;
  binary_deserializer& operator=(const binary_deserializer&) = delete;

  size_t remaining() const noexcept {
    return static_cast<size_t>(end_ - pos_);
  }

  std::span<const std::byte> remainder() const noexcept {
    return {pos_, end_};
  }

  /// Keeps the first error.
  void set_error(error err);

  /// The first error, with the path to where it happened ("bar.a: ") in
  /// front of its context.
  const error& get_error() const;

  // Failures record the path on their way out (see inspect.hpp).
  void field_failed(std::string_view name) noexcept {
    path_.add_field(name);
  }

  void object_failed(std::string_view type_name) noexcept {
    path_.add_object(type_name);
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

  bool begin_field(std::string_view, bool& is_present) {
    return read_flag(is_present, "presence byte");
  }

  bool end_field() noexcept {
    return true;
  }

  // -- framing -------------------------------------------------------------------

  bool begin_optional(bool& is_present) {
    return read_flag(is_present, "presence byte");
  }

  bool end_optional() noexcept {
    return true;
  }

  bool begin_variant(size_t& index, std::span<const std::string_view> types) {
    uint64_t x = 0;
    if (!read_varint(x))
      return false;
    if (x >= types.size())
      return fail_variant_index(x, types.size());
    index = static_cast<size_t>(x);
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

  bool begin_sequence(size_t& size, size_t min_element_size) {
    return enter() && read_count(size, min_element_size);
  }

  bool end_sequence() noexcept {
    return leave();
  }

  bool begin_associative_array(size_t& size, size_t min_entry_size) {
    return enter() && read_count(size, min_entry_size);
  }

  bool end_associative_array() noexcept {
    return leave();
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
  bool value(T& x) {
    if constexpr (std::is_same_v<T, bool>) {
      return read_flag(x, "bool byte");
    } else if constexpr (std::is_same_v<T, long double>) {
      return read_long_double(x);
    } else {
      using wire = detail::wire_uint_t<T>;
      if (remaining() < sizeof(wire)) [[unlikely]]
        return fail_truncated(sizeof(wire));
      wire bits;
      std::memcpy(&bits, pos_, sizeof(wire));
      pos_ += sizeof(wire);
      x = std::bit_cast<T>(detail::to_little_endian(bits));
      return true;
    }
  }

  bool value(std::string& x) {
    return read_units(x);
  }

  bool value(std::u16string& x) {
    return read_units(x);
  }

  bool value(std::u32string& x) {
    return read_units(x);
  }

  bool value(std::vector<std::byte>& x) {
    return read_units(x);
  }

  /// Reads the type IDs, checks that each is known and loadable, then builds
  /// the message in one allocation.
  bool value(message& x);

  /// An actor handle, through the codec set with set_actor_codec; without
  /// one, an errc::unsupported_type error.
  bool actor_handle(strong_actor_ptr& x);

  /// The codec actor handles go through; null (the default) refuses them.
  void set_actor_codec(detail::actor_codec* codec) noexcept {
    codec_ = codec;
  }

  /// Type IDs in messages are the writer's: `map[id]` is the local ID of
  /// the writer's `id` (invalid_type_id where this program has no type of
  /// that name). Empty (the default): the IDs are local.
  void set_type_map(std::span<const type_id_t> map) noexcept {
    type_map_ = map;
  }

  // -- raw decoding --------------------------------------------------------------

  bool read_varint(uint64_t& x) {
    if (pos_ != end_ && static_cast<uint8_t>(*pos_) < 0x80) [[likely]] {
      x = static_cast<uint8_t>(*pos_++);
      return true;
    }
    return read_long_varint(x);
  }

  /// Reads a count of elements of at least `min_size` bytes each.
  bool read_count(size_t& count, size_t min_size) {
    uint64_t n = 0;
    if (!read_varint(n))
      return false;
    if (min_size > 0 ? n > remaining() / min_size : n > max_empty_elements) [[unlikely]]
      return fail_count(n, min_size);
    count = static_cast<size_t>(n);
    return true;
  }

private:
  bool enter() {
    if (++nesting_ <= max_nesting) [[likely]]
      return true;
    return fail_nesting();
  }

  bool leave() noexcept {
    --nesting_;
    return true;
  }

  bool read_flag(bool& x, const char* what) {
    if (pos_ == end_) [[unlikely]]
      return fail_truncated(1);
    auto byte = static_cast<uint8_t>(*pos_);
    if (byte > 1) [[unlikely]]
      return fail_flag(byte, what);
    ++pos_;
    x = byte == 1;
    return true;
  }

  /// A varint length, then that many code units of `Container`.
  template <class Container>
  bool read_units(Container& x) {
    using unit = typename Container::value_type;
    size_t n = 0;
    if (!read_count(n, sizeof(unit)))
      return false;
    if constexpr (sizeof(unit) == 1) {
      auto* first = reinterpret_cast<const unit*>(pos_);
      if constexpr (requires { x.append(first, n); }) {
        // Strings: clear + append skips assign's aliasing checks (the input
        // is never inside x).
        x.clear();
        x.append(first, n);
      } else {
        x.assign(first, first + n);
      }
      pos_ += n;
    } else {
      x.resize(n);
      for (auto& c : x) {
        detail::wire_uint_t<unit> bits;
        std::memcpy(&bits, pos_, sizeof(bits));
        pos_ += sizeof(bits);
        c = static_cast<unit>(detail::to_little_endian(bits));
      }
    }
    return true;
  }

  bool read_long_varint(uint64_t& x);

  bool read_long_double(long double& x);

  // Failures: cold, out of line; each sets the error and returns false.
  bool fail_truncated(size_t needed);
  bool fail_count(uint64_t count, size_t min_size);
  bool fail_flag(uint8_t byte, const char* what);
  bool fail_variant_index(uint64_t index, size_t alternatives);
  bool fail_nesting();

  bool load_message(message& x);

  const std::byte* pos_;
  const std::byte* end_;
  size_t nesting_ = 0;
  detail::actor_codec* codec_ = nullptr;
  std::span<const type_id_t> type_map_;
  // get_error() puts the path into the error once, when asked.
  mutable detail::field_path path_;
  mutable error err_;
};

namespace detail {

template <class T>
error load_all_binary(std::span<const std::byte> bytes, T& x) {
  binary_deserializer source{bytes};
  if (!source.apply(x))
    return source.get_error();
  if (source.remaining() > 0)
    return make_error(errc::malformed_input,
                      std::to_string(source.remaining()) + " bytes left after the value");
  return {};
}

} // namespace detail

/// Loads `x` from all of `bytes` (trailing bytes are an error); `x` keeps its
/// old value unless loading succeeds.
template <class T>
error from_binary(std::span<const std::byte> bytes, T& x) {
  static_assert(std::is_default_constructible_v<T>,
                "troupe: from_binary loads into a default-constructed temporary");
  T tmp{};
  if (auto err = detail::load_all_binary(bytes, tmp))
    return err;
  x = std::move(tmp);
  return {};
}

/// The value encoded by all of `bytes`.
template <class T>
expected<T> from_binary(std::span<const std::byte> bytes) {
  T result{};
  if (auto err = detail::load_all_binary(bytes, result))
    return err;
  return result;
}

} // namespace troupe

// Last: it includes the other serialization headers (see there).
#include "troupe/detail/meta_object_hooks.hpp"
