#pragma once

// How Troupe sets up the general-purpose allocator behind its thread caches
// (mimalloc unless built with TROUPE_MIMALLOC=OFF).

namespace troupe::detail {

/// Whether operator new is mimalloc's in this build.
bool allocator_is_mimalloc() noexcept;

/// Called by every actor_system: lets the allocator give memory back to
/// the kernel as soon as a whole span of it is free. mimalloc otherwise
/// decommits freed spans only after a delay and only when the thread that
/// allocated them allocates again; a main thread that spawned a million
/// actors and then waits would keep their memory after they terminated. An
/// explicit MIMALLOC_DECOMMIT_DELAY in the environment wins.
void configure_allocator() noexcept;

} // namespace troupe::detail
