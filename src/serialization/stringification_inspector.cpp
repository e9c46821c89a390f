#include "troupe/deep_to_string.hpp"

#include "troupe/message.hpp"

namespace troupe {

void stringification_inspector::set_error(error err) {
  if (!err_)
    err_ = std::move(err);
}

void stringification_inspector::append_error() {
  before_value();
  *out_ += "<error: ";
  *out_ += to_string(err_);
  *out_ += '>';
}

// -- objects and fields ------------------------------------------------------

bool stringification_inspector::begin_object(type_id_t type, std::string_view name) {
  before_value();
  // "anonymous" is what inspect.hpp names a type without ID or pretty_name:
  // printing it would say nothing.
  if (type != invalid_type_id || name != "anonymous")
    *out_ += name;
  *out_ += '(';
  stack_.push_back(frame{frame_kind::list});
  return true;
}

bool stringification_inspector::end_object() {
  return close(')');
}

// Fields print without their names, as CAF's printer does: foo(1, 2).
bool stringification_inspector::begin_field(std::string_view) {
  before_value();
  stack_.push_back(frame{frame_kind::slot});
  return true;
}

// An optional field prints as CAF prints it: *value, or null.
bool stringification_inspector::begin_field(std::string_view, bool is_present) {
  before_value();
  *out_ += is_present ? "*" : "null";
  stack_.push_back(frame{frame_kind::slot});
  return true;
}

bool stringification_inspector::end_field() {
  stack_.pop_back();
  return true;
}

// -- framing -------------------------------------------------------------------

bool stringification_inspector::begin_optional(bool is_present) {
  // A present value prints itself; end_optional has nothing to close.
  if (!is_present) {
    before_value();
    *out_ += "null";
  }
  return true;
}

bool stringification_inspector::begin_tuple(size_t) {
  open('(');
  return true;
}

bool stringification_inspector::end_tuple() {
  return close(')');
}

bool stringification_inspector::begin_sequence(size_t) {
  open('[');
  return true;
}

bool stringification_inspector::end_sequence() {
  return close(']');
}

bool stringification_inspector::begin_associative_array(size_t) {
  open('{');
  return true;
}

bool stringification_inspector::end_associative_array() {
  return close('}');
}

bool stringification_inspector::begin_key_value_pair() {
  before_value();
  stack_.push_back(frame{frame_kind::entry});
  return true;
}

bool stringification_inspector::end_key_value_pair() {
  stack_.pop_back();
  return true;
}

// -- values ----------------------------------------------------------------------

bool stringification_inspector::value(std::string_view x) {
  before_value();
  detail::stringify_quoted(*out_, x);
  return true;
}

bool stringification_inspector::value(std::u16string_view x) {
  before_value();
  append_utf16(x);
  return true;
}

bool stringification_inspector::value(std::u32string_view x) {
  before_value();
  append_utf32(x);
  return true;
}

bool stringification_inspector::value(std::span<const std::byte> x) {
  // As stringify_value prints a byte vector that is a message element.
  open('[');
  for (auto b : x)
    value(static_cast<uint8_t>(b));
  return close(']');
}

bool stringification_inspector::value(const message& x) {
  before_value();
  *out_ += to_string(x);
  return true;
}

// -- framing helpers ---------------------------------------------------------------

void stringification_inspector::before_value() {
  if (stack_.empty())
    return;
  auto& top = stack_.back();
  switch (top.kind) {
    case frame_kind::list:
      if (!top.first)
        *out_ += ", ";
      break;
    case frame_kind::entry:
      if (!top.first)
        *out_ += " = ";
      break;
    case frame_kind::slot:
      break;
  }
  top.first = false;
}

void stringification_inspector::open(char bracket, frame_kind kind) {
  before_value();
  *out_ += bracket;
  stack_.push_back(frame{kind});
}

bool stringification_inspector::close(char bracket) {
  stack_.pop_back();
  *out_ += bracket;
  return true;
}

// -- wide strings --------------------------------------------------------------------

namespace {

void append_code_point(std::string& out, char32_t c) {
  if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    c = 0xFFFD; // not a character: the replacement character stands in
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

} // namespace

void stringification_inspector::append_utf16(std::u16string_view x) {
  std::string utf8;
  for (size_t i = 0; i < x.size(); ++i) {
    char32_t c = x[i];
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < x.size() && x[i + 1] >= 0xDC00
        && x[i + 1] <= 0xDFFF) {
      c = 0x10000 + ((c - 0xD800) << 10) + (x[i + 1] - 0xDC00);
      ++i;
    }
    append_code_point(utf8, c);
  }
  detail::stringify_quoted(*out_, utf8);
}

void stringification_inspector::append_utf32(std::u32string_view x) {
  std::string utf8;
  for (auto c : x)
    append_code_point(utf8, c);
  detail::stringify_quoted(*out_, utf8);
}

} // namespace troupe
