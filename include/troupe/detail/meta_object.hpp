#pragma once

// A meta object is everything the runtime needs to handle a value whose type
// it only knows by its 16-bit type ID: size, construction, copy, destruction,
// a printable form and the serialization hooks. Meta objects live in one
// global table indexed by type ID, filled at static-initialisation time by the
// type ID blocks.
//
// This header includes only the leaf fwd.hpp: error.hpp and the
// serialization headers rely on that to avoid include cycles.

#include "troupe/fwd.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace troupe {

inline constexpr type_id_t invalid_type_id = 0xFFFF;

namespace detail {

/// Every message element starts on a boundary of this many bytes.
inline constexpr std::size_t element_alignment = alignof(std::max_align_t);

constexpr std::size_t padded_size(std::size_t n) noexcept {
  return (n + element_alignment - 1) & ~(element_alignment - 1);
}

template <class T>
constexpr std::size_t padded_size_v = padded_size(sizeof(T));

struct meta_object {
  std::string_view type_name;
  std::size_t padded_size;
  void (*destroy)(void* ptr) noexcept;
  /// Null for types without a default constructor.
  void (*default_construct)(void* ptr);
  void (*copy_construct)(void* dst, const void* src);
  void (*move_construct)(void* dst, void* src);
  /// Appends the value as text: through to_string() or the inspector of
  /// troupe/deep_to_string.hpp (types with an
  /// inspect() and no simpler form), else "<unprintable>".
  void (*stringify)(std::string& out, const void* ptr);
  /// True if `destroy` does nothing: a message of such elements only frees
  /// its memory.
  bool trivially_destructible;
  /// Enums of one byte, as error codes are: the name of a value (what
  /// stringify prints). Null for every other type; a loaded error accepts
  /// only a category that has one.
  std::string (*code_name)(std::uint8_t code);
  /// Serialization hooks: null for types that have no inspect() (see
  /// troupe/serialization/inspect.hpp); a null hook makes saving or loading
  /// a message with this type an `errc::unsupported_type` error. The load
  /// hooks construct the value in raw storage (see load_hook); call them
  /// only if default_construct is set.
  bool (*save_binary)(binary_serializer& sink, const void* ptr);
  bool (*load_binary)(binary_deserializer& source, void* ptr);
  bool (*save_json)(json_writer& sink, const void* ptr);
  bool (*load_json)(json_reader& source, void* ptr);
  /// True if built where detail/meta_object_hooks.hpp was included: its
  /// hooks are final. Registration prefers such an object (see
  /// register_meta_object).
  bool hooks_included;
};

/// The serialization hooks of `T`, and the stringify hook of the types
/// stringify_value can't print. Defined in detail/meta_object_hooks.hpp,
/// which every serialization header includes; type_id.hpp uses it where it
/// is defined by the end of the translation unit.
template <class T>
struct meta_object_hooks;

/// The global table, indexed by type ID. Constant-initialised (all null), so
/// registrations during static initialisation of any translation unit find it
/// ready. Atomics keep late registrations (a dlopen'ed library) safe.
extern std::atomic<const meta_object*> global_meta_objects[65536];

/// Returns the meta object for `id` or nullptr if no type has this ID.
inline const meta_object* global_meta_object(type_id_t id) noexcept {
  return global_meta_objects[id].load(std::memory_order_acquire);
}

/// Registers `obj` under `id`. Each translation unit registers its own meta
/// object of a type: one with `hooks_included` replaces one without.
/// Registering a second, different type under an ID already taken aborts
/// with a message naming both types: two blocks overlap, which no later
/// error handling could repair.
bool register_meta_object(type_id_t id, const meta_object* obj) noexcept;

// -- printing values ----------------------------------------------------------

template <class T, class = void>
struct has_to_string : std::false_type {};

template <class T>
struct has_to_string<T, std::void_t<decltype(to_string(std::declval<const T&>()))>>
  : std::true_type {};

void stringify_arithmetic(std::string& out, long long x);
void stringify_arithmetic(std::string& out, unsigned long long x);
void stringify_arithmetic(std::string& out, float x);
void stringify_arithmetic(std::string& out, double x);
void stringify_arithmetic(std::string& out, long double x);
void stringify_quoted(std::string& out, std::string_view str);

template <class T>
void stringify_value(std::string& out, const T& x) {
  if constexpr (std::is_same_v<T, bool>) {
    out += x ? "true" : "false";
  } else if constexpr (std::is_same_v<T, char>) {
    out += '\'';
    out += x;
    out += '\'';
  } else if constexpr (std::is_floating_point_v<T>) {
    stringify_arithmetic(out, x);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    stringify_arithmetic(out, static_cast<long long>(x));
  } else if constexpr (std::is_integral_v<T>) {
    stringify_arithmetic(out, static_cast<unsigned long long>(x));
  } else if constexpr (std::is_enum_v<T>) {
    if constexpr (has_to_string<T>::value)
      out += to_string(x);
    else
      stringify_arithmetic(out, static_cast<long long>(x));
  } else if constexpr (requires { typename T::rep; typename T::period; x.count(); }) {
    // A std::chrono duration: its count in nanoseconds.
    stringify_arithmetic(out, static_cast<long long>(
                                std::chrono::duration_cast<std::chrono::nanoseconds>(x).count()));
    out += "ns";
  } else if constexpr (requires { x.time_since_epoch(); }) {
    // A std::chrono time point: nanoseconds since its clock's epoch.
    stringify_value(out, x.time_since_epoch());
  } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
    stringify_quoted(out, std::string_view{x});
  } else if constexpr (has_to_string<T>::value) {
    out += to_string(x);
  } else if constexpr (requires(const T& v) { v.begin(); v.end(); }) {
    out += '[';
    bool first = true;
    for (const auto& elem : x) {
      if (!first)
        out += ", ";
      first = false;
      stringify_value(out, elem);
    }
    out += ']';
  } else {
    out += "<unprintable>";
  }
}

/// True if stringify_value prints a `T` without "<unprintable>" anywhere in
/// it; the same branches, in the same order.
template <class T>
constexpr bool stringify_value_prints() {
  if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>)
    return true;
  else if constexpr (requires(const T& x) { typename T::rep; typename T::period; x.count(); })
    return true;
  else if constexpr (requires(const T& x) { x.time_since_epoch(); })
    return true;
  else if constexpr (std::is_convertible_v<const T&, std::string_view> || has_to_string<T>::value)
    return true;
  else if constexpr (requires(const T& v) { v.begin(); v.end(); })
    return stringify_value_prints<
      std::remove_cvref_t<decltype(*std::declval<const T&>().begin())>>();
  else
    return false;
}

template <class T>
struct meta_object_for {
  static void destroy(void* ptr) noexcept {
    static_cast<T*>(ptr)->~T();
  }
  static void default_construct(void* ptr) {
    new (ptr) T();
  }
  static void copy_construct(void* dst, const void* src) {
    new (dst) T(*static_cast<const T*>(src));
  }
  static void move_construct(void* dst, void* src) {
    new (dst) T(std::move(*static_cast<T*>(src)));
  }
  static void stringify(std::string& out, const void* ptr) {
    stringify_value(out, *static_cast<const T*>(ptr));
  }
  static std::string code_name(std::uint8_t code) {
    std::string out;
    stringify_value(out, static_cast<T>(code));
    return out;
  }
  static constexpr meta_object make(std::string_view name) {
    // Types without a default constructor have none here: a deserializer
    // must not pretend to build one.
    void (*make_default)(void*) = nullptr;
    if constexpr (std::is_default_constructible_v<T>)
      make_default = default_construct;
    std::string (*name_code)(std::uint8_t) = nullptr;
    if constexpr (std::is_enum_v<T> && sizeof(T) == 1)
      name_code = code_name;
    return meta_object{.type_name = name,
                       .padded_size = padded_size_v<T>,
                       .destroy = destroy,
                       .default_construct = make_default,
                       .copy_construct = copy_construct,
                       .move_construct = move_construct,
                       .stringify = stringify,
                       .trivially_destructible = std::is_trivially_destructible_v<T>,
                       .code_name = name_code,
                       .save_binary = nullptr,
                       .load_binary = nullptr,
                       .save_json = nullptr,
                       .load_json = nullptr,
                       .hooks_included = false};
  }
};

} // namespace detail
} // namespace troupe
