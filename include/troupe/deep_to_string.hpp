#pragma once

// Writes values as human-readable text, for logs and to_string(message):
//
//   troupe::deep_to_string(foo{1, 2})   // "serialization_types::foo(1, 2)"
//
// Any type with an inspect() (or an inspector_access specialisation) or a
// to_string() found by ADL prints, and so does every standard type
// inspect.hpp knows. The format:
//   object (inspect)      name(value, ...), the fields in inspect() order
//                         without their names, as CAF prints them; name is
//                         the type name, or the pretty_name; a type with
//                         neither prints as (value, ...); an optional field
//                         prints as *value, or null if absent
//   to_string(x)          what it returns; it wins over inspect() (a type's
//                         own text form is the one its author wants read),
//                         so errors, messages, atoms and enums with names
//                         print as everywhere else in Troupe
//   bool, char            true, false; 'c'
//   numbers               as to_string(message) prints them
//   strings               "quoted", with \" \\ \n \t escaped; u16string,
//                         u32string and wstring as UTF-8
//   byte vector           [1, 255], as to_string(message) prints it
//   enum                  its to_string(), else its underlying integer
//   sequence, set         [1, 2, 3]
//   tuple, pair, array    (1, "a")
//   map                   {key = value, ...}
//   optional (no field)   the value, or null
//   variant               the alternative's value
//   expected              the value, or ! and the error, as CAF prints it
//   duration              10ms: the count and the unit of its own period
//                         (ns, us, ms, s, min, h; others in ns), as the
//                         logger and the configuration spell it
//   time point            the duration since its clock's epoch
//   message               message(1, "two", foo(1, 2))
//
// The meta objects print message elements through this inspector when the
// type has an inspect() and no simpler form (see meta_object_hooks.hpp), so
// log lines and to_string(message) show the fields of user types.

#include "troupe/detail/meta_object.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/logger.hpp" // detail::duration_suffix
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

/// Types the stringification inspector prints whole, before any inspect():
/// text and types with a to_string(). Messages are left to value(const
/// message&): message.hpp may not be complete here, which would hide its
/// to_string from this check.
template <class T>
inline constexpr bool prints_whole_v
  = !std::is_arithmetic_v<T> && !std::is_same_v<T, message>
    && (std::is_convertible_v<const T&, std::string_view> || has_to_string<T>::value
        || std::is_same_v<T, std::wstring> || std::is_same_v<T, std::u8string>);

} // namespace detail

class stringification_inspector : public save_inspector<stringification_inspector> {
public:
  static constexpr bool has_human_readable_format = true;

  /// Appends to `out`, which must outlive the inspector.
  explicit stringification_inspector(std::string& out) noexcept : out_(&out) {}

  stringification_inspector(const stringification_inspector&) = delete;
  stringification_inspector& operator=(const stringification_inspector&) = delete;

  /// Keeps the first error (a valueless variant, an inspect() returning
  /// false); printing stops there.
  void set_error(error err);

  const error& get_error() const noexcept {
    return err_;
  }

  /// Writes "<error: ...>" with the error where printing stopped.
  void append_error();

  // -- objects and fields ------------------------------------------------------

  bool begin_object(type_id_t type, std::string_view name);
  bool end_object();
  bool begin_field(std::string_view name);
  bool begin_field(std::string_view name, bool is_present);
  bool end_field();

  // -- framing -------------------------------------------------------------------

  bool begin_optional(bool is_present);
  bool end_optional() noexcept {
    return true;
  }
  bool begin_variant(size_t, std::span<const std::string_view>) noexcept {
    return true;
  }
  bool end_variant() noexcept {
    return true;
  }
  bool begin_tuple(size_t size);
  bool end_tuple();
  bool begin_sequence(size_t size);
  bool end_sequence();
  bool begin_associative_array(size_t size);
  bool end_associative_array();
  bool begin_key_value_pair();
  bool end_key_value_pair();

  // -- values ----------------------------------------------------------------------

  /// Text and types with a to_string(), ahead of inspect() (see inspect.hpp).
  template <class T>
    requires detail::prints_whole_v<T>
  bool builtin_inspect(const T& x) {
    before_value();
    if constexpr (std::is_same_v<T, std::wstring>) {
      if constexpr (sizeof(wchar_t) == sizeof(char32_t))
        append_utf32(std::u32string_view{reinterpret_cast<const char32_t*>(x.data()), x.size()});
      else
        append_utf16(std::u16string_view{reinterpret_cast<const char16_t*>(x.data()), x.size()});
    } else if constexpr (std::is_same_v<T, std::u8string>) {
      detail::stringify_quoted(*out_, std::string_view{reinterpret_cast<const char*>(x.data()),
                                                       x.size()});
    } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
      detail::stringify_quoted(*out_, std::string_view{x});
    } else {
      *out_ += to_string(x);
    }
    return true;
  }

  /// An expected value as CAF prints it: its value, or "!" and its error.
  template <class T>
  bool builtin_inspect(const expected<T>& x) {
    if constexpr (!std::is_void_v<T>)
      if (x)
        return apply(*x);
    before_value();
    if (x) {
      *out_ += "unit";
    } else {
      *out_ += '!';
      *out_ += to_string(x.error());
    }
    return true;
  }

  template <class T>
    requires std::is_arithmetic_v<T>
  bool value(T x) {
    before_value();
    detail::stringify_value(*out_, x);
    return true;
  }

  bool value(std::string_view x);
  bool value(std::u16string_view x);
  bool value(std::u32string_view x);
  bool value(std::span<const std::byte> x);
  bool value(const message& x);

  template <class Rep, class Period>
  bool value(std::chrono::duration<Rep, Period> x) {
    if constexpr (detail::duration_suffix<Period>().empty()) {
      return value(std::chrono::duration_cast<std::chrono::nanoseconds>(x));
    } else {
      before_value();
      detail::stringify_value(*out_, x.count());
      *out_ += detail::duration_suffix<Period>();
      return true;
    }
  }

  template <class Clock, class Duration>
  bool value(std::chrono::time_point<Clock, Duration> x) {
    return value(x.time_since_epoch());
  }

private:
  enum class frame_kind : uint8_t {
    list,  // object, sequence, tuple, map: ", " between entries
    entry, // one map entry: " = " between key and value
    slot,  // a field's value: its separator came before the field
  };

  struct frame {
    frame_kind kind;
    bool first = true;
  };

  /// Writes what comes before a value (or a field) in the innermost frame.
  void before_value();
  void open(char bracket, frame_kind kind = frame_kind::list);
  bool close(char bracket);
  void append_utf16(std::u16string_view x);
  void append_utf32(std::u32string_view x);

  std::string* out_;
  std::vector<frame> stack_;
  error err_;
};

namespace detail {

/// Appends the text of `x` to `out`; a failure (a valueless variant, an
/// inspect() returning false) ends the text with "<error: ...>" where it
/// stopped.
template <class T>
void append_deep_to_string(std::string& out, const T& x) {
  stringification_inspector f{out};
  if (!f.apply(x))
    f.append_error();
}

} // namespace detail

/// The human-readable text of `x` (format above): any type with an
/// inspect(), an inspector_access specialisation or a to_string(), and every
/// standard type that needs no inspect().
template <class T>
std::string deep_to_string(const T& x) {
  std::string out;
  detail::append_deep_to_string(out, x);
  return out;
}

} // namespace troupe

// Last: it includes the other serialization headers (see there).
#include "troupe/detail/meta_object_hooks.hpp"
