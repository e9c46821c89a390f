#pragma once

// CAF programs register each type ID block before they start an actor system
// (`init_global_meta_objects<id_block::my_app>()`, `core::init_global_meta_
// objects()`). Troupe registers every block on its own as the program
// starts, so these calls do nothing; they stay valid for code ported from
// CAF.

namespace troupe {

/// Does nothing: the block `Block` is registered already.
template <class Block>
void init_global_meta_objects() noexcept {}

namespace core {

/// Does nothing: Troupe's own types are registered already.
inline void init_global_meta_objects() noexcept {}

} // namespace core

} // namespace troupe
