#pragma once

// The class-based typed actor: a subclass of typed_event_based_actor<Sigs...>
// overrides make_behavior() and returns a typed_behavior<Sigs...>.

#include "troupe/actor_system.hpp"
#include "troupe/scheduled_actor.hpp"
#include "troupe/typed_actor.hpp"
#include "troupe/typed_behavior.hpp"

#include <utility>

namespace troupe {

template <class... Sigs>
class typed_event_based_actor;

namespace detail {

template <class... Sigs>
struct behavior_actor<typed_behavior<Sigs...>> {
  using type = typed_event_based_actor<Sigs...>;
};

} // namespace detail

/// The class-based typed actor: override make_behavior.
template <class... Sigs>
class typed_event_based_actor : public scheduled_actor {
public:
  using behavior_type = typed_behavior<Sigs...>;
  using handle_type = typed_actor<Sigs...>;

  using scheduled_actor::scheduled_actor;

  void become(behavior_type bhvr) {
    scheduled_actor::become(std::move(bhvr).unbox());
  }

  void become(keep_behavior_t, behavior_type bhvr) {
    scheduled_actor::become(keep_behavior, std::move(bhvr).unbox());
  }

protected:
  virtual behavior_type make_behavior() {
    return {};
  }

  behavior initial_behavior() override {
    return make_behavior().unbox();
  }
};

} // namespace troupe
