#pragma once

// The stream layer's messages. graph_done_atom: the last runner of a graph
// tells the graph's actor that the graph has finished, with the error it
// failed with (none if it ran to the end). pull_atom: a member of a graph
// that is an actor (an actor input or stage) is told to look at its rings.

#include "troupe/type_id.hpp"

#include <string>

namespace troupe::stream::detail {

struct graph_done_atom : atom_base<graph_done_atom> {};

inline std::string to_string(graph_done_atom) {
  return "troupe::stream::graph_done_atom";
}

struct pull_atom : atom_base<pull_atom> {};

inline std::string to_string(pull_atom) {
  return "troupe::stream::pull_atom";
}

} // namespace troupe::stream::detail

TROUPE_BEGIN_TYPE_ID_BLOCK(core_stream, 170)
  TROUPE_ADD_CORE_TYPE_ID(core_stream, (troupe::stream::detail::graph_done_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_stream, (troupe::stream::detail::pull_atom))
TROUPE_END_TYPE_ID_BLOCK(core_stream)
