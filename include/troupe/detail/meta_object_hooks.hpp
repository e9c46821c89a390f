#pragma once

// The serialization hooks of the meta objects: for each type with an
// inspect() (or one of the types inspect.hpp knows), one function per
// inspector that saves or loads a value given as `void*`. Null otherwise.
// Likewise the stringify hook, which prints through the stringification
// inspector the inspectable types that stringify_value (meta_object.hpp)
// would print as "<unprintable>", in whole or in part.
//
// Included at the end of type_id.hpp, or by the first serialization header a
// translation unit reads (see the include protocol in inspect.hpp); it pulls
// in every inspector so that the hook bodies can be instantiated.

#ifndef TROUPE_SERIALIZATION_HEADERS_OPEN
#define TROUPE_SERIALIZATION_HEADERS_OPEN
#define TROUPE_SERIALIZATION_OPENED_BY_META_OBJECT_HOOKS
#endif

#include "troupe/detail/meta_object.hpp"
#include "troupe/serialization/binary_deserializer.hpp"
#include "troupe/serialization/binary_serializer.hpp"
#include "troupe/serialization/inspect.hpp"
#include "troupe/serialization/json_reader.hpp"
#include "troupe/serialization/json_writer.hpp"
#include "troupe/serialization/stringification_inspector.hpp"

#include <new>
#include <type_traits>

namespace troupe::detail {

template <class Inspector, class T>
bool save_hook(Inspector& f, const void* ptr) {
  return f.apply(*static_cast<const T*>(ptr));
}

/// Default-constructs a T in the raw storage at `ptr` and loads it; if that
/// fails (or throws) the T is destroyed again, leaving `ptr` raw. One call
/// per element instead of two, for the message loaders.
template <class Inspector, class T>
bool load_hook(Inspector& f, void* ptr) {
  if constexpr (std::is_default_constructible_v<T>) {
    struct destroy_unless_loaded {
      T* x;
      bool loaded = false;
      ~destroy_unless_loaded() {
        if (!loaded)
          x->~T();
      }
    };
    destroy_unless_loaded guard{new (ptr) T()};
    guard.loaded = f.apply(*guard.x);
    return guard.loaded;
  } else {
    return false; // never called: loaders check default_construct first
  }
}

template <class T>
void stringify_hook(std::string& out, const void* ptr) {
  append_deep_to_string(out, *static_cast<const T*>(ptr));
}

template <class T>
struct meta_object_hooks {
  static constexpr bool enabled = is_inspectable_v<T>;

  template <class Inspector>
  static constexpr auto save() {
    using fn = bool (*)(Inspector&, const void*);
    if constexpr (enabled)
      return fn{&save_hook<Inspector, T>};
    else
      return fn{nullptr};
  }

  template <class Inspector>
  static constexpr auto load() {
    using fn = bool (*)(Inspector&, void*);
    if constexpr (enabled)
      return fn{&load_hook<Inspector, T>};
    else
      return fn{nullptr};
  }

  static constexpr auto save_binary = save<binary_serializer>();
  static constexpr auto load_binary = load<binary_deserializer>();
  static constexpr auto save_json = save<json_writer>();
  static constexpr auto load_json = load<json_reader>();

  // Types stringify_value prints in full keep that (cheaper) path.
  static constexpr auto stringify = [] {
    using fn = void (*)(std::string&, const void*);
    if constexpr (enabled && !stringify_value_prints<T>())
      return fn{&stringify_hook<T>};
    else
      return fn{nullptr};
  }();
};

} // namespace troupe::detail

// The hooks of Troupe's own types are compiled once, in
// src/detail/meta_object_hooks.cpp, instead of in every translation unit
// that reads type_id.hpp.
#define TROUPE_BUILTIN_SERIALIZABLE_TYPES(X)                                   \
  X(bool)                                                                      \
  X(char)                                                                      \
  X(int8_t)                                                                    \
  X(int16_t)                                                                   \
  X(int32_t)                                                                   \
  X(int64_t)                                                                   \
  X(long long)                                                                 \
  X(uint8_t)                                                                   \
  X(uint16_t)                                                                  \
  X(uint32_t)                                                                  \
  X(uint64_t)                                                                  \
  X(unsigned long long)                                                        \
  X(float)                                                                     \
  X(double)                                                                    \
  X(long double)                                                               \
  X(std::string)                                                               \
  X(std::u16string)                                                            \
  X(std::u32string)                                                            \
  X(std::vector<std::byte>)                                                    \
  X(std::vector<bool>)                                                         \
  X(std::vector<int32_t>)                                                      \
  X(std::vector<int64_t>)                                                      \
  X(std::vector<uint64_t>)                                                     \
  X(std::vector<double>)                                                       \
  X(std::vector<std::string>)                                                  \
  X(troupe::timespan)                                                          \
  X(std::chrono::system_clock::time_point)                                     \
  X(troupe::unit_t)                                                            \
  X(troupe::errc)                                                              \
  X(troupe::exit_reason)                                                       \
  X(troupe::error)

#define TROUPE_DECLARE_BUILTIN_HOOKS(type)                                     \
  extern template bool troupe::detail::save_hook<troupe::binary_serializer, type>( \
    troupe::binary_serializer&, const void*);                                  \
  extern template bool troupe::detail::load_hook<troupe::binary_deserializer, type>( \
    troupe::binary_deserializer&, void*);                                      \
  extern template bool troupe::detail::save_hook<troupe::json_writer, type>(   \
    troupe::json_writer&, const void*);                                        \
  extern template bool troupe::detail::load_hook<troupe::json_reader, type>(   \
    troupe::json_reader&, void*);

TROUPE_BUILTIN_SERIALIZABLE_TYPES(TROUPE_DECLARE_BUILTIN_HOOKS)

#undef TROUPE_DECLARE_BUILTIN_HOOKS

#ifdef TROUPE_SERIALIZATION_OPENED_BY_META_OBJECT_HOOKS
#undef TROUPE_SERIALIZATION_OPENED_BY_META_OBJECT_HOOKS
#undef TROUPE_SERIALIZATION_HEADERS_OPEN
#endif
