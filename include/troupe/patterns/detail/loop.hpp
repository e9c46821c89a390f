#pragma once

// Feedback loops: a pipeline whose results go back to one of its stages while
// the user's condition holds. Two routes share one loop_state:
//   - loop_entry, the pipeline's entry, counts the items that come in and
//     holds stream markers back while items are inside, so a marker never
//     overtakes an item that is still going round (nor does a drain stop the
//     first stage before the last round came back);
//   - loop_exit, where the last stage sends its results, sends a result back
//     into the first stage or lets it out, counts the ones that leave, and
//     releases the held markers once none is inside.
// Both run on different actors' threads: the counts and the held markers are
// guarded by the state's mutex (one lock per item entering or leaving).

#include "troupe/actor.hpp"
#include "troupe/patterns/detail/route.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace troupe::patterns::detail {

struct loop_state {
  std::mutex mtx;
  uint64_t inside = 0; // guarded by mtx
  std::vector<std::pair<strong_actor_ptr, message>> held; // guarded by mtx
  /// The route into the stage results go back to, set once the pipeline is built (before
  /// the handle is handed out); each route clones it.
  route_ptr first;
  /// True: the result goes round again.
  std::function<bool(const message&)> again;
  /// The pattern's handle, told of an end of stream leaving the pattern.
  actor_addr handle;
};

using loop_state_ptr = std::shared_ptr<loop_state>;

class loop_entry final : public route {
public:
  explicit loop_entry(loop_state_ptr st) : st_(std::move(st)), first_(st_->first->clone()) {}

  std::unique_ptr<route> clone() const override;
  void send(local_actor* self, strong_actor_ptr sender, message_id mid, message msg,
            execution_unit* ctx) override;
  void broadcast(local_actor* self, const strong_actor_ptr& sender, const message& marker,
                 execution_unit* ctx) override;

private:
  loop_state_ptr st_;
  route_ptr first_;
};

class loop_exit final : public route {
public:
  /// `out`: where results leaving the loop go (nullptr: they answer).
  loop_exit(loop_state_ptr st, route_ptr out) : st_(std::move(st)), out_(std::move(out)) {}

  std::unique_ptr<route> clone() const override;
  void send(local_actor* self, strong_actor_ptr sender, message_id mid, message msg,
            execution_unit* ctx) override;
  void broadcast(local_actor* self, const strong_actor_ptr& sender, const message& marker,
                 execution_unit* ctx) override;

private:
  route* first();

  loop_state_ptr st_;
  route_ptr out_;
  route_ptr first_; // cloned from the state on first use
};

} // namespace troupe::patterns::detail
