#include "troupe/json_reader.hpp"

#include "troupe/detail/json_text.hpp"
#include "troupe/message.hpp"
#include "troupe/type_id.hpp"

#include <simdjson.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace troupe {

namespace {

namespace dom = simdjson::dom;

using dom::element_type;

/// What the reader reads next: a JSON value, or a map key (object keys are
/// strings, not values).
struct node {
  node() = default;
  explicit node(dom::element e) : elem(e) {}

  dom::element elem;
  std::string_view key;
  bool is_key = false;
};

enum class frame_kind : uint8_t {
  slot,      // one value: the root, a field, an optional, a variant's value
  object,    // an inspected object: values only through its fields
  array,     // sequence, tuple, message, map as array, map entry [key,value]
  map,       // a map as an object: entries through begin_key_value_pair
  entry,     // one member of such a map: its key, then its value
};

struct frame {
  explicit frame(frame_kind k) : kind(k) {}

  frame_kind kind;
  // slot and entry: the value (entry: after the key).
  node value;
  // slot: read already; entry: 0 key next, 1 value next, 2 both read.
  uint8_t state = 0;
  // slot of a field: its name, for the path.
  std::string_view field;
  // array
  dom::array arr;
  dom::array::iterator arr_pos;
  // object and map
  dom::object obj;
  dom::object::iterator obj_pos;
  // map: the key of the entry handed out last, for the path.
  std::string_view key;
  // object: where its read-marks start in impl::marks.
  size_t marks = 0;
  // array and map: entries handed out so far.
  size_t index = 0;
};

std::string_view type_text(element_type t) {
  switch (t) {
    case element_type::ARRAY:
      return "an array";
    case element_type::OBJECT:
      return "an object";
    case element_type::INT64:
    case element_type::UINT64:
      return "an integer";
    case element_type::DOUBLE:
      return "a number";
    case element_type::STRING:
      return "a string";
    case element_type::BOOL:
      return "a boolean";
    case element_type::NULL_VALUE:
      return "null";
  }
  return "a value";
}

/// `str` in quotes, cut to a readable length at a UTF-8 boundary.
std::string quoted(std::string_view str) {
  constexpr size_t max_size = 40;
  std::string result = "\"";
  if (str.size() <= max_size) {
    result += str;
    result += '"';
    return result;
  }
  auto n = max_size;
  while (n > 0 && (static_cast<unsigned char>(str[n]) & 0xC0) == 0x80)
    --n;
  result += str.substr(0, n);
  result += "\"...";
  return result;
}

/// "got 42", "got an object", "got the key \"a\"".
std::string got(const node& n) {
  if (n.is_key)
    return "got the key " + quoted(n.key);
  auto& e = n.elem;
  char buf[64];
  switch (e.type()) {
    case element_type::INT64: {
      auto res = std::to_chars(buf, buf + sizeof(buf), int64_t{e.get_int64().value_unsafe()});
      return "got " + std::string(buf, res.ptr);
    }
    case element_type::UINT64: {
      auto res = std::to_chars(buf, buf + sizeof(buf), uint64_t{e.get_uint64().value_unsafe()});
      return "got " + std::string(buf, res.ptr);
    }
    case element_type::DOUBLE: {
      auto res = std::to_chars(buf, buf + sizeof(buf), double{e.get_double().value_unsafe()});
      return "got " + std::string(buf, res.ptr);
    }
    case element_type::STRING:
      return "got " + quoted(e.get_string().value_unsafe());
    case element_type::BOOL:
      return e.get_bool().value_unsafe() ? "got true" : "got false";
    default:
      return "got " + std::string{type_text(e.type())};
  }
}

bool is_type(const node& n, element_type t) {
  return !n.is_key && n.elem.type() == t;
}

/// The string of a value or key; false for anything else.
bool string_of(const node& n, std::string_view& out) {
  if (n.is_key) {
    out = n.key;
    return true;
  }
  if (n.elem.type() != element_type::STRING)
    return false;
  out = n.elem.get_string().value_unsafe();
  return true;
}

/// Decodes the code point at `i` of UTF-8 that simdjson validated; false
/// (never an overread) should the text end inside a sequence.
bool next_code_point(std::string_view str, size_t& i, char32_t& cp) {
  auto byte = [&](size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(str[k])); };
  auto lead = byte(i);
  size_t n = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  if (str.size() - i < n)
    return false;
  static constexpr char32_t lead_mask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
  cp = lead & lead_mask[n];
  for (size_t k = 1; k < n; ++k)
    cp = cp << 6 | (byte(i + k) & 0x3F);
  i += n;
  return true;
}

} // namespace

struct json_reader::impl {
  dom::parser parser;
  std::vector<frame> stack;
  // One read-mark per member of every object on the stack.
  std::vector<uint8_t> marks;
  // The outermost object's type name: the path's first word.
  std::string_view root_name;
  bool loaded = false;

  std::string path() const;
};

std::string json_reader::impl::path() const {
  std::string result{root_name};
  for (auto& f : stack) {
    switch (f.kind) {
      case frame_kind::slot:
        if (!f.field.empty()) {
          if (!result.empty())
            result += '.';
          result += f.field;
        }
        break;
      case frame_kind::array:
        if (f.index > 0) {
          result += '[';
          result += std::to_string(f.index - 1);
          result += ']';
        }
        break;
      case frame_kind::map:
        if (f.index > 0) {
          result += '[';
          result += quoted(f.key);
          result += ']';
        }
        break;
      case frame_kind::object:
      case frame_kind::entry:
        break;
    }
  }
  return result;
}

json_reader::json_reader() : impl_(std::make_unique<impl>()) {
  // The depth sticks when the parser grows for larger documents.
  if (auto err = impl_->parser.allocate(4096, max_depth))
    set_error(make_error(errc::runtime_error, std::string{"JSON parser: "}
                                                + simdjson::error_message(err)));
}

json_reader::~json_reader() = default;

void json_reader::set_error(error err) {
  if (err_ || !err)
    return;
  err_ = std::move(err);
  auto path = impl_->path();
  if (!path.empty()) {
    path += ": ";
    err_.prepend_context(path);
  }
}

namespace {

template <class... Ts>
bool fail(json_reader& f, errc code, Ts&&... parts) {
  std::string context;
  (context += ... += parts);
  f.set_error(make_error(code, std::move(context)));
  return false;
}

} // namespace

bool json_reader::load(std::string_view json) {
  if (err_)
    return false;
  auto& d = *impl_;
  d.stack.clear();
  d.marks.clear();
  d.root_name = {};
  d.loaded = false;
  dom::element root;
  if (auto code = d.parser.parse(json.data(), json.size()).get(root)) {
    if (code == simdjson::DEPTH_ERROR)
      return fail(*this, errc::parse_error, "not valid JSON: nested deeper than ",
                  std::to_string(max_depth), " levels");
    return fail(*this, errc::parse_error, "not valid JSON: ", simdjson::error_message(code));
  }
  frame f{frame_kind::slot};
  f.value.elem = root;
  d.stack.push_back(f);
  d.loaded = true;
  return true;
}

bool json_reader::load_file(const std::string& path) {
  if (err_)
    return false;
  simdjson::padded_string text;
  if (auto code = simdjson::padded_string::load(path).get(text))
    return fail(*this, errc::invalid_argument, "cannot read JSON file ", path, ": ",
                simdjson::error_message(code));
  return load(std::string_view{text});
}

bool json_reader::done() const noexcept {
  auto& d = *impl_;
  return d.loaded && d.stack.size() == 1 && d.stack.front().state == 1;
}

// -- the cursor -------------------------------------------------------------------

namespace {

/// Hands out the next value of the innermost frame.
bool next(json_reader& f, std::vector<frame>& stack, node& out) {
  if (stack.empty())
    return fail(f, errc::invalid_argument, "no JSON document loaded");
  auto& top = stack.back();
  switch (top.kind) {
    case frame_kind::slot:
      if (top.state != 0)
        break;
      top.state = 1;
      out = top.value;
      return true;
    case frame_kind::array:
      if (top.arr_pos == top.arr.end())
        return fail(f, errc::malformed_input, "the array has only ", std::to_string(top.index),
                    " elements");
      out = node{*top.arr_pos};
      ++top.arr_pos;
      ++top.index;
      return true;
    case frame_kind::entry:
      if (top.state == 0) {
        out = node{};
        out.key = top.value.key;
        out.is_key = true;
        top.state = 1;
        return true;
      }
      if (top.state != 1)
        break;
      out = node{top.value.elem};
      top.state = 2;
      return true;
    case frame_kind::object:
    case frame_kind::map:
      break;
  }
  return fail(f, errc::invalid_argument, "inspect() read a value its JSON has no place for");
}

/// Hands out the next value, which must have JSON type `t`.
bool next_of(json_reader& f, std::vector<frame>& stack, element_type t, node& out) {
  if (!next(f, stack, out))
    return false;
  if (!is_type(out, t))
    return fail(f, errc::malformed_input, "expected ", type_text(t), ", ", got(out));
  return true;
}

/// The member of `obj` named `name`, and its position.
bool find_member(const dom::object& obj, std::string_view name, dom::element& out,
                 size_t& pos) {
  size_t i = 0;
  for (auto member : obj) {
    if (member.key == name) {
      out = member.value;
      pos = i;
      return true;
    }
    ++i;
  }
  return false;
}

/// The first key that appears twice in `obj`, if any.
bool find_duplicate(const dom::object& obj, std::string_view& dup) {
  auto n = obj.size();
  if (n < 2)
    return false;
  std::vector<std::string_view> keys;
  keys.reserve(n);
  for (auto member : obj)
    keys.push_back(member.key);
  std::sort(keys.begin(), keys.end());
  auto i = std::adjacent_find(keys.begin(), keys.end());
  if (i == keys.end())
    return false;
  dup = *i;
  return true;
}

bool pop(json_reader& f, std::vector<frame>& stack, frame_kind kind) {
  if (stack.empty() || stack.back().kind != kind)
    return fail(f, errc::invalid_argument, "inspect() called begin and end unbalanced");
  stack.pop_back();
  return true;
}

} // namespace

// -- objects and fields ------------------------------------------------------------

bool json_reader::begin_object(type_id_t, std::string_view name) {
  auto& d = *impl_;
  node n;
  if (!next_of(*this, d.stack, element_type::OBJECT, n))
    return false;
  // Only a root object names the path ("bar.a"); below arrays it starts
  // with the position ("[1].a").
  if (d.stack.size() == 1)
    d.root_name = name;
  auto obj = n.elem.get_object().value_unsafe();
  if (std::string_view dup; find_duplicate(obj, dup))
    return fail(*this, errc::malformed_input, "the field ", quoted(dup), " appears twice");
  frame f{frame_kind::object};
  f.obj = obj;
  f.marks = d.marks.size();
  d.marks.resize(d.marks.size() + obj.size(), 0);
  d.stack.push_back(f);
  return true;
}

bool json_reader::end_object() {
  auto& d = *impl_;
  if (d.stack.empty() || d.stack.back().kind != frame_kind::object)
    return pop(*this, d.stack, frame_kind::object);
  auto& top = d.stack.back();
  size_t i = 0;
  for (auto member : top.obj) {
    if (d.marks[top.marks + i] == 0)
      return fail(*this, errc::malformed_input, "unknown field ", quoted(member.key));
    ++i;
  }
  d.marks.resize(top.marks);
  d.stack.pop_back();
  return true;
}

namespace {

/// Looks up field `name` of the innermost object; marks it read.
bool find_field(json_reader& f, std::vector<frame>& stack, std::vector<uint8_t>& marks,
                std::string_view name, dom::element& out, bool& found) {
  if (stack.empty() || stack.back().kind != frame_kind::object)
    return fail(f, errc::invalid_argument, "inspect() read the field ", quoted(name),
                " outside an object");
  auto& obj = stack.back();
  size_t pos = 0;
  found = find_member(obj.obj, name, out, pos);
  if (found)
    marks[obj.marks + pos] = 1;
  return true;
}

void push_field(std::vector<frame>& stack, std::string_view name, dom::element value,
                bool read) {
  frame f{frame_kind::slot};
  f.value.elem = value;
  f.field = name;
  f.state = read ? 1 : 0;
  stack.push_back(f);
}

} // namespace

bool json_reader::begin_field(std::string_view name) {
  auto& d = *impl_;
  dom::element value;
  bool found = false;
  if (!find_field(*this, d.stack, d.marks, name, value, found))
    return false;
  if (!found)
    return fail(*this, errc::malformed_input, "the mandatory field ", quoted(name),
                " is missing");
  push_field(d.stack, name, value, false);
  return true;
}

bool json_reader::begin_field(std::string_view name, bool& is_present) {
  auto& d = *impl_;
  dom::element value;
  bool found = false;
  if (!find_field(*this, d.stack, d.marks, name, value, found))
    return false;
  // Absent and null read alike; an absent field's slot has nothing to read.
  is_present = found && value.type() != element_type::NULL_VALUE;
  push_field(d.stack, name, value, !is_present);
  return true;
}

bool json_reader::end_field() {
  return pop(*this, impl_->stack, frame_kind::slot);
}

// -- framing -------------------------------------------------------------------------

bool json_reader::begin_optional(bool& is_present) {
  auto& d = *impl_;
  node n;
  if (!next(*this, d.stack, n))
    return false;
  is_present = !is_type(n, element_type::NULL_VALUE);
  frame f{frame_kind::slot};
  f.value = n;
  f.state = is_present ? 0 : 1;
  d.stack.push_back(f);
  return true;
}

bool json_reader::end_optional() {
  return pop(*this, impl_->stack, frame_kind::slot);
}

namespace {

std::string alternatives_text(std::span<const std::string_view> types) {
  std::string result;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0)
      result += ", ";
    if (types[i].empty())
      result += std::to_string(i);
    else
      result += quoted(types[i]);
  }
  return result;
}

} // namespace

bool json_reader::begin_variant(size_t& index, std::span<const std::string_view> types) {
  auto& d = *impl_;
  node n;
  if (!next_of(*this, d.stack, element_type::OBJECT, n))
    return false;
  auto obj = n.elem.get_object().value_unsafe();
  dom::element tag;
  dom::element value;
  size_t pos = 0;
  for (auto member : obj)
    if (member.key != "@type" && member.key != "value")
      return fail(*this, errc::malformed_input, "a variant has the members \"@type\" and ",
                  "\"value\" only, got ", quoted(member.key));
  if (obj.size() != 2 || !find_member(obj, "@type", tag, pos)
      || !find_member(obj, "value", value, pos))
    return fail(*this, errc::malformed_input,
                "expected a variant {\"@type\": ..., \"value\": ...}, got an object of ",
                std::to_string(obj.size()), " members");
  if (tag.type() == element_type::STRING) {
    auto name = tag.get_string().value_unsafe();
    auto i = std::find(types.begin(), types.end(), name);
    if (name.empty() || i == types.end())
      return fail(*this, errc::malformed_input, "the variant has no alternative ", quoted(name),
                  " (alternatives: ", alternatives_text(types), ")");
    index = static_cast<size_t>(i - types.begin());
  } else if (tag.type() == element_type::INT64 || tag.type() == element_type::UINT64) {
    auto i = tag.type() == element_type::INT64
               ? static_cast<uint64_t>(tag.get_int64().value_unsafe())
               : tag.get_uint64().value_unsafe();
    if (tag.type() == element_type::INT64 && tag.get_int64().value_unsafe() < 0)
      i = types.size();
    if (i >= types.size())
      return fail(*this, errc::malformed_input, "variant index ", got(node{tag}).substr(4),
                  " is out of range for ", std::to_string(types.size()), " alternatives");
    index = static_cast<size_t>(i);
  } else {
    return fail(*this, errc::malformed_input,
                "expected the variant's \"@type\" as a type name or index, ", got(node{tag}));
  }
  frame f{frame_kind::slot};
  f.value.elem = value;
  d.stack.push_back(f);
  return true;
}

bool json_reader::end_variant() {
  return pop(*this, impl_->stack, frame_kind::slot);
}

namespace {

void push_array(std::vector<frame>& stack, dom::array arr) {
  frame f{frame_kind::array};
  f.arr = arr;
  f.arr_pos = arr.begin();
  stack.push_back(f);
}

} // namespace

bool json_reader::begin_tuple(size_t size) {
  auto& d = *impl_;
  node n;
  if (!next_of(*this, d.stack, element_type::ARRAY, n))
    return false;
  auto arr = n.elem.get_array().value_unsafe();
  if (arr.size() != size)
    return fail(*this, errc::malformed_input, "expected an array of ", std::to_string(size),
                " elements, got ", std::to_string(arr.size()));
  push_array(d.stack, arr);
  return true;
}

bool json_reader::end_tuple() {
  return pop(*this, impl_->stack, frame_kind::array);
}

bool json_reader::begin_sequence(size_t& size, size_t) {
  auto& d = *impl_;
  node n;
  if (!next_of(*this, d.stack, element_type::ARRAY, n))
    return false;
  auto arr = n.elem.get_array().value_unsafe();
  size = arr.size();
  push_array(d.stack, arr);
  return true;
}

bool json_reader::end_sequence() {
  return pop(*this, impl_->stack, frame_kind::array);
}

bool json_reader::begin_associative_array(size_t& size, size_t) {
  auto& d = *impl_;
  node n;
  if (!next(*this, d.stack, n))
    return false;
  if (is_type(n, element_type::OBJECT)) {
    frame f{frame_kind::map};
    f.obj = n.elem.get_object().value_unsafe();
    f.obj_pos = f.obj.begin();
    size = f.obj.size();
    d.stack.push_back(f);
    return true;
  }
  if (is_type(n, element_type::ARRAY)) {
    auto arr = n.elem.get_array().value_unsafe();
    size = arr.size();
    push_array(d.stack, arr);
    return true;
  }
  return fail(*this, errc::malformed_input,
              "expected a map (an object, or an array of [key, value] pairs), ", got(n));
}

bool json_reader::end_associative_array() {
  auto& d = *impl_;
  if (!d.stack.empty() && d.stack.back().kind == frame_kind::map)
    return pop(*this, d.stack, frame_kind::map);
  return pop(*this, d.stack, frame_kind::array);
}

bool json_reader::begin_key_value_pair() {
  auto& d = *impl_;
  if (!d.stack.empty() && d.stack.back().kind == frame_kind::map) {
    auto& map = d.stack.back();
    if (map.obj_pos == map.obj.end())
      return fail(*this, errc::invalid_argument, "inspect() read more map entries than given");
    frame f{frame_kind::entry};
    f.value.key = map.obj_pos.key();
    f.value.elem = map.obj_pos.value();
    map.key = f.value.key;
    ++map.obj_pos;
    ++map.index;
    d.stack.push_back(f);
    return true;
  }
  node n;
  if (!next_of(*this, d.stack, element_type::ARRAY, n))
    return false;
  auto arr = n.elem.get_array().value_unsafe();
  if (arr.size() != 2)
    return fail(*this, errc::malformed_input, "expected a [key, value] pair, got an array of ",
                std::to_string(arr.size()), " elements");
  push_array(d.stack, arr);
  return true;
}

bool json_reader::end_key_value_pair() {
  auto& d = *impl_;
  if (!d.stack.empty() && d.stack.back().kind == frame_kind::entry)
    return pop(*this, d.stack, frame_kind::entry);
  return pop(*this, d.stack, frame_kind::array);
}

// -- values -----------------------------------------------------------------------------

bool json_reader::read_bool(bool& x) {
  node n;
  if (!next_of(*this, impl_->stack, element_type::BOOL, n))
    return false;
  x = n.elem.get_bool().value_unsafe();
  return true;
}

bool json_reader::read_char(char& x) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  std::string_view str;
  size_t i = 0;
  char32_t cp = 0;
  if (string_of(n, str) && !str.empty() && next_code_point(str, i, cp)) {
    if (i == str.size() && cp <= 0xFF) {
      x = static_cast<char>(cp);
      return true;
    }
  }
  return fail(*this, errc::malformed_input,
              "expected a string of one character (U+0000 to U+00FF), ", got(n));
}

namespace {

std::string range_text(long double min, long double max) {
  char buf[128];
  auto n = std::snprintf(buf, sizeof(buf), "%.0Lf to %.0Lf", min, max);
  return std::string(buf, static_cast<size_t>(n));
}

} // namespace

bool json_reader::read_integer(int64_t& x, int64_t min, int64_t max) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  if (is_type(n, element_type::INT64)) {
    auto v = n.elem.get_int64().value_unsafe();
    if (v >= min && v <= max) {
      x = v;
      return true;
    }
  }
  return fail(*this, errc::malformed_input, "expected an integer from ",
              range_text(static_cast<long double>(min), static_cast<long double>(max)), ", ",
              got(n));
}

bool json_reader::read_unsigned(uint64_t& x, uint64_t max) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  if (is_type(n, element_type::INT64)) {
    auto v = n.elem.get_int64().value_unsafe();
    if (v >= 0 && static_cast<uint64_t>(v) <= max) {
      x = static_cast<uint64_t>(v);
      return true;
    }
  } else if (is_type(n, element_type::UINT64)) {
    auto v = n.elem.get_uint64().value_unsafe();
    if (v <= max) {
      x = v;
      return true;
    }
  }
  return fail(*this, errc::malformed_input, "expected an integer from ",
              range_text(0, static_cast<long double>(max)), ", ", got(n));
}

namespace {

/// A JSON number, or one of the strings for NaN and the infinities.
bool number_of(const node& n, double& out) {
  if (n.is_key)
    return false;
  switch (n.elem.type()) {
    case element_type::INT64:
      out = static_cast<double>(n.elem.get_int64().value_unsafe());
      return true;
    case element_type::UINT64:
      out = static_cast<double>(n.elem.get_uint64().value_unsafe());
      return true;
    case element_type::DOUBLE:
      out = n.elem.get_double().value_unsafe();
      return true;
    case element_type::STRING: {
      auto str = n.elem.get_string().value_unsafe();
      if (str == "NaN")
        out = std::numeric_limits<double>::quiet_NaN();
      else if (str == "Infinity")
        out = std::numeric_limits<double>::infinity();
      else if (str == "-Infinity")
        out = -std::numeric_limits<double>::infinity();
      else
        return false;
      return true;
    }
    default:
      return false;
  }
}

/// The JSON number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_number_text(std::string_view str) {
  size_t i = 0;
  auto digits = [&] {
    auto first = i;
    while (i < str.size() && str[i] >= '0' && str[i] <= '9')
      ++i;
    return i - first;
  };
  if (i < str.size() && str[i] == '-')
    ++i;
  auto first = i;
  auto whole = digits();
  if (whole == 0 || (whole > 1 && str[first] == '0'))
    return false;
  if (i < str.size() && str[i] == '.') {
    ++i;
    if (digits() == 0)
      return false;
  }
  if (i < str.size() && (str[i] == 'e' || str[i] == 'E')) {
    ++i;
    if (i < str.size() && (str[i] == '+' || str[i] == '-'))
      ++i;
    if (digits() == 0)
      return false;
  }
  return i == str.size();
}

constexpr const char* expected_number
  = "expected a number (or \"NaN\", \"Infinity\", \"-Infinity\"), ";

} // namespace

bool json_reader::read_double(double& x) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  if (!number_of(n, x))
    return fail(*this, errc::malformed_input, expected_number, got(n));
  return true;
}

bool json_reader::read_float(float& x) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  double d = 0;
  if (!number_of(n, d))
    return fail(*this, errc::malformed_input, expected_number, got(n));
  // Beyond FLT_MAX plus half an ulp a double rounds to infinity: out of range.
  constexpr double limit = static_cast<double>(std::numeric_limits<float>::max()) + 0x1p103;
  if (std::isfinite(d) && std::fabs(d) >= limit)
    return fail(*this, errc::malformed_input, "expected a number in the range of float, ",
                got(n));
  if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max())
    x = d > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
  else
    x = static_cast<float>(d);
  return true;
}

bool json_reader::read_long_double(long double& x) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  double d = 0;
  if (number_of(n, d)) {
    x = d;
    return true;
  }
  // More precise values come as text (see json_writer.hpp): a JSON number
  // in a string, parsed by strtold, which (unlike from_chars) keeps
  // subnormal results.
  std::string_view str;
  if (string_of(n, str) && is_number_text(str)) {
    std::string text{str};
    char* end = nullptr;
    errno = 0;
    auto v = std::strtold(text.c_str(), &end);
    if (end == text.c_str() + text.size() && std::isfinite(v) && (errno == 0 || v != 0)) {
      x = v;
      return true;
    }
    return fail(*this, errc::malformed_input, "expected a number in the range of long double, ",
                got(n));
  }
  return fail(*this, errc::malformed_input, expected_number, got(n));
}

bool json_reader::read_duration(__int128& count, intmax_t num, intmax_t den) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  std::string_view str;
  if (!string_of(n, str))
    return fail(*this, errc::malformed_input,
                "expected a duration such as \"10ms\" (units: ns, us, ms, s, min, h), ", got(n));
  if (auto what = detail::parse_duration_text(str, num, den, count); !what.empty())
    return fail(*this, errc::malformed_input, "expected ", what, ", ", got(n));
  return true;
}

bool json_reader::read_timestamp(__int128& ticks, intmax_t ticks_per_second) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  std::string_view str;
  if (!string_of(n, str))
    return fail(*this, errc::malformed_input,
                "expected an ISO 8601 time such as \"2024-05-01T12:30:00Z\", ", got(n));
  if (auto what = detail::parse_iso8601(str, ticks_per_second, ticks); !what.empty())
    return fail(*this, errc::malformed_input, "expected ", what, ", ", got(n));
  return true;
}

bool json_reader::check_range(__int128 x, __int128 min, __int128 max, const char* what) {
  if (x >= min && x <= max)
    return true;
  return fail(*this, errc::malformed_input, what, " is out of range for its type (",
              range_text(static_cast<long double>(min), static_cast<long double>(max)),
              " ticks)");
}

bool json_reader::value(std::string& x) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  std::string_view str;
  if (!string_of(n, str))
    return fail(*this, errc::malformed_input, "expected a string, ", got(n));
  x.assign(str);
  return true;
}

bool json_reader::value(std::u16string& x) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  std::string_view str;
  if (!string_of(n, str))
    return fail(*this, errc::malformed_input, "expected a string, ", got(n));
  x.clear();
  for (size_t i = 0; i < str.size();) {
    char32_t cp = 0;
    if (!next_code_point(str, i, cp))
      return fail(*this, errc::malformed_input, "the string ends inside a UTF-8 sequence");
    if (cp >= 0x10000) {
      cp -= 0x10000;
      x += static_cast<char16_t>(0xD800 + (cp >> 10));
      x += static_cast<char16_t>(0xDC00 + (cp & 0x3FF));
    } else {
      x += static_cast<char16_t>(cp);
    }
  }
  return true;
}

bool json_reader::value(std::u32string& x) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  std::string_view str;
  if (!string_of(n, str))
    return fail(*this, errc::malformed_input, "expected a string, ", got(n));
  x.clear();
  for (size_t i = 0; i < str.size();) {
    char32_t cp = 0;
    if (!next_code_point(str, i, cp))
      return fail(*this, errc::malformed_input, "the string ends inside a UTF-8 sequence");
    x += cp;
  }
  return true;
}

bool json_reader::value(std::vector<std::byte>& x) {
  node n;
  if (!next(*this, impl_->stack, n))
    return false;
  std::string_view str;
  if (!string_of(n, str))
    return fail(*this, errc::malformed_input, "expected a base64 string, ", got(n));
  if (auto what = detail::decode_base64(str, x); !what.empty())
    return fail(*this, errc::malformed_input, "expected ", what, ", ", got(n));
  return true;
}

namespace {

// Destroys the elements built so far if loading stops early; the message
// itself then frees the storage (its type list is still empty).
struct built_elements {
  std::span<const detail::meta_object* const> metas;
  std::byte* base;
  size_t constructed = 0;

  ~built_elements() {
    auto* ptr = base;
    for (size_t i = 0; i < constructed; ++i) {
      metas[i]->destroy(ptr);
      ptr += metas[i]->padded_size;
    }
  }
};

} // namespace

bool json_reader::value(message& x) {
  auto& d = *impl_;
  node n;
  if (!next_of(*this, d.stack, element_type::ARRAY, n))
    return false;
  if (d.stack.size() == 1)
    d.root_name = "message";
  auto arr = n.elem.get_array().value_unsafe();
  auto count = arr.size();
  if (count == 0) {
    x = message{};
    return true;
  }
  if (count > 0xFFFF)
    return fail(*this, errc::malformed_input, "a message of ", std::to_string(count),
                " elements exceeds 65535");
  // First the types of all elements, then one allocation.
  std::vector<type_id_t> ids;
  std::vector<const detail::meta_object*> metas;
  std::vector<dom::element> values;
  ids.reserve(count);
  metas.reserve(count);
  values.reserve(count);
  push_array(d.stack, arr);
  size_t total = 0;
  for (auto elem : arr) {
    node e{elem};
    next(*this, d.stack, e); // for the path: [i]
    if (elem.type() != element_type::OBJECT)
      return fail(*this, errc::malformed_input,
                  "expected a message element {\"@type\": ..., \"value\": ...}, ", got(e));
    auto obj = elem.get_object().value_unsafe();
    dom::element tag;
    dom::element value;
    size_t pos = 0;
    for (auto member : obj)
      if (member.key != "@type" && member.key != "value")
        return fail(*this, errc::malformed_input,
                    "a message element has the members \"@type\" and \"value\" only, got ",
                    quoted(member.key));
    if (obj.size() != 2 || !find_member(obj, "@type", tag, pos)
        || !find_member(obj, "value", value, pos))
      return fail(*this, errc::malformed_input,
                  "expected a message element {\"@type\": ..., \"value\": ...}, got an object of ",
                  std::to_string(obj.size()), " members");
    if (tag.type() != element_type::STRING)
      return fail(*this, errc::malformed_input, "expected the element's \"@type\" as a type name, ",
                  got(node{tag}));
    auto name = tag.get_string().value_unsafe();
    auto id = query_type_id(name);
    auto* meta = id == invalid_type_id ? nullptr : detail::global_meta_object(id);
    const char* problem = nullptr;
    if (meta == nullptr)
      problem = " is unknown";
    else if (meta->load_json == nullptr)
      problem = " has no inspect() and can't be deserialized";
    else if (meta->default_construct == nullptr)
      problem = " has no default constructor to load into";
    if (problem != nullptr)
      return fail(*this, errc::unsupported_type, "the type ", quoted(name), problem);
    ids.push_back(id);
    metas.push_back(meta);
    values.push_back(value);
    total += meta->padded_size;
  }
  d.stack.back().index = 0;
  d.stack.back().arr_pos = arr.begin();
  // Interning may throw, so it runs before any element exists.
  auto types = type_id_list::intern(ids);
  message result{detail::message_data::allocate(total)};
  auto* ptr = result.raw()->storage();
  built_elements guard{metas, ptr};
  for (size_t i = 0; i < count; ++i) {
    node e;
    next(*this, d.stack, e); // for the path: [i]
    frame f{frame_kind::slot};
    f.value.elem = values[i];
    d.stack.push_back(f);
    if (!metas[i]->load_json(*this, ptr))
      return false;
    ++guard.constructed;
    if (!pop(*this, d.stack, frame_kind::slot))
      return false;
    ptr += metas[i]->padded_size;
  }
  guard.constructed = 0;
  result.raw()->set_types(types);
  if (!pop(*this, d.stack, frame_kind::array))
    return false;
  x = std::move(result);
  return true;
}

} // namespace troupe
