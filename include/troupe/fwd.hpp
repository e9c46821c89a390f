#pragma once

// Forward declarations of Troupe's main types, for headers that name them
// without needing their definitions (the core names the inspectors of
// troupe/serialization/ this way, so that it never includes them).
//
// A leaf: includes no other header.

#include <cstdint>
#include <string>

namespace troupe {

using type_id_t = uint16_t;

template <class T>
struct type_id;
template <class T>
struct type_name;

class actor;
class actor_addr;
class actor_control_block;
class strong_actor_ptr;
class actor_system;
class actor_system_config;
class behavior;
class error;
class message;
template <class T>
class expected;

// Inspectors (troupe/serialization/).
class binary_serializer;
class binary_deserializer;
class json_writer;
class json_reader;
class stringification_inspector;

namespace detail {

/// Writes and reads actor handles for the binary inspectors; defined in
/// troupe/serialization/actor_codec.hpp.
class actor_codec;

/// Defined in troupe/deep_to_string.hpp.
template <class T>
void append_deep_to_string(std::string& out, const T& x);

} // namespace detail

} // namespace troupe
