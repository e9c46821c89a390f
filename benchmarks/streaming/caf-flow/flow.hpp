#pragma once

// The CAF 1.x flow-API versions (system caf-1.x-flow): the micro cases
// written with CAF's own reactive streams, as a CAF user moves items between
// actors without a message per item. Every operator is an actor spawned
// inactive; its stage of the flow is defined on it, and observe_on(next)
// hands the items to the next actor through CAF's single-producer
// single-consumer buffer, in batches, with demand as back-pressure. CAF 0.17
// has no flow API. The applications have no such version: their by-key
// farms need a keyed split of one observable over several actors, which CAF
// 1.1's operators do not offer.

#include "streaming/caf/micro_types.hpp"

#include <caf/scheduled_actor/flow.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

static_assert(CAF_MAJOR_VERSION >= 1, "the flow API needs CAF 1.x");

namespace streaming::flow {

using micro::item;

/// observe_on's buffer (items) and the least demand a consumer signals. CAF's
/// defaults (a buffer of 128) cost about 700 ns per tuple between two
/// workers in producer_consumer, where a sweep of both on a 2-core VM found
/// 4096 and 1024 the fastest (about 53 ns): the study measures CAF's flows
/// at their best, not at a default it is easy to change.
constexpr size_t buffer_size = 4096;
constexpr size_t min_request_size = 1024;

/// How often a paced source looks at the clock: it then emits the tuples
/// that are due (CAF's interval operator, one timer event per tick).
constexpr auto pace_tick = std::chrono::microseconds{100};

/// `count` tuples made on `self`, as micro::make_item makes them: at full
/// speed an iota mapped to items; paced to `rate` tuples/s, a tick of
/// pace_tick mapped to the tuples due by then, each stamped when emitted.
inline caf::flow::observable<item> source(caf::event_based_actor* self, uint64_t count,
                                          uint64_t rate) {
  if (rate == 0)
    return self->make_observable()
      .iota(uint64_t{0})
      .take(count)
      .map([](uint64_t k) { return micro::make_item(k, 0); })
      .as_observable();
  struct progress {
    pacer pace;
    uint64_t next = 0;
  };
  auto state = std::make_shared<progress>(progress{pacer{rate}});
  return self->make_observable()
    .interval(pace_tick)
    .take_while([state, count](int64_t) { return state->next < count; })
    .concat_map([self, state, count](int64_t) {
      std::vector<item> due;
      auto now = now_ns();
      for (; state->next < count && state->pace.due(state->next) <= now; ++state->next)
        due.push_back(micro::make_item(state->next, now_ns()));
      return self->make_observable().from_container(std::move(due)).as_observable();
    })
    .as_observable();
}

/// Ends a flow on `self`, an actor spawned inactive: every item into
/// `result`, then done_atom to `done` (main's scoped actor).
inline void into_sink(caf::flow::observable<item> in, caf::event_based_actor* self, sink* result,
                      caf::actor done) {
  std::move(in)
    .do_on_complete([self, done] { self->mail(done_atom_v).send(done); })
    .for_each([result](const item& x) { result->consume(x); });
}

} // namespace streaming::flow
