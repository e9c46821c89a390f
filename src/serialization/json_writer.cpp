#include "troupe/json_writer.hpp"

#include "troupe/detail/json_text.hpp"
#include "troupe/message.hpp"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace troupe {

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

void append_escaped_char(std::string& out, char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        out += "\\u00";
        out += hex_digits[static_cast<unsigned char>(c) >> 4];
        out += hex_digits[static_cast<unsigned char>(c) & 0xF];
      } else {
        out += c;
      }
  }
}

template <class T>
void append_number(std::string& out, T x) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  out.append(buf, res.ptr);
}

/// Appends `cp` as UTF-8; false for surrogates and values above U+10FFFF.
bool append_code_point(std::string& out, char32_t cp) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
    return false;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return true;
}

} // namespace

void json_writer::set_error(error err) {
  if (err_ || !err)
    return;
  err_ = std::move(err);
  path_.clear();
}

const error& json_writer::get_error() const {
  path_.move_into(err_);
  return err_;
}

// -- framing ---------------------------------------------------------------------

bool json_writer::before_value() {
  if (stack_.empty())
    return true;
  auto& top = stack_.back();
  switch (top.kind) {
    case frame_kind::array:
      if (!top.first)
        *out_ += ',';
      top.first = false;
      return true;
    case frame_kind::entry:
      if (top.first) {
        // A key that is not a string (value(string_view) takes those): the
        // map is an array of [key,value] pairs.
        auto& map = stack_[stack_.size() - 2];
        if (map.form == map_form::undecided) {
          (*out_)[map.bracket] = '[';
          map.form = map_form::array;
        } else if (map.form == map_form::object) {
          set_error(make_error(errc::invalid_argument,
                               "a map whose keys are strings in one entry but not in another"));
          return false;
        }
        top.form = map_form::array;
        top.first = false;
        *out_ += '[';
      } else if (top.form == map_form::array) {
        *out_ += ',';
      }
      return true;
    case frame_kind::slot:
      return true;
    case frame_kind::object:
    case frame_kind::map:
      break;
  }
  set_error(make_error(errc::invalid_argument,
                       top.kind == frame_kind::object
                         ? "a value inside an object without a field"
                         : "a value inside a map without begin_key_value_pair"));
  return false;
}

bool json_writer::pop(frame_kind kind) {
  if (stack_.empty() || stack_.back().kind != kind) {
    set_error(make_error(errc::invalid_argument, "unbalanced begin and end calls"));
    return false;
  }
  stack_.pop_back();
  return true;
}

bool json_writer::begin_object(type_id_t, std::string_view) {
  if (!before_value())
    return false;
  *out_ += '{';
  push(frame_kind::object);
  return true;
}

bool json_writer::end_object() {
  if (!pop(frame_kind::object))
    return false;
  *out_ += '}';
  return true;
}

bool json_writer::begin_field(std::string_view name) {
  if (stack_.empty() || stack_.back().kind != frame_kind::object) {
    set_error(make_error(errc::invalid_argument, "a field outside an object"));
    return false;
  }
  auto& obj = stack_.back();
  if (!obj.first)
    *out_ += ',';
  obj.first = false;
  if (!write_string(name))
    return false;
  *out_ += ':';
  push(frame_kind::slot);
  return true;
}

bool json_writer::begin_field(std::string_view name, bool is_present) {
  if (is_present)
    return begin_field(name);
  // Absent: nothing written, but end_field still pops.
  push(frame_kind::slot);
  return true;
}

bool json_writer::end_field() {
  return pop(frame_kind::slot);
}

bool json_writer::begin_optional(bool is_present) {
  if (!before_value())
    return false;
  if (!is_present)
    *out_ += "null";
  push(frame_kind::slot);
  return true;
}

bool json_writer::end_optional() {
  return pop(frame_kind::slot);
}

bool json_writer::begin_variant(size_t index, std::span<const std::string_view> types) {
  if (!before_value())
    return false;
  *out_ += "{\"@type\":";
  if (index < types.size() && !types[index].empty()) {
    if (!write_string(types[index]))
      return false;
  } else {
    append_number(*out_, index);
  }
  *out_ += ",\"value\":";
  push(frame_kind::slot);
  return true;
}

bool json_writer::end_variant() {
  if (!pop(frame_kind::slot))
    return false;
  *out_ += '}';
  return true;
}

bool json_writer::begin_tuple(size_t) {
  if (!before_value())
    return false;
  *out_ += '[';
  push(frame_kind::array);
  return true;
}

bool json_writer::end_tuple() {
  if (!pop(frame_kind::array))
    return false;
  *out_ += ']';
  return true;
}

bool json_writer::begin_sequence(size_t size) {
  return begin_tuple(size);
}

bool json_writer::end_sequence() {
  return end_tuple();
}

bool json_writer::begin_associative_array(size_t) {
  if (!before_value())
    return false;
  // '{' until a key that is not a string turns it into '['.
  frame map{frame_kind::map};
  map.bracket = out_->size();
  *out_ += '{';
  stack_.push_back(map);
  return true;
}

bool json_writer::end_associative_array() {
  if (stack_.empty() || stack_.back().kind != frame_kind::map)
    return pop(frame_kind::map);
  auto form = stack_.back().form;
  stack_.pop_back();
  *out_ += form == map_form::array ? ']' : '}';
  return true;
}

bool json_writer::begin_key_value_pair() {
  if (stack_.empty() || stack_.back().kind != frame_kind::map) {
    set_error(make_error(errc::invalid_argument, "a map entry outside a map"));
    return false;
  }
  auto& map = stack_.back();
  if (!map.first)
    *out_ += ',';
  map.first = false;
  push(frame_kind::entry);
  return true;
}

bool json_writer::end_key_value_pair() {
  if (stack_.empty() || stack_.back().kind != frame_kind::entry)
    return pop(frame_kind::entry);
  if (stack_.back().form == map_form::array)
    *out_ += ']';
  stack_.pop_back();
  return true;
}

// -- values ----------------------------------------------------------------------

bool json_writer::write_bool(bool x) {
  if (!before_value())
    return false;
  *out_ += x ? "true" : "false";
  return true;
}

bool json_writer::write_char(char x) {
  if (!before_value())
    return false;
  *out_ += '"';
  auto byte = static_cast<unsigned char>(x);
  if (byte < 0x80) {
    append_escaped_char(*out_, x);
  } else {
    // The byte as the code point of the same value (Latin-1).
    append_code_point(*out_, byte);
  }
  *out_ += '"';
  return true;
}

bool json_writer::write_integer(int64_t x) {
  if (!before_value())
    return false;
  append_number(*out_, x);
  return true;
}

bool json_writer::write_unsigned(uint64_t x) {
  if (!before_value())
    return false;
  append_number(*out_, x);
  return true;
}

namespace {

// NaN and the infinities have no JSON number: strings, as in protobuf's
// JSON mapping.
template <class T>
bool append_special(std::string& out, T x) {
  if (std::isnan(x))
    out += "\"NaN\"";
  else if (std::isinf(x))
    out += x > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  else
    return false;
  return true;
}

/// A finite float or double as a JSON number that JSON readers parse back to
/// `x`: "-0" would read as the integer 0, and an integral value in plain
/// digits beyond 64 bits as no number at all, so those get a fraction or an
/// exponent.
template <class T>
void append_real(std::string& out, T x) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  std::string_view text{buf, static_cast<size_t>(res.ptr - buf)};
  if (text.find_first_of(".e") == std::string_view::npos) {
    if (x == 0) {
      out += std::signbit(x) ? "-0.0" : "0";
      return;
    }
    if (text.size() > 16) {
      res = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::scientific);
      text = std::string_view{buf, static_cast<size_t>(res.ptr - buf)};
    }
  }
  out += text;
}

} // namespace

bool json_writer::write_float(float x) {
  if (!before_value())
    return false;
  if (append_special(*out_, x))
    return true;
  // The reader parses numbers as double and rounds to float; the shortest
  // float text survives that in all but rare double-rounding cases, which
  // get the double's text instead.
  std::string text;
  append_real(text, x);
  double parsed = 0;
  std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (static_cast<float>(parsed) == x)
    *out_ += text;
  else
    append_real(*out_, static_cast<double>(x));
  return true;
}

bool json_writer::write_double(double x) {
  if (!before_value())
    return false;
  if (!append_special(*out_, x))
    append_real(*out_, x);
  return true;
}

bool json_writer::write_long_double(long double x) {
  if (!before_value())
    return false;
  if (append_special(*out_, x))
    return true;
  if (std::fabs(x) <= std::numeric_limits<double>::max()
      && static_cast<long double>(static_cast<double>(x)) == x) {
    append_real(*out_, static_cast<double>(x));
    return true;
  }
  // More precise than a JSON number as readers parse it: exact text.
  *out_ += '"';
  append_number(*out_, x);
  *out_ += '"';
  return true;
}

bool json_writer::write_duration(int64_t count, std::string_view unit) {
  if (!before_value())
    return false;
  *out_ += '"';
  append_number(*out_, count);
  *out_ += unit;
  *out_ += '"';
  return true;
}

bool json_writer::write_duration(uint64_t count, std::string_view unit) {
  if (!before_value())
    return false;
  *out_ += '"';
  append_number(*out_, count);
  *out_ += unit;
  *out_ += '"';
  return true;
}

bool json_writer::write_timestamp(int64_t ticks, intmax_t ticks_per_second) {
  std::string text;
  if (!detail::format_iso8601(ticks, ticks_per_second, text)) {
    set_error(make_error(errc::invalid_argument,
                         "time point outside the years 0000 to 9999 of ISO 8601"));
    return false;
  }
  if (!before_value())
    return false;
  *out_ += '"';
  *out_ += text;
  *out_ += '"';
  return true;
}

bool json_writer::write_string(std::string_view x) {
  if (!simdjson::validate_utf8(x.data(), x.size())) {
    set_error(make_error(errc::invalid_argument,
                         "string of " + std::to_string(x.size())
                           + " bytes is not valid UTF-8, which JSON text must be"));
    return false;
  }
  return write_utf8(x);
}

bool json_writer::write_utf8(std::string_view utf8) {
  out_->reserve(out_->size() + utf8.size() + 2);
  *out_ += '"';
  for (char c : utf8)
    append_escaped_char(*out_, c);
  *out_ += '"';
  return true;
}

bool json_writer::value(std::string_view x) {
  if (!stack_.empty() && stack_.back().kind == frame_kind::entry && stack_.back().first) {
    auto& map = stack_[stack_.size() - 2];
    if (map.form != map_form::array) {
      // A string key: the map is an object.
      map.form = map_form::object;
      stack_.back().form = map_form::object;
      stack_.back().first = false;
      if (!write_string(x))
        return false;
      *out_ += ':';
      return true;
    }
  }
  return before_value() && write_string(x);
}

bool json_writer::value(std::u16string_view x) {
  std::string utf8;
  utf8.reserve(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    char32_t cp = x[i];
    if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < x.size() && x[i + 1] >= 0xDC00
        && x[i + 1] <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (x[i + 1] - 0xDC00);
      ++i;
    }
    if (!append_code_point(utf8, cp)) {
      set_error(make_error(errc::invalid_argument,
                           "UTF-16 string has an unpaired surrogate at code unit "
                             + std::to_string(i)));
      return false;
    }
  }
  return before_value() && write_utf8(utf8);
}

bool json_writer::value(std::u32string_view x) {
  std::string utf8;
  utf8.reserve(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    if (!append_code_point(utf8, x[i])) {
      set_error(make_error(errc::invalid_argument,
                           "UTF-32 string has the invalid code point "
                             + std::to_string(static_cast<uint32_t>(x[i])) + " at "
                             + std::to_string(i)));
      return false;
    }
  }
  return before_value() && write_utf8(utf8);
}

bool json_writer::value(std::span<const std::byte> x) {
  if (!before_value())
    return false;
  *out_ += '"';
  detail::append_base64(*out_, x);
  *out_ += '"';
  return true;
}

bool json_writer::value(const message& x) {
  if (write_message(x)) [[likely]]
    return true;
  path_.add_object("message");
  return false;
}

bool json_writer::write_message(const message& x) {
  if (!before_value())
    return false;
  *out_ += '[';
  push(frame_kind::array);
  auto types = x.types();
  if (!types.empty()) {
    auto* ptr = x.raw()->storage();
    for (size_t i = 0; i < types.size(); ++i) {
      auto* meta = detail::global_meta_object(types[i]);
      if (meta->save_json == nullptr) {
        set_error(make_error(errc::unsupported_type,
                             "message element " + std::to_string(i) + " has type "
                               + std::string{meta->type_name}
                               + ", which has no inspect() and can't be serialized"));
        return false;
      }
      before_value();
      *out_ += "{\"@type\":";
      if (!write_string(meta->type_name))
        return false;
      *out_ += ",\"value\":";
      push(frame_kind::slot);
      if (!meta->save_json(*this, ptr)) {
        path_.add_field({}, i);
        return false;
      }
      if (!pop(frame_kind::slot))
        return false;
      *out_ += '}';
      ptr += meta->padded_size;
    }
  }
  if (!pop(frame_kind::array))
    return false;
  *out_ += ']';
  return true;
}

} // namespace troupe
