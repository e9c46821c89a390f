#pragma once

// 16-bit type IDs, assigned in blocks at compile time.
//
//   TROUPE_BEGIN_TYPE_ID_BLOCK(my_app, troupe::first_custom_type_id)
//     TROUPE_ADD_TYPE_ID(my_app, (my_app::point))
//     TROUPE_ADD_ATOM(my_app, add_atom)
//   TROUPE_END_TYPE_ID_BLOCK(my_app)
//
// IDs below `first_custom_type_id` belong to Troupe. A block numbers its
// types consecutively from its first ID; two blocks must not overlap (an
// overlap is reported at start-up, naming both types). A type may be only
// declared at TROUPE_ADD_TYPE_ID, as in
//
//   struct point;
//   TROUPE_BEGIN_TYPE_ID_BLOCK(my_app, troupe::first_custom_type_id)
//     TROUPE_ADD_TYPE_ID(my_app, (point))
//   TROUPE_END_TYPE_ID_BLOCK(my_app)
//   struct point { int x; int y; };  // and its inspect overload
//
// but every translation unit that includes the block must define it (and
// its inspect overload) before its end, where Troupe builds the type's meta
// object. Message types must be copy-constructible.
//
// Each translation unit registers the meta objects of the user blocks it
// includes. Their serialization hooks (detail/meta_object_hooks.hpp) exist
// only where a serialization header is included: to save, load or print
// through inspect() a type, some translation unit of the program must include
// both its block and one of troupe/serialization/*.hpp. Troupe's own blocks
// (TROUPE_ADD_CORE_TYPE_ID) are registered by the library, once, with every
// hook: a translation unit compiles no meta object of Troupe's types.

#include "troupe/detail/meta_object.hpp"
#include "troupe/detail/pp.hpp"

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace troupe {

/// The first ID free for user types.
inline constexpr type_id_t first_custom_type_id = 200;

/// Specialised by TROUPE_ADD_TYPE_ID; the primary template marks a type that
/// has no ID.
template <class T>
struct type_id {
  static constexpr bool registered = false;
};

template <class T>
struct type_name;

template <class T>
inline constexpr bool has_type_id_v = type_id<T>::registered;

namespace detail {

template <class T>
struct checked_type_id {
  static_assert(has_type_id_v<T>,
                "troupe: this type has no type ID; add it to a type ID block "
                "with TROUPE_ADD_TYPE_ID (see troupe/type_id.hpp)");
  static constexpr type_id_t value = [] {
    if constexpr (has_type_id_v<T>)
      return type_id<T>::value;
    else
      return invalid_type_id;
  }();
};

// Instantiated where the compiler instantiates function templates, at the
// end of the translation unit: a type named in a block may be completed
// after it, and meta_object_hooks is defined there if a serialization header
// was read. `TranslationUnit` is a type of an unnamed namespace, so each
// translation unit builds a meta object of its own.
template <class T, class TranslationUnit>
bool register_type() noexcept {
  static_assert(requires { sizeof(T); },
                "troupe: a type in a type ID block is declared but not defined; "
                "every translation unit that includes the block must define it");
  static_assert(std::is_copy_constructible_v<T>,
                "troupe: message types must be copy-constructible");
  static constexpr meta_object obj = [] {
    auto result = meta_object_for<T>::make(type_name<T>::value);
    if constexpr (requires { sizeof(meta_object_hooks<T>); })
      meta_object_hooks<T>::add_to(result);
    return result;
  }();
  return register_meta_object(type_id<T>::value, &obj);
}

/// The type Troupe's own blocks give `id` (TROUPE_ADD_CORE_TYPE_ID).
template <type_id_t Id>
struct core_type_at;

/// Registers the meta objects of Troupe's own types on the first call
/// (src/detail/core_types.cpp); every later call returns at once. Each
/// translation unit calls it at start-up, before its own registrations.
bool register_core_types() noexcept;

} // namespace detail

template <class T>
inline constexpr type_id_t type_id_v = detail::checked_type_id<std::decay_t<T>>::value;

template <class T>
inline constexpr std::string_view type_name_v = type_name<T>::value;

/// Name of the type behind `id`, or "<unknown>".
std::string_view query_type_name(type_id_t id) noexcept;

/// ID of the type registered under `name`, or invalid_type_id.
type_id_t query_type_id(std::string_view name) noexcept;

// -- atoms ---------------------------------------------------------------------

/// Atoms are empty tag types; TROUPE_ADD_ATOM defines `name` and `name_v`.
template <class Atom>
struct atom_base {
  friend constexpr bool operator==(Atom, Atom) noexcept {
    return true;
  }
};

} // namespace troupe

namespace {
struct troupe_translation_unit {};
template <class T>
const bool troupe_type_registered = false;
[[maybe_unused]] const bool troupe_core_types_registered = ::troupe::detail::register_core_types();
} // namespace

// -- macros ----------------------------------------------------------------------


#define TROUPE_BEGIN_TYPE_ID_BLOCK(name, first_id)                             \
  namespace troupe::id_block {                                                 \
  inline constexpr ::troupe::type_id_t name##_first_type_id = first_id;        \
  inline constexpr int name##_counter_base = __COUNTER__;                      \
  }

/// `type` is written in parentheses: TROUPE_ADD_TYPE_ID(app, (ns::point)).
#define TROUPE_ADD_TYPE_ID(block, type)                                        \
  TROUPE_ADD_TYPE_ID_WITH_NAME(block, type, TROUPE_PP_STR(TROUPE_PP_UNPAREN(type)))

#define TROUPE_ADD_TYPE_ID_WITH_NAME(block, type, name_str)                    \
  TROUPE_PP_DECLARE_TYPE_ID(block, type, name_str)                             \
  namespace {                                                                  \
  template <>                                                                  \
  [[maybe_unused]] const bool troupe_type_registered<TROUPE_PP_UNPAREN(type)>  \
    = ::troupe::detail::register_type<TROUPE_PP_UNPAREN(type),                 \
                                      troupe_translation_unit>();              \
  }

/// For Troupe's own blocks: the type gets its ID and name here and its meta
/// object from the library (register_core_types), not from this translation
/// unit.
#define TROUPE_ADD_CORE_TYPE_ID(block, type)                                   \
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(block, type, TROUPE_PP_STR(TROUPE_PP_UNPAREN(type)))

#define TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(block, ptype, name_str)              \
  TROUPE_PP_DECLARE_TYPE_ID(block, ptype, name_str)                            \
  template <>                                                                  \
  struct troupe::detail::core_type_at<                                         \
    ::troupe::type_id<TROUPE_PP_UNPAREN(ptype)>::value> {                      \
    using type = TROUPE_PP_UNPAREN(ptype);                                     \
  };

#define TROUPE_PP_DECLARE_TYPE_ID(block, type, name_str)                       \
  template <>                                                                  \
  struct troupe::type_id<TROUPE_PP_UNPAREN(type)> {                            \
    static constexpr bool registered = true;                                   \
    static constexpr ::troupe::type_id_t value                                 \
      = ::troupe::id_block::block##_first_type_id                              \
        + (__COUNTER__ - ::troupe::id_block::block##_counter_base - 1);        \
  };                                                                           \
  template <>                                                                  \
  struct troupe::type_name<TROUPE_PP_UNPAREN(type)> {                          \
    static constexpr std::string_view value = name_str;                        \
  };

/// Defines the tag type `ns_name` ... as `struct atom_name` in the enclosing
/// namespace `troupe_atoms`-free: the atom lands in the global namespace.
#define TROUPE_ADD_ATOM(block, atom_name)                                      \
  struct atom_name : ::troupe::atom_base<atom_name> {};                        \
  inline constexpr atom_name atom_name##_v = atom_name{};                      \
  [[maybe_unused]] inline std::string to_string(atom_name) {                   \
    return #atom_name;                                                         \
  }                                                                            \
  TROUPE_ADD_TYPE_ID(block, (atom_name))

#define TROUPE_END_TYPE_ID_BLOCK(name)                                         \
  namespace troupe::id_block {                                                 \
  inline constexpr ::troupe::type_id_t name##_end_type_id                      \
    = name##_first_type_id + (__COUNTER__ - name##_counter_base - 1);          \
  struct name {                                                                \
    static constexpr ::troupe::type_id_t begin = name##_first_type_id;         \
    static constexpr ::troupe::type_id_t end = name##_end_type_id;             \
  };                                                                           \
  }

// -- built-in types ---------------------------------------------------------------

namespace troupe {
/// An empty value: the result of a handler that returns nothing.
struct unit_t {
  friend constexpr bool operator==(unit_t, unit_t) noexcept {
    return true;
  }
};
inline constexpr unit_t unit{};
inline std::string to_string(unit_t) {
  return "unit";
}
/// No value, as CAF's none: e.g. the empty alternative of a type inspected
/// as a variant (variant_inspector_traits).
struct none_t {
  friend constexpr bool operator==(none_t, none_t) noexcept {
    return true;
  }
};
inline constexpr none_t none{};
inline std::string to_string(none_t) {
  return "none";
}
using timespan = std::chrono::nanoseconds;
} // namespace troupe

TROUPE_BEGIN_TYPE_ID_BLOCK(builtin, 0)
  TROUPE_ADD_CORE_TYPE_ID(builtin, (bool))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (char))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (int8_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (int16_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (int32_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (int64_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (long long))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (uint8_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (uint16_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (uint32_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (uint64_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (unsigned long long))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (float))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (double))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (long double))
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::string), "std::string")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::u16string), "std::u16string")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::u32string), "std::u32string")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::vector<std::byte>), "std::vector<std::byte>")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::vector<bool>), "std::vector<bool>")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::vector<int32_t>), "std::vector<int32_t>")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::vector<int64_t>), "std::vector<int64_t>")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::vector<uint64_t>), "std::vector<uint64_t>")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::vector<double>), "std::vector<double>")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::vector<std::string>), "std::vector<std::string>")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (troupe::timespan), "troupe::timespan")
  TROUPE_ADD_CORE_TYPE_ID_WITH_NAME(builtin, (std::chrono::system_clock::time_point), "troupe::timestamp")
  TROUPE_ADD_CORE_TYPE_ID(builtin, (troupe::unit_t))
  TROUPE_ADD_CORE_TYPE_ID(builtin, (troupe::none_t))
TROUPE_END_TYPE_ID_BLOCK(builtin)

// -- predefined atoms -------------------------------------------------------------

// The atoms CAF predefines, under the same names, so that a handler written
// for CAF (`[](get_atom) { ... }`, `mail(put_atom_v, x)`) reads the same.
// They live in namespace troupe; a program that also defines an atom of one
// of these names with TROUPE_ADD_ATOM should drop its own.

#define TROUPE_PREDEFINED_ATOM(atom_name)                                      \
  struct atom_name : ::troupe::atom_base<atom_name> {};                        \
  inline constexpr atom_name atom_name##_v = atom_name{};                      \
  inline std::string to_string(atom_name) {                                    \
    return #atom_name;                                                         \
  }

namespace troupe {

TROUPE_PREDEFINED_ATOM(add_atom)
TROUPE_PREDEFINED_ATOM(close_atom)
TROUPE_PREDEFINED_ATOM(delete_atom)
TROUPE_PREDEFINED_ATOM(div_atom)
TROUPE_PREDEFINED_ATOM(flush_atom)
TROUPE_PREDEFINED_ATOM(get_atom)
TROUPE_PREDEFINED_ATOM(idle_atom)
TROUPE_PREDEFINED_ATOM(join_atom)
TROUPE_PREDEFINED_ATOM(leave_atom)
TROUPE_PREDEFINED_ATOM(mul_atom)
TROUPE_PREDEFINED_ATOM(ok_atom)
TROUPE_PREDEFINED_ATOM(open_atom)
TROUPE_PREDEFINED_ATOM(pending_atom)
TROUPE_PREDEFINED_ATOM(put_atom)
TROUPE_PREDEFINED_ATOM(read_atom)
TROUPE_PREDEFINED_ATOM(reset_atom)
TROUPE_PREDEFINED_ATOM(spawn_atom)
TROUPE_PREDEFINED_ATOM(sub_atom)
TROUPE_PREDEFINED_ATOM(subscribe_atom)
TROUPE_PREDEFINED_ATOM(tick_atom)
TROUPE_PREDEFINED_ATOM(timeout_atom)
TROUPE_PREDEFINED_ATOM(unsubscribe_atom)
TROUPE_PREDEFINED_ATOM(update_atom)
TROUPE_PREDEFINED_ATOM(write_atom)

// The rest of CAF's predefined atoms, numbered in a block of their own.
TROUPE_PREDEFINED_ATOM(connect_atom)
TROUPE_PREDEFINED_ATOM(contact_atom)
TROUPE_PREDEFINED_ATOM(demonitor_atom)
TROUPE_PREDEFINED_ATOM(forward_atom)
TROUPE_PREDEFINED_ATOM(link_atom)
TROUPE_PREDEFINED_ATOM(migrate_atom)
TROUPE_PREDEFINED_ATOM(monitor_atom)
TROUPE_PREDEFINED_ATOM(ping_atom)
TROUPE_PREDEFINED_ATOM(pong_atom)
TROUPE_PREDEFINED_ATOM(publish_atom)
TROUPE_PREDEFINED_ATOM(publish_udp_atom)
TROUPE_PREDEFINED_ATOM(receive_atom)
TROUPE_PREDEFINED_ATOM(redirect_atom)
TROUPE_PREDEFINED_ATOM(registry_lookup_atom)
TROUPE_PREDEFINED_ATOM(resolve_atom)
TROUPE_PREDEFINED_ATOM(sys_atom)
TROUPE_PREDEFINED_ATOM(unlink_atom)
TROUPE_PREDEFINED_ATOM(unpublish_atom)
TROUPE_PREDEFINED_ATOM(unpublish_udp_atom)
TROUPE_PREDEFINED_ATOM(wait_for_atom)

} // namespace troupe

#undef TROUPE_PREDEFINED_ATOM

TROUPE_BEGIN_TYPE_ID_BLOCK(core_atoms, 120)
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::add_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::close_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::delete_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::div_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::flush_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::get_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::idle_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::join_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::leave_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::mul_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::ok_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::open_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::pending_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::put_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::read_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::reset_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::spawn_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::sub_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::subscribe_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::tick_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::timeout_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::unsubscribe_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::update_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_atoms, (troupe::write_atom))
TROUPE_END_TYPE_ID_BLOCK(core_atoms)

// A block apart, so that the IDs of core_atoms stay what they were.
TROUPE_BEGIN_TYPE_ID_BLOCK(core_more_atoms, 176)
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::connect_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::contact_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::demonitor_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::forward_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::link_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::migrate_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::monitor_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::ping_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::pong_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::publish_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::publish_udp_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::receive_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::redirect_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::registry_lookup_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::resolve_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::sys_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::unlink_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::unpublish_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::unpublish_udp_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_more_atoms, (troupe::wait_for_atom))
TROUPE_END_TYPE_ID_BLOCK(core_more_atoms)
