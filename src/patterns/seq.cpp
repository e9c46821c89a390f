#include "troupe/patterns/seq.hpp"

namespace troupe::patterns {

namespace detail {

actor_stage::actor_stage(actor_config& cfg, stage_config sc, factory make)
  : stage_actor(cfg, std::move(sc)), make_(std::move(make)) {}

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
      auto sender = std::move(request.first);
      auto mid = request.second;
      begin_work();
      request_message(worker_, infinite, std::move(msg))
        .then(
          [this, sender, mid](message& out) mutable {
            emit(std::move(sender), mid, std::move(out));
            end_work();
          },
          [this, sender, mid](error& err) mutable {
            auto what = std::string{"stage "} + name() + ": " + to_string(err);
            reject(std::move(sender), mid, error{err.code(), err.category(), std::move(what)});
            end_work();
          });
      return delegated<>{};
    },
  };
}

} // namespace detail

detail::built seq_actor::build(detail::build_context& ctx, detail::route_ptr next,
                               const std::string& path) const {
  return ctx.single<detail::actor_stage>(detail::join_path(path, name_), std::move(next), make_);
}

} // namespace troupe::patterns
