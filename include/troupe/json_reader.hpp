#pragma once

// Reads values from JSON text in the format of json_writer.hpp:
//
//   auto x = troupe::from_json<my_type>(text);     // expected<my_type>
//   if (auto err = troupe::from_json(text, x))     // x unchanged on error
//     ...
//
// The input is untrusted and read strictly, like the binary format. Each of
// these is an error whose context names the field path and what failed
// ("config.peers[2].port: expected an integer from 0 to 65535, got 70000"):
//   - text that is not JSON (errc::parse_error, with simdjson's reason);
//   - a value of the wrong JSON type, a number out of range for its C++
//     type, an integer written with a fraction or exponent, a tuple of the
//     wrong length, a string that no enumerator, variant alternative or type
//     is named (errc::malformed_input; unknown message types
//     errc::unsupported_type);
//   - a mandatory field that is missing, a field that the type does not
//     have, a field given twice (errc::malformed_input): unknown fields are
//     errors, not ignored, so that a misspelt optional field can't pass
//     silently as absent;
//   - a value that breaks its field's invariant (errc::invalid_field).
// An optional or `.fallback(v)` field may be absent or null: both read as
// absent (so std::optional<std::optional<T>> reads an inner empty optional
// back as an outer one). Leniencies, so that hand-written JSON reads: an
// integer in a floating-point field, and a duration in any unit it holds
// exactly ("1s" in milliseconds), including fractions ("1.5ms").
// The entry points load into a temporary: on error the target is unchanged.

#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/serialization/inspect.hpp"
#include "troupe/json_writer.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace troupe {

class json_reader : public load_inspector<json_reader> {
public:
  static constexpr bool has_human_readable_format = true;

  /// Documents nested deeper than this are rejected when parsed.
  static constexpr size_t max_depth = 256;

  json_reader();
  ~json_reader();

  json_reader(const json_reader&) = delete;
  json_reader& operator=(const json_reader&) = delete;

  /// Parses `json` (the reader keeps no reference to it); the next apply()
  /// loads from its root value. False on a syntax error (see get_error()).
  bool load(std::string_view json);

  /// Reads and parses the file at `path`, as load() does with its text.
  /// False if the file cannot be read (errc::invalid_argument, naming the
  /// path and the reason) or on a syntax error.
  bool load_file(const std::string& path);

  /// True once the root value was read whole.
  bool done() const noexcept;

  /// Keeps the first error and puts the current path in front of its
  /// context.
  void set_error(error err);

  const error& get_error() const noexcept {
    return err_;
  }

  // -- objects and fields ------------------------------------------------------

  bool begin_object(type_id_t type, std::string_view name);
  bool end_object();
  bool begin_field(std::string_view name);
  bool begin_field(std::string_view name, bool& is_present);
  bool end_field();

  // -- framing -------------------------------------------------------------------

  bool begin_optional(bool& is_present);
  bool end_optional();
  bool begin_variant(size_t& index, std::span<const std::string_view> types);
  bool end_variant();
  bool begin_tuple(size_t size);
  bool end_tuple();
  bool begin_sequence(size_t& size, size_t min_element_size);
  bool end_sequence();
  bool begin_associative_array(size_t& size, size_t min_entry_size);
  bool end_associative_array();
  bool begin_key_value_pair();
  bool end_key_value_pair();

  // -- values ----------------------------------------------------------------------

  template <class T>
    requires std::is_arithmetic_v<T>
  bool value(T& x) {
    using limits = std::numeric_limits<T>;
    if constexpr (std::is_same_v<T, bool>) {
      return read_bool(x);
    } else if constexpr (std::is_same_v<T, char>) {
      return read_char(x);
    } else if constexpr (std::is_same_v<T, float>) {
      return read_float(x);
    } else if constexpr (std::is_same_v<T, double>) {
      return read_double(x);
    } else if constexpr (std::is_same_v<T, long double>) {
      return read_long_double(x);
    } else if constexpr (std::is_signed_v<T>) {
      int64_t tmp = 0;
      if (!read_integer(tmp, limits::min(), limits::max()))
        return false;
      x = static_cast<T>(tmp);
      return true;
    } else {
      uint64_t tmp = 0;
      if (!read_unsigned(tmp, limits::max()))
        return false;
      x = static_cast<T>(tmp);
      return true;
    }
  }

  bool value(std::string& x);
  bool value(std::u16string& x);
  bool value(std::u32string& x);
  bool value(std::vector<std::byte>& x);
  bool value(message& x);

  template <class Rep, class Period>
  bool value(std::chrono::duration<Rep, Period>& x) {
    if constexpr (detail::has_duration_text<Rep, Period>()) {
      __int128 count = 0;
      if (!read_duration(count, Period::num, Period::den)
          || !check_range(count, std::numeric_limits<Rep>::min(),
                          std::numeric_limits<Rep>::max(), "the duration"))
        return false;
      x = std::chrono::duration<Rep, Period>{static_cast<Rep>(count)};
      return true;
    } else {
      Rep count{};
      if (!value(count))
        return false;
      x = std::chrono::duration<Rep, Period>{count};
      return true;
    }
  }

  template <class Clock, class Duration>
  bool value(std::chrono::time_point<Clock, Duration>& x) {
    if constexpr (detail::is_iso8601_time_point<Clock, Duration>()) {
      using rep = typename Duration::rep;
      __int128 ticks = 0;
      if (!read_timestamp(ticks, Duration::period::den)
          || !check_range(ticks, std::numeric_limits<rep>::min(),
                          std::numeric_limits<rep>::max(), "the time point"))
        return false;
      x = std::chrono::time_point<Clock, Duration>{Duration{static_cast<rep>(ticks)}};
      return true;
    } else {
      Duration since_epoch{};
      if (!value(since_epoch))
        return false;
      x = std::chrono::time_point<Clock, Duration>{since_epoch};
      return true;
    }
  }

private:
  struct impl;

  bool read_bool(bool& x);
  bool read_char(char& x);
  bool read_integer(int64_t& x, int64_t min, int64_t max);
  bool read_unsigned(uint64_t& x, uint64_t max);
  bool read_float(float& x);
  bool read_double(double& x);
  bool read_long_double(long double& x);
  bool read_duration(__int128& count, intmax_t num, intmax_t den);
  bool read_timestamp(__int128& ticks, intmax_t ticks_per_second);
  /// Fails with "<what> ... out of range" unless min <= x <= max.
  bool check_range(__int128 x, __int128 min, __int128 max, const char* what);

  std::unique_ptr<impl> impl_;
  error err_;
};

namespace detail {

template <class T>
error load_all_json(std::string_view json, T& x) {
  json_reader source;
  if (!source.load(json) || !source.apply(x))
    return source.get_error();
  return {};
}

} // namespace detail

/// Loads `x` from the JSON text `json`; `x` keeps its old value unless
/// loading succeeds.
template <class T>
error from_json(std::string_view json, T& x) {
  static_assert(std::is_default_constructible_v<T>,
                "troupe: from_json loads into a default-constructed temporary");
  T tmp{};
  if (auto err = detail::load_all_json(json, tmp))
    return err;
  x = std::move(tmp);
  return {};
}

/// The value of the JSON text `json`.
template <class T>
expected<T> from_json(std::string_view json) {
  T result{};
  if (auto err = detail::load_all_json(json, result))
    return err;
  return result;
}

} // namespace troupe

// Last: it includes the other serialization headers (see there).
#include "troupe/detail/meta_object_hooks.hpp"
