#include "troupe/patterns/seq.hpp"

#include <limits>

namespace troupe::patterns {

namespace detail {

actor_stage::actor_stage(actor_config& cfg, stage_config sc, factory make)
  : stage_actor(cfg, std::move(sc)),
    make_(std::move(make)),
    // No bound of its own: the requests that wait are the items sent in.
    core_(std::string{"stage "} + name(), std::numeric_limits<size_t>::max()) {}

behavior actor_stage::make_behavior() {
  worker_ = make_(system());
  monitor(worker_);
  // The worker died (its own handler threw, or someone killed it): the items
  // it held got errors; a fresh one takes the next items.
  set_down_handler([this](down_msg& msg) {
    if (msg.source == worker_.address()) {
      worker_ = make_(system());
      monitor(worker_);
    }
  });
  return {
    [this](close_atom) { on_end_of_stream(); },
    [this](drain_atom) { on_drain(); },
    [this](message& msg) -> result<void> {
      // Plain variables: clang 14 cannot capture structured bindings.
      auto request = take_current_request();
      begin_work();
      core_.ask<message>(
        this, worker_, std::move(msg),
        pending_request{std::move(request.first), request.second, {}, {}, false},
        [this](pending_request& x, message& out) {
          x.result = std::move(out);
          x.done = true;
          flush();
        },
        [this](pending_request& x, error& err) {
          x.err = std::move(err);
          x.done = true;
          flush();
        });
      return delegated<>{};
    },
  };
}

void actor_stage::flush() {
  while (core_.front_ready())
    settle(core_.take_front());
}

} // namespace detail

detail::built seq_actor::build(detail::build_context& ctx, detail::route_ptr next,
                               const std::string& path) const {
  return ctx.single<detail::actor_stage>(detail::join_path(path, name_), std::move(next), make_);
}

} // namespace troupe::patterns
