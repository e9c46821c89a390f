#pragma once

// Lets one benchmark source build against CAF 0.17 (Debian's libcaf-dev) and
// CAF 1.x: each helper maps to the call a CAF user writes for that version
// (`send`/`request` in 0.17, the mail API in 1.x, where the former are
// deprecated). Atoms and type-ID blocks stay in the programs, behind
// `#if CAF_MAJOR_VERSION >= 1`.

#include <caf/actor_registry.hpp>
#include <caf/all.hpp>
#include <caf/config.hpp>

#include <chrono>
#include <cstddef>
#include <thread>
#include <utility>

// CAF 1.1's generated build_config.hpp writes CAF_VERSION as 0100 (an octal
// literal), so versions are told apart by CAF_MAJOR_VERSION, which both
// define. CMake passes the major version of the library it links; a mismatch
// means the compiler found the other version's headers first.
#if defined(TROUPE_BENCH_CAF_MAJOR) && CAF_MAJOR_VERSION != TROUPE_BENCH_CAF_MAJOR
#  error "CAF headers and library differ in version: check the include path"
#endif

#if CAF_MAJOR_VERSION >= 1
#  define BENCH_CAF_INIT_META_OBJECTS(block)                                  \
    (caf::init_global_meta_objects<caf::id_block::block>(),                   \
     caf::core::init_global_meta_objects())
#else
// 0.17 has no global meta objects: local messages need no registration.
#  define BENCH_CAF_INIT_META_OBJECTS(block) static_cast<void>(0)
#endif

namespace caf_compat {

/// Caps the scheduler's worker threads (the key moved under `caf.` in 1.0).
inline void set_max_threads(caf::actor_system_config& cfg, size_t threads) {
#if CAF_MAJOR_VERSION >= 1
  cfg.set("caf.scheduler.max-threads", threads);
#else
  cfg.set("scheduler.max-threads", threads);
#endif
}

/// Asynchronous message from `self` to `dest`.
template <class Self, class Dest, class... Ts>
void tell(Self* self, const Dest& dest, Ts&&... xs) {
#if CAF_MAJOR_VERSION >= 1
  self->mail(std::forward<Ts>(xs)...).send(dest);
#else
  self->send(dest, std::forward<Ts>(xs)...);
#endif
}

/// Asynchronous message without a sender.
template <class Dest, class... Ts>
void anon_tell(const Dest& dest, Ts&&... xs) {
#if CAF_MAJOR_VERSION >= 1
  caf::anon_mail(std::forward<Ts>(xs)...).send(dest);
#else
  caf::anon_send(dest, std::forward<Ts>(xs)...);
#endif
}

/// Request without timeout; the caller attaches `.then(...)` (event-based
/// actors) or `.receive(...)` (blocking actors).
template <class Self, class Dest, class... Ts>
auto ask(Self* self, const Dest& dest, Ts&&... xs) {
#if CAF_MAJOR_VERSION >= 1
  return self->mail(std::forward<Ts>(xs)...).request(dest, caf::infinite);
#else
  return self->request(dest, caf::infinite, std::forward<Ts>(xs)...);
#endif
}

namespace detail {

// CAF's main branch moved the count from the registry to the system.
template <class System>
auto running_actors(System& sys, int) -> decltype(sys.running_actors_count()) {
  return sys.running_actors_count();
}

template <class System>
size_t running_actors(System& sys, long) {
  return sys.registry().running();
}

} // namespace detail

/// Actors alive now that are not hidden (a scoped actor counts).
inline size_t running_actors(caf::actor_system& sys) {
  return detail::running_actors(sys, 0);
}

/// Waits until no more than `count` actors run (polling every millisecond:
/// CAF's own wait differs between versions).
inline void await_running_actors(caf::actor_system& sys, size_t count) {
  while (running_actors(sys) > count)
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
}

} // namespace caf_compat
