#pragma once

// The atoms CAF predefines, under the same names, so that a handler written
// for CAF (`[](get_atom) { ... }`, `mail(put_atom_v, x)`) reads the same.
// They live in namespace troupe; a program that also defines an atom of one
// of these names with TROUPE_ADD_ATOM should drop its own.

#include "troupe/type_id.hpp"

#include <string>

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
