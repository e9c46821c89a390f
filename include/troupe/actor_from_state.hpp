#pragma once

// CAF 1.x's actor_from_state: an actor made of a state class alone.
//
//   struct cell_state {
//     event_based_actor* self;
//     int value;
//     cell_state(event_based_actor* self, int init) : self(self), value(init) {}
//     behavior make_behavior() {
//       return {[this](get_atom) { return value; }};
//     }
//   };
//   auto cell = sys.spawn(actor_from_state<cell_state>, 42);
//
// The state's constructor takes the self pointer first if it wants it. A
// make_behavior() returning a typed_behavior<Sigs...> makes a typed actor
// (its self pointer is typed_actor<Sigs...>::pointer). The state lives until
// the actor terminates, as in stateful_actor.

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/stateful_actor.hpp"
#include "troupe/typed_actor.hpp"

#include <utility>

namespace troupe {

namespace detail {

template <class State>
using state_behavior_t = decltype(std::declval<State&>().make_behavior());

template <class State>
using state_actor_base_t = typename behavior_actor<state_behavior_t<State>>::type;

/// The actor that runs `State`'s behavior.
template <class State>
class actor_from_state_impl final : public stateful_actor<State, state_actor_base_t<State>> {
public:
  using super = stateful_actor<State, state_actor_base_t<State>>;

  using super::super;

protected:
  state_behavior_t<State> make_behavior() override {
    return this->state.make_behavior();
  }
};

} // namespace detail

} // namespace troupe
