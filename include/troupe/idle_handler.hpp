#pragma once

// The tags of scheduled_actor::set_idle_handler, as in CAF 1.x:
//
//   self->set_idle_handler(500ms, strong_ref, repeat, [self] { ... });
//
// The handler runs once the actor has handled no message for the delay.
// `strong_ref` keeps the actor alive while the handler is pending (an actor
// nobody else references still sees it run); `weak_ref` does not. `once`
// runs it the first time the actor turns idle; `repeat` again after every
// further delay without a message, until the actor quits or sets another.

namespace troupe {

struct strong_ref_t {};
inline constexpr strong_ref_t strong_ref{};

struct weak_ref_t {};
inline constexpr weak_ref_t weak_ref{};

struct once_t {};
inline constexpr once_t once{};

struct repeat_t {};
inline constexpr repeat_t repeat{};

} // namespace troupe
