#pragma once

// What the work-stealing worker loop asks of an idle mode (idle/adaptive,
// idle/event, idle/polling). The loop is instantiated once per mode
// (static dispatch), so the hot calls inline into it.
//
// An idle mode is a type M, constructed from a `core&`, with:
// - std::optional<resumable*> search(worker& w): w ran out of local work and
//   counts as searching; look for work before blocking (Algorithm 1's
//   polling tiers, or the adaptive spin).
// - std::optional<resumable*> block(worker& w, bool& searching): nothing
//   found; block until work may be there (park, wait on the event, sleep),
//   and return a job if it took one on the way. `searching` says on return
//   whether w still counts as searching.
// - void found_work(worker& w, uint64_t idle_before): w left the searching
//   count (`idle_before` is the word before it did) to run a job.
// - void after_local_push(): a worker pushed onto its own deque or slot.
// - void after_injection(): any thread pushed onto the injection queue.
// - void after_push_to(size_t index): any thread pushed onto the affinity
//   queue of worker `index` (locality policy), which should run it.
// - void wake_all(): stop: every blocked worker looks again.
// search(), block() and found_work() run on w's own thread.

#include "../stealing/worker.hpp"

#include "troupe/resumable.hpp"

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace troupe::detail::idle {

template <class M>
concept mode = std::constructible_from<M, stealing::core&>
               && requires(M& m, stealing::worker& w, bool& searching, uint64_t before,
                           size_t index) {
                    { m.search(w) } -> std::same_as<std::optional<resumable*>>;
                    { m.block(w, searching) } -> std::same_as<std::optional<resumable*>>;
                    m.found_work(w, before);
                    m.after_local_push();
                    m.after_injection();
                    m.after_push_to(index);
                    m.wake_all();
                  };

} // namespace troupe::detail::idle
