#pragma once

// An event-based actor with a `state` member that lives until the actor
// terminates, not until the last handle to it is gone: handles stored in the
// state are released when the actor quits. While two actors run, handles
// in each other's state keep both reachable, so such a cycle ends only when
// one of them quits or gets an exit (actor_system::shutdown sends one to
// every actor once the grace period has passed).
//
//   struct counter_state { int value = 0; };
//   behavior counter(stateful_actor<counter_state>* self) {
//     return {[self](int x) { return self->state.value += x; }};
//   }
//
// A state with a make_behavior() can be spawned on its own, as in CAF 1.x:
// sys.spawn(actor_from_state<counter_state>, args...) (actor_from_state.hpp).

#include "troupe/event_based_actor.hpp"

#include <new>
#include <type_traits>
#include <utility>

namespace troupe {

namespace detail {

/// Converts to a pointer to the actor, and to nothing else.
template <class Base>
struct self_pointer_arg {
  Base* ptr;

  template <class T>
    requires(std::is_pointer_v<T> && std::is_convertible_v<Base*, T>)
  operator T() const noexcept {
    return ptr;
  }
};

} // namespace detail

template <class State, class Base = event_based_actor>
class stateful_actor : public Base {
public:
  /// Constructs the state from `xs...`, after a pointer to this actor if
  /// the state's constructor takes one first, as in CAF. Only a pointer
  /// parameter gets it: a state constructible from a bool keeps its own
  /// arguments (a pointer would convert to true).
  template <class... Ts>
  explicit stateful_actor(actor_config& cfg, Ts&&... xs) : Base(cfg) {
    using self_arg = detail::self_pointer_arg<Base>;
    if constexpr (std::is_constructible_v<State, self_arg, Ts&&...>)
      new (&state) State(self_arg{this}, std::forward<Ts>(xs)...);
    else
      new (&state) State(std::forward<Ts>(xs)...);
  }

  ~stateful_actor() override {
    if (!state_destroyed_)
      state.~State();
  }

  union {
    State state;
  };

protected:
  void on_cleanup(const error& reason, execution_unit* ctx) override {
    Base::on_cleanup(reason, ctx);
    if (!state_destroyed_) {
      state_destroyed_ = true;
      state.~State();
    }
  }

private:
  bool state_destroyed_ = false;
};

} // namespace troupe
