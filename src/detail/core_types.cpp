// The meta objects of Troupe's own types, registered once for the program:
// translation units that include the core's type ID blocks compile none of
// their own (their registration code took most of a small program's compile
// time). This one includes every serializer, so each object has every hook.

#include "troupe/detail/meta_object_hooks.hpp"
#include "troupe/error.hpp"
#include "troupe/patterns/detail/stage.hpp"
#include "troupe/stream/detail/graph_messages.hpp"
#include "troupe/system_messages.hpp"
#include "troupe/type_id.hpp"

#include <utility>

namespace troupe::detail {

namespace {

struct library_unit {};

template <class Block, type_id_t... Offsets>
void register_block(std::integer_sequence<type_id_t, Offsets...>) noexcept {
  (register_type<typename core_type_at<Block::begin + Offsets>::type, library_unit>(), ...);
}

template <class Block>
void register_block() noexcept {
  register_block<Block>(std::make_integer_sequence<type_id_t, Block::end - Block::begin>{});
}

} // namespace

bool register_core_types() noexcept {
  static const bool registered = [] {
    register_block<id_block::builtin>();
    register_block<id_block::core_errors>();
    register_block<id_block::core_actors>();
    register_block<id_block::core_atoms>();
    register_block<id_block::core_more_atoms>();
    register_block<id_block::core_patterns>();
    register_block<id_block::core_stream>();
    return true;
  }();
  return registered;
}

} // namespace troupe::detail
