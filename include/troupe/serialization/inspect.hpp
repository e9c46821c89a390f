#pragma once

// inspect(f, x) is the one description of a type; the same function drives
// every format (binary, JSON, ...):
//
//   struct point {
//     int32_t x = 0;
//     int32_t y = 0;
//     std::optional<std::string> label;
//   };
//
//   template <class Inspector>
//   bool inspect(Inspector& f, point& p) {
//     return f.object(p).fields(f.field("x", p.x), f.field("y", p.y).fallback(0),
//                               f.field("label", p.label));
//   }
//
// inspect() is found by ADL: a free function in the type's namespace, or a
// hidden friend `template <class Inspector> friend bool inspect(Inspector&, T&)`.
// It must return `bool` (not `auto`) and be declared before the type's
// TROUPE_ADD_TYPE_ID. For a type you can't touch, specialise
// `troupe::inspector_access<T>` with
// `template <class Inspector> static bool apply(Inspector& f, T& x)`.
//
// -- fields ---------------------------------------------------------------------
//
//   f.field("a", x.a)                        mandatory
//   f.field("o", x.opt)  (a std::optional)   optional: absent when empty
//   f.field("n", x.n).fallback(42)           may be absent; absent loads 42
//   f.field("n", x.n).invariant(pred)        loading fails unless pred(x.n)
//   f.field("n", get, set)                   get() -> T, set(T) -> void, bool
//                                            (false: rejected) or error
//
// Loading fails with an error whose context starts with the field path
// ("bar.b: ..."). `.fallback` and `.invariant` combine, also with accessors.
// `f.object(x).pretty_name("p")` names a type that has no type ID.
//
// -- types that need no inspect() -----------------------------------------------
//
// bool, every integer and character type, float, double, long double,
// std::byte, std::string, std::u16string, std::u32string, byte vectors
// (std::vector<std::byte>), sequences (std::vector, std::deque, std::list,
// std::basic_string of other characters), sets and maps (ordered or not,
// multi or not), std::array, std::pair, std::tuple, std::optional,
// std::variant, std::chrono durations and time points (their count),
// troupe::message, empty classes (atoms, unit_t, std::monostate) and enums.
//
// Enums are their underlying integer by default. Opting in with
//   template <> struct troupe::enum_by_name<my::color> : std::true_type {};
// (which needs `std::string to_string(color)` and
// `bool from_string(std::string_view, color&)`, found by ADL) writes names in
// human-readable formats (JSON) and, in binary, still writes the integer but
// rejects integers that name no enumerator (to_string/from_string must
// round-trip).
//
// -- the inspector concept ---------------------------------------------------------
//
// An inspector derives from `save_inspector<Derived>` (writers) or
// `load_inspector<Derived>` (readers), which provide object(), field(),
// apply() and the inspection of every type above, and implements the format
// with these members. Each returns false on failure after calling
// set_error(), and the caller stops at the first false.
//
// Both sides:
//   static constexpr bool is_loading;                 // false: save, true: load
//   static constexpr bool has_human_readable_format;  // true: enums by name
//   void set_error(error err);        // keeps the first error
//   const error& get_error() const;   // with the path in front of its context
//   (optional) void field_failed(std::string_view name);
//   (optional) void object_failed(std::string_view type_name);
//                                     // called as a failure unwinds out of a
//                                     // field or an object: innermost first,
//                                     // for the path (detail/field_path.hpp)
//   bool begin_object(type_id_t type, std::string_view name);
//                                     // type is invalid_type_id without an ID
//   bool end_object();
//   bool end_field();
//   bool begin_tuple(size_t size);    // tuple, pair, std::array: size fixed
//   bool end_tuple();
//   bool begin_key_value_pair();      // one map entry: key, then value
//   bool end_key_value_pair();
//   bool end_sequence();
//   bool end_associative_array();
//   bool end_optional();
//   bool end_variant();
//
// Save side (is_loading == false):
//   bool begin_field(std::string_view name);                   // always there
//   bool begin_field(std::string_view name, bool is_present);  // may be absent;
//                                     // the value follows only if is_present
//   bool begin_optional(bool is_present);    // a std::optional outside a field
//   bool begin_variant(size_t index, std::span<const std::string_view> types);
//                                     // types: one name per alternative, its
//                                     // type name or "" if it has no type ID
//   bool begin_sequence(size_t size);
//   bool begin_associative_array(size_t size);
//   template <class T> requires std::is_arithmetic_v<T> bool value(T x);
//   bool value(std::string_view x);  (and std::u16string_view, std::u32string_view)
//   bool value(std::span<const std::byte> x);                  // byte vectors
//   bool value(const message& x);     // type IDs, then each element through
//                                     // its meta object hook
//
// Optional, for text meant for people (stringification_inspector.hpp): an
// inspector with `bool builtin_inspect(const T&)` gets the types that call
// accepts whole, ahead of inspect() and everything else.
//
// Optional, for formats that spell units and dates (JSON): an inspector that
// has value(std::chrono::duration<R, P>) and value(std::chrono::time_point<C,
// D>) (references when loading) gets durations and time points whole, else
// their tick counts.
//
// Load side (is_loading == true):
//   bool begin_field(std::string_view name);
//   bool begin_field(std::string_view name, bool& is_present);
//   bool begin_optional(bool& is_present);
//   bool begin_variant(size_t& index, std::span<const std::string_view> types);
//                                     // must fail unless index < types.size()
//   bool begin_sequence(size_t& size, size_t min_element_size);
//   bool begin_associative_array(size_t& size, size_t min_entry_size);
//                                     // min_*_size: fewest bytes one element
//                                     // takes in the binary format; a reader
//                                     // of untrusted lengths rejects sizes the
//                                     // input can't hold (0: empty elements)
//   template <class T> requires std::is_arithmetic_v<T> bool value(T& x);
//   bool value(std::string& x);  (and std::u16string&, std::u32string&)
//   bool value(std::vector<std::byte>& x);
//   bool value(message& x);
//
// A loader may leave a half-loaded value behind on failure; the entry points
// (from_binary, ...) load into a temporary and assign only on success.

#include "troupe/detail/meta_object.hpp"
#include "troupe/error.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace troupe {

class message;

/// Opt-in: the enum `E` is written by name in human-readable formats.
template <class E>
struct enum_by_name : std::false_type {};

template <class E>
inline constexpr bool enum_by_name_v = enum_by_name<E>::value;

/// Specialise with `template <class Inspector> static bool apply(Inspector&,
/// T&)` to inspect a type without an inspect() overload.
template <class T>
struct inspector_access {
  using troupe_primary_template = void;
};

/// Specialise to inspect `T` as a variant, as in CAF: `value_type`, the
/// type IDs `allowed_types[]`, `type_index(x)`, `visit(f, x)`,
/// `assign(x, value)` and `load(type_id, continuation)`; then
/// `inspector_access<T> : variant_inspector_access<T> {}`.
template <class T>
struct variant_inspector_traits;

/// An inspector_access for a type with variant_inspector_traits.
template <class T>
struct variant_inspector_access {
  template <class Inspector>
  static bool apply(Inspector& f, T& x);
};

namespace detail {

// -- traits ------------------------------------------------------------------

template <class T>
concept has_inspector_access
  = !requires { typename inspector_access<T>::troupe_primary_template; };

template <class Inspector, class T>
concept has_inspect_overload = requires(Inspector& f, T& x) {
  { inspect(f, x) } -> std::same_as<bool>;
};

template <class T>
inline constexpr bool is_optional_v = false;
template <class T>
inline constexpr bool is_optional_v<std::optional<T>> = true;

template <class T>
inline constexpr bool is_variant_v = false;
template <class... Ts>
inline constexpr bool is_variant_v<std::variant<Ts...>> = true;

template <class T>
inline constexpr bool is_duration_v = false;
template <class Rep, class Period>
inline constexpr bool is_duration_v<std::chrono::duration<Rep, Period>> = true;

template <class T>
inline constexpr bool is_time_point_v = false;
template <class Clock, class Duration>
inline constexpr bool is_time_point_v<std::chrono::time_point<Clock, Duration>> = true;

/// Strings the inspectors take as one value.
template <class T>
inline constexpr bool is_string_value_v
  = std::is_same_v<T, std::string> || std::is_same_v<T, std::u16string>
    || std::is_same_v<T, std::u32string>;

template <class T>
concept tuple_like = requires { std::tuple_size<T>::value; };

template <class T>
concept map_like = requires(T& x) {
  typename T::key_type;
  typename T::mapped_type;
  x.begin();
  x.end();
  x.size();
  x.clear();
  x.emplace(std::declval<typename T::key_type>(), std::declval<typename T::mapped_type>());
};

template <class T>
concept set_like = !map_like<T> && requires(T& x) {
  typename T::key_type;
  x.begin();
  x.end();
  x.size();
  x.clear();
  x.insert(std::declval<typename T::value_type>());
};

template <class T>
concept sequence_like = !map_like<T> && !set_like<T> && requires(T& x) {
  typename T::value_type;
  x.begin();
  x.end();
  x.size();
  x.clear();
  x.push_back(std::declval<typename T::value_type>());
};

/// Whether `f.apply(x)` compiles for a `T` (checked without instantiating
/// any inspect() body); the meta object hooks are null otherwise.
template <class T>
constexpr bool is_inspectable() {
  if constexpr (has_inspector_access<T> || has_inspect_overload<binary_serializer, T>)
    return true;
  else if constexpr (std::is_same_v<T, message> || std::is_arithmetic_v<T> || std::is_enum_v<T>
                     || std::is_same_v<T, std::byte> || is_string_value_v<T>
                     || std::is_same_v<T, std::vector<std::byte>> || is_duration_v<T>
                     || is_time_point_v<T>)
    return true;
  else if constexpr (is_optional_v<T>)
    return std::is_default_constructible_v<typename T::value_type>
           && is_inspectable<typename T::value_type>();
  else if constexpr (is_variant_v<T>)
    return []<class... Ts>(std::variant<Ts...>*) {
      return ((std::is_default_constructible_v<Ts> && is_inspectable<Ts>()) && ...);
    }(static_cast<T*>(nullptr));
  else if constexpr (tuple_like<T>)
    return []<size_t... Is>(std::index_sequence<Is...>) {
      return (is_inspectable<std::tuple_element_t<Is, T>>() && ...);
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
  else if constexpr (map_like<T>)
    return is_inspectable<typename T::key_type>() && is_inspectable<typename T::mapped_type>();
  else if constexpr (set_like<T> || sequence_like<T>)
    return is_inspectable<std::remove_const_t<typename T::value_type>>();
  else
    return std::is_class_v<T> && std::is_empty_v<T>;
}

template <class T>
inline constexpr bool is_inspectable_v = is_inspectable<T>();

/// Fewest bytes a `T` takes in the binary format (1 for types with an
/// inspect(), whose size only their fields know).
template <class T>
constexpr size_t min_binary_size() {
  if constexpr (has_inspector_access<T> || has_inspect_overload<binary_serializer, T>)
    return 1;
  else if constexpr (std::is_same_v<T, long double>)
    return 1; // written as text, length first
  else if constexpr (std::is_arithmetic_v<T>)
    return sizeof(T);
  else if constexpr (std::is_enum_v<T>)
    return sizeof(std::underlying_type_t<T>);
  else if constexpr (is_duration_v<T>)
    return min_binary_size<typename T::rep>();
  else if constexpr (is_time_point_v<T>)
    return min_binary_size<typename T::duration>();
  else if constexpr (tuple_like<T>)
    return []<size_t... Is>(std::index_sequence<Is...>) {
      return (size_t{0} + ... + min_binary_size<std::tuple_element_t<Is, T>>());
    }(std::make_index_sequence<std::tuple_size_v<T>>{});
  else if constexpr (std::is_class_v<T> && std::is_empty_v<T>)
    return 0;
  else
    return 1; // a length, tag or presence byte comes first
}

/// Name of `T` for variant alternatives: its type name, or "" without an ID.
template <class T>
constexpr std::string_view type_name_or_empty() {
  if constexpr (type_id<T>::registered)
    return type_name<T>::value;
  else
    return {};
}

template <class T>
constexpr type_id_t type_id_or_invalid() {
  if constexpr (type_id<T>::registered)
    return type_id<T>::value;
  else
    return invalid_type_id;
}

template <class T>
constexpr std::string_view object_name() {
  if constexpr (type_id<T>::registered)
    return type_name<T>::value;
  else
    return "anonymous";
}

template <class T>
T& as_mutable(const T& x) noexcept {
  // Saving never writes through it; inspect() takes `T&` for both sides.
  return const_cast<T&>(x);
}

template <class Inspector>
bool fail(Inspector& f, errc code, std::string context) {
  f.set_error(make_error(code, std::move(context)));
  return false;
}

// Cold: what a failure records on its way out of a field or an object.
template <class Inspector>
[[gnu::cold]] bool failed_in_field(Inspector& f, std::string_view name) {
  if constexpr (requires { f.field_failed(name); })
    f.field_failed(name);
  return false;
}

template <class Inspector>
[[gnu::cold]] bool failed_in_object(Inspector& f, std::string_view type_name) {
  if constexpr (requires { f.object_failed(type_name); })
    f.object_failed(type_name);
  return false;
}

template <class Inspector, class T>
bool inspect_value(Inspector& f, T& x);

// -- enums -------------------------------------------------------------------

template <class E>
bool is_named_enumerator(E x) {
  // An opted-in enum's valid values are those whose name reads back.
  auto name = to_string(x);
  E parsed{};
  return from_string(std::string_view{name}, parsed) && parsed == x;
}

/// An enum by the name to_string(E) gives and from_string(string_view, E&)
/// reads, both found by ADL.
template <class Inspector, class E>
bool inspect_enum_name(Inspector& f, E& x) {
  if constexpr (Inspector::is_loading) {
    std::string name;
    if (!f.value(name))
      return false;
    E parsed{};
    if (!from_string(std::string_view{name}, parsed))
      return fail(f, errc::malformed_input, "no enumerator is named \"" + name + '"');
    x = parsed;
    return true;
  } else {
    auto name = to_string(x);
    return f.value(std::string_view{name});
  }
}

template <class Inspector, class E>
bool inspect_enum(Inspector& f, E& x) {
  using underlying = std::underlying_type_t<E>;
  if constexpr (enum_by_name_v<E>) {
    static_assert(requires(E e, std::string_view str) {
      { to_string(e) } -> std::convertible_to<std::string_view>;
      { from_string(str, e) } -> std::same_as<bool>;
    }, "troupe: an enum_by_name enum needs to_string(E) and "
       "bool from_string(std::string_view, E&) in its namespace");
  }
  if constexpr (enum_by_name_v<E> && Inspector::has_human_readable_format) {
    return inspect_enum_name(f, x);
  } else if constexpr (Inspector::is_loading) {
    underlying tmp{};
    if (!f.value(tmp))
      return false;
    if constexpr (enum_by_name_v<E>) {
      if (!is_named_enumerator(static_cast<E>(tmp)))
        return fail(f, errc::malformed_input,
                    "no enumerator has the value " + std::to_string(+tmp));
    }
    x = static_cast<E>(tmp);
    return true;
  } else {
    return f.value(static_cast<underlying>(x));
  }
}

// -- containers and sum types -----------------------------------------------

template <class Inspector, class T>
bool inspect_optional(Inspector& f, std::optional<T>& x) {
  if constexpr (Inspector::is_loading) {
    bool present = false;
    if (!f.begin_optional(present))
      return false;
    if (present) {
      if (!inspect_value(f, x.emplace()))
        return false;
    } else {
      x.reset();
    }
  } else {
    if (!f.begin_optional(x.has_value()) || (x && !inspect_value(f, *x)))
      return false;
  }
  return f.end_optional();
}

/// False (and an error) if a loaded variant index names no alternative.
template <class Inspector>
bool variant_index_in_range(Inspector& f, size_t index, size_t alternatives) {
  if (index < alternatives)
    return true;
  return fail(f, errc::malformed_input,
              "variant index " + std::to_string(index) + " is out of range for "
                + std::to_string(alternatives) + " alternatives");
}

template <class... Ts>
inline constexpr std::string_view variant_type_names[] = {type_name_or_empty<Ts>()...};

template <class Inspector, class... Ts>
bool inspect_variant(Inspector& f, std::variant<Ts...>& x) {
  std::span<const std::string_view> names{variant_type_names<Ts...>};
  if constexpr (Inspector::is_loading) {
    size_t index = 0;
    if (!f.begin_variant(index, names))
      return false;
    if (!variant_index_in_range(f, index, sizeof...(Ts)))
      return false;
    using loader = bool (*)(Inspector&, std::variant<Ts...>&);
    static constexpr loader loaders[] = {
      +[](Inspector& g, std::variant<Ts...>& y) { return inspect_value(g, y.template emplace<Ts>()); }...};
    if (!loaders[index](f, x))
      return false;
  } else {
    if (x.valueless_by_exception())
      return fail(f, errc::invalid_argument, "cannot save a valueless variant");
    if (!f.begin_variant(x.index(), names))
      return false;
    if (!std::visit([&f](auto& alt) { return inspect_value(f, alt); }, x))
      return false;
  }
  return f.end_variant();
}

/// Saves or loads `x` as a variant of the types its traits allow (see
/// variant_inspector_access below).
template <class Inspector, class Traits>
bool inspect_traits_variant(Inspector& f, typename Traits::value_type& x) {
  constexpr size_t n = std::size(Traits::allowed_types);
  static const auto names = [] {
    std::array<std::string_view, n> result;
    for (size_t i = 0; i < n; ++i)
      result[i] = query_type_name(Traits::allowed_types[i]);
    return result;
  }();
  if constexpr (Inspector::is_loading) {
    size_t index = 0;
    if (!f.begin_variant(index, names))
      return false;
    if (!variant_index_in_range(f, index, n))
      return false;
    bool loaded = false;
    auto continuation = [&](auto& tmp) {
      if (inspect_value(f, tmp)) {
        Traits::assign(x, std::move(tmp));
        loaded = true;
      }
    };
    if (!Traits::load(Traits::allowed_types[index], continuation))
      return fail(f, errc::unsupported_type,
                  "the variant's traits cannot load a " + std::string{names[index]});
    if (!loaded)
      return false;
  } else {
    auto index = static_cast<size_t>(Traits::type_index(x));
    if (!f.begin_variant(index, names))
      return false;
    if (!Traits::visit([&f](auto& alt) { return inspect_value(f, alt); }, x))
      return false;
  }
  return f.end_variant();
}

} // namespace detail

template <class T>
template <class Inspector>
bool variant_inspector_access<T>::apply(Inspector& f, T& x) {
  return detail::inspect_traits_variant<Inspector, variant_inspector_traits<T>>(f, x);
}

namespace detail {

template <class Inspector, class T>
bool inspect_tuple(Inspector& f, T& x) {
  constexpr size_t n = std::tuple_size_v<T>;
  return f.begin_tuple(n)
         && [&]<size_t... Is>(std::index_sequence<Is...>) {
              return (inspect_value(f, std::get<Is>(x)) && ...);
            }(std::make_index_sequence<n>{})
         && f.end_tuple();
}

template <class Inspector, class T>
bool inspect_map(Inspector& f, T& x) {
  using key_type = typename T::key_type;
  using mapped_type = typename T::mapped_type;
  if constexpr (Inspector::is_loading) {
    size_t size = 0;
    constexpr size_t min_entry = min_binary_size<key_type>() + min_binary_size<mapped_type>();
    if (!f.begin_associative_array(size, min_entry))
      return false;
    x.clear();
    if constexpr (requires { x.reserve(size); })
      x.reserve(size);
    for (size_t i = 0; i < size; ++i) {
      key_type key{};
      mapped_type val{};
      if (!f.begin_key_value_pair() || !inspect_value(f, key) || !inspect_value(f, val)
          || !f.end_key_value_pair())
        return false;
      if constexpr (requires { x.emplace(std::move(key), std::move(val)).second; }) {
        if (!x.emplace(std::move(key), std::move(val)).second)
          return fail(f, errc::malformed_input,
                      "duplicate key in entry " + std::to_string(i) + " of a map");
      } else {
        x.emplace(std::move(key), std::move(val));
      }
    }
  } else {
    if (!f.begin_associative_array(x.size()))
      return false;
    for (auto& [key, val] : x)
      if (!f.begin_key_value_pair() || !inspect_value(f, as_mutable(key))
          || !inspect_value(f, as_mutable(val)) || !f.end_key_value_pair())
        return false;
  }
  return f.end_associative_array();
}

template <class Inspector, class T>
bool inspect_sequence(Inspector& f, T& x) {
  using value_type = std::remove_const_t<typename T::value_type>;
  if constexpr (Inspector::is_loading) {
    size_t size = 0;
    if (!f.begin_sequence(size, min_binary_size<value_type>()))
      return false;
    x.clear();
    if constexpr (requires { x.reserve(size); })
      x.reserve(size);
    for (size_t i = 0; i < size; ++i) {
      if constexpr (set_like<T>) {
        value_type tmp{};
        if (!inspect_value(f, tmp))
          return false;
        if constexpr (requires { x.insert(std::move(tmp)).second; }) {
          if (!x.insert(std::move(tmp)).second)
            return fail(f, errc::malformed_input,
                        "duplicate element " + std::to_string(i) + " in a set");
        } else {
          x.insert(std::move(tmp));
        }
      } else if constexpr (std::is_same_v<value_type, bool>
                           || !requires { { x.emplace_back() } -> std::same_as<value_type&>; }) {
        value_type tmp{};
        if (!inspect_value(f, tmp))
          return false;
        x.push_back(std::move(tmp));
      } else {
        if (!inspect_value(f, x.emplace_back()))
          return false;
      }
    }
  } else {
    if (!f.begin_sequence(x.size()))
      return false;
    for (auto&& elem : x) {
      if constexpr (std::is_same_v<value_type, bool>) {
        bool tmp = elem; // std::vector<bool> hands out proxies
        if (!f.value(tmp))
          return false;
      } else if (!inspect_value(f, as_mutable(elem))) {
        return false;
      }
    }
  }
  return f.end_sequence();
}

// -- dispatch ------------------------------------------------------------------

template <class Inspector, class T>
bool inspect_value(Inspector& f, T& x) {
  static_assert(!std::is_const_v<T>);
  if constexpr (requires { f.builtin_inspect(x); }) {
    // The inspector prints this type its own way (to_string for text).
    return f.builtin_inspect(x);
  } else if constexpr (has_inspector_access<T>) {
    return inspector_access<T>::apply(f, x);
  } else if constexpr (has_inspect_overload<Inspector, T>) {
    return inspect(f, x);
  } else if constexpr (std::is_same_v<T, message>) {
    return f.value(x);
  } else if constexpr (std::is_arithmetic_v<T>) {
    return f.value(x);
  } else if constexpr (std::is_enum_v<T> && !std::is_same_v<T, std::byte>) {
    return inspect_enum(f, x);
  } else if constexpr (std::is_same_v<T, std::byte>) {
    if constexpr (Inspector::is_loading) {
      uint8_t tmp = 0;
      if (!f.value(tmp))
        return false;
      x = static_cast<std::byte>(tmp);
      return true;
    } else {
      return f.value(static_cast<uint8_t>(x));
    }
  } else if constexpr (is_string_value_v<T>) {
    if constexpr (Inspector::is_loading)
      return f.value(x);
    else
      return f.value(std::basic_string_view<typename T::value_type>{x});
  } else if constexpr (std::is_same_v<T, std::vector<std::byte>>) {
    if constexpr (Inspector::is_loading)
      return f.value(x);
    else
      return f.value(std::span<const std::byte>{x});
  } else if constexpr ((is_duration_v<T> || is_time_point_v<T>) && requires { f.value(x); }) {
    // The inspector spells units and dates itself ("10ms"), not counts.
    return f.value(x);
  } else if constexpr (is_duration_v<T>) {
    if constexpr (Inspector::is_loading) {
      typename T::rep count{};
      if (!f.value(count))
        return false;
      x = T{count};
      return true;
    } else {
      return f.value(x.count());
    }
  } else if constexpr (is_time_point_v<T>) {
    if constexpr (Inspector::is_loading) {
      typename T::duration since_epoch{};
      if (!inspect_value(f, since_epoch))
        return false;
      x = T{since_epoch};
      return true;
    } else {
      auto since_epoch = x.time_since_epoch();
      return inspect_value(f, since_epoch);
    }
  } else if constexpr (is_optional_v<T>) {
    return inspect_optional(f, x);
  } else if constexpr (is_variant_v<T>) {
    return inspect_variant(f, x);
  } else if constexpr (tuple_like<T>) {
    return inspect_tuple(f, x);
  } else if constexpr (map_like<T>) {
    return inspect_map(f, x);
  } else if constexpr (set_like<T> || sequence_like<T>) {
    return inspect_sequence(f, x);
  } else if constexpr (std::is_class_v<T> && std::is_empty_v<T>) {
    return f.object(x).fields();
  } else {
    static_assert(std::is_empty_v<T> && !std::is_empty_v<T>,
                  "troupe: this type has no inspect(); write `template <class Inspector> "
                  "bool inspect(Inspector& f, T& x)` in its namespace "
                  "(see troupe/serialization/inspect.hpp)");
    return false;
  }
}

// -- fields --------------------------------------------------------------------

struct no_fallback {};

struct no_invariant {};

template <class T>
struct field_ref {
  using value_type = T;
  T* ptr;
};

template <class Get, class Set>
struct field_accessor {
  using value_type = std::decay_t<std::invoke_result_t<Get&>>;
  Get get;
  Set set;
};

template <class T>
inline constexpr bool is_field_ref_v = false;
template <class T>
inline constexpr bool is_field_ref_v<field_ref<T>> = true;

} // namespace detail

/// One field of an object: made by `f.field(...)`, applied by `fields(...)`.
template <class Access, class Fallback = detail::no_fallback,
          class Invariant = detail::no_invariant>
class field_t {
public:
  using value_type = typename Access::value_type;

  static constexpr bool is_optional = detail::is_optional_v<value_type>;
  static constexpr bool has_fallback = !std::is_same_v<Fallback, detail::no_fallback>;
  static constexpr bool has_invariant = !std::is_same_v<Invariant, detail::no_invariant>;

  constexpr field_t(std::string_view name, Access access, Fallback fallback = {},
                    Invariant invariant = {})
    : name_(name), access_(std::move(access)), fallback_(std::move(fallback)),
      invariant_(std::move(invariant)) {}

  /// The value loaded when the field is absent.
  template <class U>
  auto fallback(U&& x) && {
    static_assert(!is_optional, "troupe: an optional field is absent, never defaulted");
    static_assert(std::is_constructible_v<value_type, const std::decay_t<U>&>);
    return field_t<Access, std::decay_t<U>, Invariant>{name_, std::move(access_),
                                                       std::forward<U>(x),
                                                       std::move(invariant_)};
  }

  /// Loading fails unless `pred(value)` holds.
  template <class Pred>
  auto invariant(Pred pred) && {
    static_assert(std::is_invocable_r_v<bool, Pred&, const value_type&>,
                  "troupe: an invariant takes the field's value and returns bool");
    return field_t<Access, Fallback, Pred>{name_, std::move(access_), std::move(fallback_),
                                           std::move(pred)};
  }

  std::string_view name() const noexcept {
    return name_;
  }

  template <class Inspector>
  bool operator()(Inspector& f) {
    if (apply(f)) [[likely]]
      return true;
    return detail::failed_in_field(f, name_);
  }

private:
  template <class Inspector>
  bool apply(Inspector& f) {
    if constexpr (Inspector::is_loading) {
      if constexpr (detail::is_field_ref_v<Access>) {
        return load(f, *access_.ptr);
      } else {
        value_type tmp{};
        return load(f, tmp);
      }
    } else if constexpr (detail::is_field_ref_v<Access>) {
      return save(f, *access_.ptr);
    } else {
      decltype(auto) value = access_.get();
      return save(f, detail::as_mutable(value));
    }
  }

  template <class Inspector>
  bool save(Inspector& f, value_type& x) {
    if constexpr (is_optional) {
      return f.begin_field(name_, x.has_value()) && (!x || detail::inspect_value(f, *x))
             && f.end_field();
    } else if constexpr (has_fallback) {
      return f.begin_field(name_, true) && detail::inspect_value(f, x) && f.end_field();
    } else {
      return f.begin_field(name_) && detail::inspect_value(f, x) && f.end_field();
    }
  }

  template <class Inspector>
  bool load(Inspector& f, value_type& x) {
    if constexpr (is_optional || has_fallback) {
      bool present = false;
      if (!f.begin_field(name_, present))
        return false;
      if (present) {
        if constexpr (is_optional) {
          if (!detail::inspect_value(f, x.emplace()))
            return false;
        } else if (!detail::inspect_value(f, x)) {
          return false;
        }
      } else if constexpr (is_optional) {
        x.reset();
      } else {
        x = value_type(fallback_);
      }
    } else if (!f.begin_field(name_) || !detail::inspect_value(f, x)) {
      return false;
    }
    if constexpr (has_invariant) {
      if (!invariant_(std::as_const(x)))
        return detail::fail(f, errc::invalid_field, "the value breaks the field's invariant");
    }
    if constexpr (!detail::is_field_ref_v<Access>) {
      using result = std::invoke_result_t<decltype(access_.set)&, value_type&&>;
      if constexpr (std::is_same_v<result, bool>) {
        if (!access_.set(std::move(x)))
          return detail::fail(f, errc::invalid_field, "the setter rejected the value");
      } else if constexpr (std::is_same_v<result, error>) {
        if (auto err = access_.set(std::move(x))) {
          f.set_error(std::move(err));
          return false;
        }
      } else {
        static_assert(std::is_void_v<result>,
                      "troupe: a field setter returns void, bool or troupe::error");
        access_.set(std::move(x));
      }
    }
    return f.end_field();
  }

  std::string_view name_;
  Access access_;
  [[no_unique_address]] Fallback fallback_;
  [[no_unique_address]] Invariant invariant_;
};

/// What `f.object(x)` returns: names the object, then `fields(...)` applies
/// the fields in order between begin_object and end_object.
template <class Inspector>
class object_t {
public:
  constexpr object_t(Inspector& f, type_id_t type, std::string_view name) noexcept
    : f_(f), type_(type), name_(name) {}

  /// Names an object whose type has no type ID ("anonymous" otherwise).
  object_t& pretty_name(std::string_view name) noexcept {
    name_ = name;
    return *this;
  }

  template <class... Fields>
  bool fields(Fields&&... fs) {
    if (f_.begin_object(type_, name_) && (fs(f_) && ...) && f_.end_object()) [[likely]]
      return true;
    return detail::failed_in_object(f_, name_);
  }

private:
  Inspector& f_;
  type_id_t type_;
  std::string_view name_;
};

/// What every inspector offers inspect() functions; see the concept above.
template <class Derived>
class inspector_base {
public:
  template <class T>
  object_t<Derived> object(T&) noexcept {
    return object_t<Derived>{self(), detail::type_id_or_invalid<T>(),
                             detail::object_name<T>()};
  }

  template <class T>
  auto field(std::string_view name, T& x) noexcept {
    return field_t<detail::field_ref<T>>{name, detail::field_ref<T>{&x}};
  }

  /// A field behind accessors: `get()` returns the value, `set(value)`
  /// stores it (returning void, bool or error).
  template <class Get, class Set>
    requires std::is_invocable_v<Get&>
  auto field(std::string_view name, Get get, Set set) {
    using access = detail::field_accessor<Get, Set>;
    return field_t<access>{name, access{std::move(get), std::move(set)}};
  }

protected:
  Derived& self() noexcept {
    return static_cast<Derived&>(*this);
  }
};

/// Base of writers.
template <class Derived>
class save_inspector : public inspector_base<Derived> {
public:
  static constexpr bool is_loading = false;

  /// Inspects any inspectable value (in inspect(): a value without a name).
  template <class T>
  bool apply(const T& x) {
    return detail::inspect_value(this->self(), detail::as_mutable(x));
  }
};

/// Base of readers.
template <class Derived>
class load_inspector : public inspector_base<Derived> {
public:
  static constexpr bool is_loading = true;

  template <class T>
  bool apply(T& x) {
    return detail::inspect_value(this->self(), x);
  }
};

} // namespace troupe
