#pragma once

// Event-based actors: the default kind. Class-based ones override
// make_behavior; function-based ones are spawned from a function returning
// their behavior (see actor_system::spawn).

#include "troupe/scheduled_actor.hpp"

#include <functional>
#include <type_traits>

namespace troupe {

class event_based_actor : public scheduled_actor {
public:
  using behavior_type = behavior;
  using handle_type = actor;

  using scheduled_actor::scheduled_actor;

protected:
  virtual behavior make_behavior() {
    return {};
  }

  behavior initial_behavior() override {
    return make_behavior();
  }
};

namespace detail {

/// An actor whose initial behavior comes from a function bound at spawn.
template <class Base>
class function_based_actor final : public Base {
public:
  using init_fn = std::function<behavior(Base*)>;

  template <class... Ts>
  function_based_actor(actor_config& cfg, init_fn f, Ts&&... xs)
    : Base(cfg, std::forward<Ts>(xs)...), init_(std::move(f)) {}

protected:
  behavior initial_behavior() override {
    // Moved out so the bound arguments die once the actor is initialised.
    auto f = std::move(init_);
    return f(this);
  }

private:
  init_fn init_;
};

} // namespace detail

} // namespace troupe
