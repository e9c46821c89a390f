#pragma once

// The actor behind a pattern's handle. It takes the pattern's input and
// routes each item into the first stage, keeping the item's sender and
// request ID so that the final stage answers the requester itself. It
// watches every actor of the pattern and stops them when it stops, so a
// pattern behaves as one actor to links and monitors; once no handle to it
// remains, it drains the pattern (the work in flight finishes, then the
// actors quit).

#include "troupe/event_based_actor.hpp"
#include "troupe/patterns/detail/stage.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace troupe::patterns::detail {

/// Filled in by spawn_pattern after the handle actor exists and before the
/// handle is handed out.
struct handle_state {
  std::string name;
  route_ptr entry;
  /// Actors at the end of the pattern (each reports its end of stream).
  size_t exits = 1;
  std::vector<actor> actors;
  /// Where the results of plain sends go; nullptr: back to their senders.
  strong_actor_ptr sink;
  /// True if the pattern takes the message; empty: the first stage decides.
  std::function<bool(const message&)> accepts;
  /// The input types, for the error of a message the pattern does not take.
  std::string input_names;
};

class handle_actor final : public event_based_actor {
public:
  handle_actor(actor_config& cfg, std::shared_ptr<handle_state> st);

  const char* name() const noexcept override {
    return state_->name.c_str();
  }

protected:
  behavior make_behavior() override;

  void on_cleanup(const error& reason, execution_unit* ctx) override;

private:
  std::shared_ptr<handle_state> state_;
  /// Who gets the end of stream once every exit has passed it on.
  strong_actor_ptr eos_target_;
  size_t exits_done_ = 0;
};

} // namespace troupe::patterns::detail
