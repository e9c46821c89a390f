#include "troupe/patterns/detail/gather.hpp"

#include "troupe/actor_clock.hpp"

namespace troupe::patterns::detail {

gather_stage::gather_stage(actor_config& cfg, stage_config sc, std::vector<route_ptr> replicas)
  : stage_actor(cfg, std::move(sc)), replicas_(std::move(replicas)) {}

behavior gather_stage::make_behavior() {
  return {
    [this](close_atom) { on_end_of_stream(); },
    [this](drain_atom) { on_drain(); },
    [this](message& msg) -> result<void> {
      auto [sender, mid] = take_current_request();
      auto seq = window_.open(pending_request{std::move(sender), mid, {}, {}, false});
      begin_work();
      on_item(seq, msg);
      return delegated<>{};
    },
  };
}

void gather_stage::ask(size_t replica, uint64_t seq, message msg) {
  auto number = next_request_number();
  replicas_[replica]->send(this, self_ptr(), message_id::make_request(number), std::move(msg),
                           context());
  add_response_handler(
    number,
    troupe::detail::make_response_fn(
      [this, seq, replica](message& out) { on_reply(seq, replica, out); }),
    troupe::detail::make_error_handler(
      [this, seq, replica](error& err) { on_reply_error(seq, replica, err); }),
    troupe::detail::invalid_timer_id, false);
}

pending_request* gather_stage::find(uint64_t seq) noexcept {
  auto* s = window_.find(seq);
  return s && !s->done ? s : nullptr;
}

void gather_stage::finish(uint64_t seq, message result) {
  if (auto* s = find(seq)) {
    s->result = std::move(result);
    s->done = true;
    flush();
  }
}

void gather_stage::fail(uint64_t seq, error err) {
  if (auto* s = find(seq)) {
    s->err = std::move(err);
    s->done = true;
    flush();
  }
}

void gather_stage::flush() {
  while (!window_.empty() && window_.front().done)
    settle(window_.take_front());
}

void gather_stage::on_cleanup(const error& reason, execution_unit* ctx) {
  stage_actor::on_cleanup(reason, ctx);
  replicas_.clear();
}

void gather_stage::on_drained() {
  for (auto& r : replicas_)
    r->broadcast(this, nullptr, make_message(drain_atom{}), context());
}

ordered_stage::ordered_stage(actor_config& cfg, stage_config sc,
                             std::vector<route_ptr> replicas, pick_fn pick)
  : gather_stage(cfg, std::move(sc), std::move(replicas)), pick_(std::move(pick)) {}

void ordered_stage::on_item(uint64_t seq, message& msg) {
  auto i = pick_(msg, num_replicas()) % num_replicas();
  ask(i, seq, std::move(msg));
}

void ordered_stage::on_reply(uint64_t seq, size_t, message& out) {
  finish(seq, std::move(out));
}

} // namespace troupe::patterns::detail
