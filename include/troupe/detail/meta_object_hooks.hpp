#pragma once

// The serialization hooks of the meta objects: for each type with an
// inspect() (or one of the types inspect.hpp knows), one function per
// inspector that saves or loads a value given as `void*`. Null otherwise.
// Likewise the stringify hook, which prints through the stringification
// inspector the inspectable types that stringify_value (meta_object.hpp)
// would print as "<unprintable>", in whole or in part.
//
// Every serialization header includes this one at its end, and this one
// includes them all: a translation unit that reads any of them has every
// inspector complete by its end, where type_id.hpp's register_type builds
// the meta objects and finds meta_object_hooks defined. Translation units
// without serialization register meta objects without these hooks; the
// registration of one that has them wins (see register_meta_object).
// Troupe's own types get theirs once, in src/detail/core_types.cpp.

#include "troupe/detail/meta_object.hpp"
#include "troupe/error.hpp"
#include "troupe/binary_deserializer.hpp"
#include "troupe/binary_serializer.hpp"
#include "troupe/serialization/inspect.hpp"
#include "troupe/json_reader.hpp"
#include "troupe/json_writer.hpp"
#include "troupe/deep_to_string.hpp"
#include "troupe/type_id.hpp"

#include <new>
#include <string>
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
  detail::append_deep_to_string(out, *static_cast<const T*>(ptr));
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

  static constexpr void add_to(meta_object& obj) {
    obj.save_binary = save<binary_serializer>();
    obj.load_binary = load<binary_deserializer>();
    obj.save_json = save<json_writer>();
    obj.load_json = load<json_reader>();
    // Types stringify_value prints in full keep that (cheaper) path.
    if constexpr (enabled && !stringify_value_prints<T>())
      obj.stringify = &stringify_hook<T>;
    obj.hooks_included = true;
  }
};

} // namespace troupe::detail
