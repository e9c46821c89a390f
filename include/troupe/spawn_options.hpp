#pragma once

// What spawn takes besides the actor: flags, and the tag of an actor made of
// a state class alone. Apart from actor_system.hpp so that local_actor.hpp
// can declare `self->spawn`.

namespace troupe {

/// Flags for spawn: `spawn<detached>(fn)`.
enum spawn_options : unsigned {
  no_spawn_options = 0,
  /// Runs the actor on a thread of its own.
  detached = 1,
  /// Not counted by await_all_actors_done.
  hidden = 2,
  /// A long-lived actor that spawns and talks to many others: the locality
  /// policy starts hubs on different NUMA nodes, far from each other. Other
  /// policies treat it as any actor.
  hub = 4,
};

/// The spawn argument of an actor made of a state class alone:
/// `sys.spawn(actor_from_state<State>, args...)` (actor_from_state.hpp).
template <class State>
struct actor_from_state_t {};

template <class State>
inline constexpr actor_from_state_t<State> actor_from_state{};

namespace detail {

template <class T>
inline constexpr bool is_actor_from_state_v = false;

template <class State>
inline constexpr bool is_actor_from_state_v<actor_from_state_t<State>> = true;

} // namespace detail

constexpr spawn_options operator+(spawn_options x, spawn_options y) noexcept {
  return static_cast<spawn_options>(static_cast<unsigned>(x) | static_cast<unsigned>(y));
}

constexpr bool has_option(spawn_options x, spawn_options flag) noexcept {
  return (static_cast<unsigned>(x) & static_cast<unsigned>(flag)) != 0;
}

} // namespace troupe
