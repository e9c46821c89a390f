#pragma once

// What every actor inside a pattern shares: where its results go, its name
// for error messages, and the bookkeeping of the stream markers.
//
// Stream markers travel behind the items: `close_atom` (the sender's stream
// ended; the same atom ends a troupe::stream actor input) and `drain_atom`
// (the pattern's handle is gone: stop once the work in flight is done). An
// actor passes a marker on once it got it from every actor upstream of it
// (its fan-in, set when the pattern is built) and the asynchronous work it
// started before (map jobs, requests to a user's actor) has finished, so the
// marker never overtakes an item.

#include "troupe/actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/patterns/detail/route.hpp"

#include <cstddef>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace troupe::patterns::detail {

/// Internal: the pattern's handle is gone; finish the work in flight, pass
/// this on, then quit.
struct drain_atom : atom_base<drain_atom> {};

inline std::string to_string(drain_atom) {
  return "troupe::patterns::drain_atom";
}

/// Internal: a job of a map or div_conq stage finished request `id`.
struct job_done_atom : atom_base<job_done_atom> {};

inline std::string to_string(job_done_atom) {
  return "troupe::patterns::job_done_atom";
}

/// Internal: an actor at the end of the pattern has passed its end of
/// stream; the pattern's handle sends one close_atom on once all
/// have.
struct stream_done_atom : atom_base<stream_done_atom> {};

inline std::string to_string(stream_done_atom) {
  return "troupe::patterns::stream_done_atom";
}

} // namespace troupe::patterns::detail

TROUPE_BEGIN_TYPE_ID_BLOCK(core_patterns, 160)
  TROUPE_ADD_CORE_TYPE_ID(core_patterns, (troupe::patterns::detail::drain_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_patterns, (troupe::patterns::detail::job_done_atom))
  TROUPE_ADD_CORE_TYPE_ID(core_patterns, (troupe::patterns::detail::stream_done_atom))
TROUPE_END_TYPE_ID_BLOCK(core_patterns)

namespace troupe::patterns::detail {

/// How many actors upstream send markers to an actor. Written once by the
/// builder before the pattern's handle is handed out (the first message
/// orders it before any read).
struct fan_in {
  size_t value = 1;
};

using fan_in_ptr = std::shared_ptr<fan_in>;

/// A request a stage answers later, in input order (reorder_window's slot
/// in ordered farms and actor stages): its result or its error.
struct pending_request {
  strong_actor_ptr sender;
  message_id mid;
  message result;
  error err;
  bool done = false;

  bool ready() const noexcept {
    return done;
  }
};

/// Everything a stage's actors are spawned with.
struct stage_config {
  std::string name;
  route_ptr next; // nullptr: the results answer the requests
  fan_in_ptr upstream;
  /// The pattern's handle, told when an end of stream left the pattern.
  actor_addr handle;
};

class stage_actor : public event_based_actor {
public:
  stage_actor(actor_config& cfg, stage_config sc);

  const char* name() const noexcept override {
    return name_.c_str();
  }

protected:
  /// Sends a result on: into the next stage, or back to the request.
  void emit(strong_actor_ptr sender, message_id mid, message msg);

  /// emit() for the message being handled now; its handler must not answer.
  void emit_current(message msg);

  /// The sender and message ID of the message being handled now, which this
  /// stage answers itself later (its handler must not).
  std::pair<strong_actor_ptr, message_id> take_current_request();

  /// Answers the request (`sender`, `mid`) with `err`.
  void reject(strong_actor_ptr sender, message_id mid, error err);

  /// Sends a done pending request's result on, or answers it with its
  /// error; ends its work (begin_work when it came).
  void settle(pending_request&& x);

  /// The error a request fails with when user code threw `e`.
  error failure(std::exception_ptr e) const;

  /// Asynchronous work the markers must wait for.
  void begin_work() noexcept {
    ++in_flight_;
  }

  void end_work();

  /// Handler of close_atom for every stage's behavior.
  void on_end_of_stream();

  /// Handler of drain_atom for every stage's behavior.
  void on_drain();

  /// The stage's own result route (nullptr at the end of the pattern).
  route* next() const noexcept {
    return next_.get();
  }

  /// Called once the stage drained, before it quits: a stage with actors of
  /// its own behind it drains them here.
  virtual void on_drained() {}

  /// Drops the routes: a feedback loop's routes reach back to its first
  /// stage, a cycle of strong references that only termination breaks.
  void on_cleanup(const error& reason, execution_unit* ctx) override;

private:
  void pass_markers();

  std::string name_;
  route_ptr next_;
  fan_in_ptr upstream_;
  actor_addr handle_;
  size_t in_flight_ = 0;
  size_t eos_seen_ = 0;
  size_t eos_ready_ = 0; // complete ends of stream waiting for in_flight_
  size_t drains_seen_ = 0;
  bool drain_ready_ = false;
};

/// What a built pattern offers its upstream.
struct built {
  /// Where the upstream sends items.
  route_ptr entry;
  /// Actors that send this pattern's results on (each sends markers on).
  size_t exits = 0;
  /// The fan-in cells of the actors `entry` reaches: the upstream sets them.
  std::vector<fan_in_ptr> entry_fan_in;
};

/// State shared while one pattern is built.
struct build_context {
  actor_system& sys;
  /// The handle being built (stage_config::handle).
  actor_addr handle;
  /// Every actor spawned for the pattern, for the handle to link and stop.
  std::vector<actor> actors;

  /// A stage_config for a stage at `path` sending to `next`.
  stage_config config(std::string path, route_ptr next) const {
    return stage_config{std::move(path), std::move(next), std::make_shared<fan_in>(), handle};
  }

  /// Spawns a stage actor of type T (constructed from an actor_config and
  /// `xs`) and records it.
  template <class T, class... Ts>
  actor spawn(Ts&&... xs) {
    auto hdl = sys.spawn<T>(std::forward<Ts>(xs)...);
    actors.push_back(hdl);
    return hdl;
  }

  /// A stage of one actor of type T at `path`, sending to `next`: built from
  /// a stage_config and `xs`.
  template <class T, class... Ts>
  built single(std::string path, route_ptr next, Ts&&... xs) {
    auto sc = config(std::move(path), std::move(next));
    built result;
    result.entry_fan_in.push_back(sc.upstream);
    result.exits = 1;
    auto hdl = spawn<T>(std::move(sc), std::forward<Ts>(xs)...);
    result.entry = std::make_unique<actor_route>(hdl.ptr());
    return result;
  }
};

/// Tells the pattern's handle that an end of stream left the pattern at
/// `from`.
void report_stream_done(const actor_addr& handle, strong_actor_ptr from, execution_unit* ctx);

/// Sets every cell to `n`.
inline void set_fan_in(const std::vector<fan_in_ptr>& cells, size_t n) {
  for (const auto& cell : cells)
    cell->value = n;
}

} // namespace troupe::patterns::detail
