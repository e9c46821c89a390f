#pragma once

// Writes values as compact JSON text (no whitespace):
//
//   auto text = troupe::to_json(my_value);          // expected<std::string>
//   std::string out;
//   if (auto err = troupe::to_json(my_value, out))  // appends to out
//     ...
//
// The format, read back by json_reader.hpp:
//   object (inspect)      {"field":value,...} in inspect() order; an absent
//                         optional field is left out
//   bool                  true, false
//   integers              numbers; char16_t, char32_t, wchar_t, char8_t too
//   char                  a string of one character ("a"); bytes 0x80-0xFF
//                         as the code points U+0080-U+00FF ("\u00e9")
//   float, double         the shortest number that reads back exactly;
//                         "NaN", "Infinity", "-Infinity" as strings
//   long double           a number if a double holds it exactly, else its
//                         shortest exact text as a string ("0.1")
//   string                a string; u16string and u32string as UTF-8; text
//                         that is not valid Unicode is an error
//   byte vector           a base64 string (RFC 4648, with padding)
//   enum                  its underlying integer, or its name if the enum
//                         opted in with troupe::enum_by_name
//   sequence, set         an array
//   tuple, pair, array    an array of fixed length
//   optional (no field)   null or the value
//   map                   string keys: an object {"key":value,...}; other
//                         keys: an array of [key,value] pairs; an empty map: {}
//   variant               {"@type":"int32_t","value":1}: the alternative's
//                         type name, or its index (a number) if it has no
//                         type ID
//   duration              "250ms": the count and the unit of its own period
//                         (ns, us, ms, s, min, h), the spelling of the
//                         configuration; a number (the count) for other
//                         periods and for floating-point counts
//   system_clock time     ISO 8601 in UTC: "2024-05-01T12:30:00.25Z" (the
//     point               fraction as precise as its duration, trailing zeros
//                         dropped; ns, us, ms or s ticks); other time points
//                         as the duration since their clock's epoch
//   message               [{"@type":"int32_t","value":1},...]

#include "troupe/detail/field_path.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/logger.hpp"
#include "troupe/serialization/inspect.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace troupe {

namespace detail {

/// True for time points json_writer writes as ISO 8601: system_clock with
/// integer ticks of ns, us, ms or s.
template <class Clock, class Duration>
constexpr bool is_iso8601_time_point() {
  using period = typename Duration::period;
  using rep = typename Duration::rep;
  return std::is_same_v<Clock, std::chrono::system_clock> && std::is_integral_v<rep>
         && sizeof(rep) <= sizeof(int64_t) && period::num == 1
         && (period::den == 1 || period::den == 1'000 || period::den == 1'000'000
             || period::den == 1'000'000'000);
}

/// True for durations written as "<count><unit>".
template <class Rep, class Period>
constexpr bool has_duration_text() {
  return std::is_integral_v<Rep> && !std::is_same_v<Rep, bool>
         && !duration_suffix<Period>().empty();
}

} // namespace detail

class json_writer : public save_inspector<json_writer> {
public:
  static constexpr bool has_human_readable_format = true;

  /// Appends to `out`, which must outlive the writer.
  explicit json_writer(std::string& out) noexcept : out_(&out) {}

  json_writer(const json_writer&) = delete;
  json_writer& operator=(const json_writer&) = delete;

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

  bool begin_object(type_id_t type, std::string_view name);
  bool end_object();
  bool begin_field(std::string_view name);
  bool begin_field(std::string_view name, bool is_present);
  bool end_field();

  // -- framing -------------------------------------------------------------------

  bool begin_optional(bool is_present);
  bool end_optional();
  bool begin_variant(size_t index, std::span<const std::string_view> types);
  bool end_variant();
  bool begin_tuple(size_t size);
  bool end_tuple();
  bool begin_sequence(size_t size);
  bool end_sequence();
  bool begin_associative_array(size_t size);
  bool end_associative_array();
  bool begin_key_value_pair();
  bool end_key_value_pair();

  // -- values ----------------------------------------------------------------------

  template <class T>
    requires std::is_arithmetic_v<T>
  bool value(T x) {
    if constexpr (std::is_same_v<T, bool>)
      return write_bool(x);
    else if constexpr (std::is_same_v<T, char>)
      return write_char(x);
    else if constexpr (std::is_same_v<T, float>)
      return write_float(x);
    else if constexpr (std::is_same_v<T, double>)
      return write_double(x);
    else if constexpr (std::is_same_v<T, long double>)
      return write_long_double(x);
    else if constexpr (std::is_signed_v<T>)
      return write_integer(static_cast<int64_t>(x));
    else
      return write_unsigned(static_cast<uint64_t>(x));
  }

  bool value(std::string_view x);
  bool value(std::u16string_view x);
  bool value(std::u32string_view x);
  bool value(std::span<const std::byte> x);
  bool value(const message& x);

  template <class Rep, class Period>
  bool value(std::chrono::duration<Rep, Period> x) {
    if constexpr (detail::has_duration_text<Rep, Period>()) {
      if constexpr (std::is_signed_v<Rep>)
        return write_duration(static_cast<int64_t>(x.count()), detail::duration_suffix<Period>());
      else
        return write_duration(static_cast<uint64_t>(x.count()), detail::duration_suffix<Period>());
    } else {
      return value(x.count());
    }
  }

  template <class Clock, class Duration>
  bool value(std::chrono::time_point<Clock, Duration> x) {
    if constexpr (detail::is_iso8601_time_point<Clock, Duration>())
      return write_timestamp(static_cast<int64_t>(x.time_since_epoch().count()),
                             Duration::period::den);
    else
      return value(x.time_since_epoch());
  }

private:
  enum class frame_kind : uint8_t {
    object,   // {"field":value,...}
    array,    // sequence, tuple, message, map entry as [key,value]
    map,      // object or array of pairs, decided by the first key
    entry,    // one map entry whose key decides the map's form
    slot,     // exactly one value follows, no separator (field, optional, ...)
  };

  enum class map_form : uint8_t { undecided, object, array };

  struct frame {
    explicit frame(frame_kind k) : kind(k) {}

    frame_kind kind;
    bool first = true;
    // map: the form and where its opening bracket is; entry: key written.
    map_form form = map_form::undecided;
    size_t bracket = 0;
  };

  /// Writes what comes before a value: a comma, or a map entry's opening.
  bool before_value();
  void push(frame_kind kind) {
    stack_.push_back(frame{kind});
  }
  bool pop(frame_kind kind);

  bool write_bool(bool x);
  bool write_char(char x);
  bool write_integer(int64_t x);
  bool write_unsigned(uint64_t x);
  bool write_float(float x);
  bool write_double(double x);
  bool write_long_double(long double x);
  bool write_duration(int64_t count, std::string_view unit);
  bool write_duration(uint64_t count, std::string_view unit);
  bool write_timestamp(int64_t ticks, intmax_t ticks_per_second);
  /// A JSON string; fails unless `x` is valid UTF-8.
  bool write_string(std::string_view x);
  bool write_utf8(std::string_view utf8);

  std::string* out_;
  bool write_message(const message& x);

  std::vector<frame> stack_;
  // get_error() puts the path into the error once, when asked.
  mutable detail::field_path path_;
  mutable error err_;
};

/// Appends the JSON text of `x` to `out`; on error `out` keeps its old size.
template <class T>
error to_json(const T& x, std::string& out) {
  auto old_size = out.size();
  json_writer sink{out};
  if (sink.apply(x))
    return {};
  out.resize(old_size);
  return sink.get_error();
}

/// The JSON text of `x`.
template <class T>
expected<std::string> to_json(const T& x) {
  std::string out;
  if (auto err = to_json(x, out))
    return err;
  return out;
}

} // namespace troupe

// Last: it includes the other serialization headers (see there).
#include "troupe/detail/meta_object_hooks.hpp"
