#include "troupe/patterns/detail/stage.hpp"

#include "troupe/mailbox_element.hpp"

namespace troupe::patterns::detail {

stage_actor::stage_actor(actor_config& cfg, stage_config sc)
  : event_based_actor(cfg),
    name_(std::move(sc.name)),
    next_(std::move(sc.next)),
    upstream_(std::move(sc.upstream)),
    handle_(std::move(sc.handle)) {}

void stage_actor::emit(strong_actor_ptr sender, message_id mid, message msg) {
  if (next_)
    next_->send(this, std::move(sender), mid, std::move(msg), context());
  else
    answer(system(), self_ptr(), std::move(sender), mid, std::move(msg), context());
}

void stage_actor::emit_current(message msg) {
  auto [sender, mid] = take_current_request();
  emit(std::move(sender), mid, std::move(msg));
}

std::pair<strong_actor_ptr, message_id> stage_actor::take_current_request() {
  auto* e = current_mailbox_element();
  auto mid = e->mid;
  e->mid = mid.with_answered();
  return {e->sender, mid};
}

void stage_actor::reject(strong_actor_ptr sender, message_id mid, error err) {
  answer(system(), self_ptr(), std::move(sender), mid, make_message(std::move(err)), context());
}

void stage_actor::settle(pending_request&& x) {
  if (x.err)
    reject(std::move(x.sender), x.mid, std::move(x.err));
  else
    emit(std::move(x.sender), x.mid, std::move(x.result));
  end_work();
}

void report_stream_done(const actor_addr& handle, strong_actor_ptr from, execution_unit* ctx) {
  if (auto hdl = handle.lock())
    hdl.ctrl()->get()->enqueue(
      make_mailbox_element(std::move(from), message_id::make(), make_message(stream_done_atom{})),
      ctx);
}

error stage_actor::failure(std::exception_ptr e) const {
  auto what = troupe::detail::exception_what(std::move(e));
  return make_error(errc::unhandled_exception,
                    "stage " + name_ + " threw"
                      + (what ? ": " + *what : " an exception that is no std::exception"));
}

void stage_actor::on_cleanup(const error& reason, execution_unit* ctx) {
  event_based_actor::on_cleanup(reason, ctx);
  next_.reset();
}

void stage_actor::end_work() {
  --in_flight_;
  pass_markers();
}

void stage_actor::on_end_of_stream() {
  if (++eos_seen_ < upstream_->value)
    return;
  eos_seen_ = 0;
  ++eos_ready_;
  pass_markers();
}

void stage_actor::on_drain() {
  if (++drains_seen_ < upstream_->value)
    return;
  drain_ready_ = true;
  pass_markers();
}

void stage_actor::pass_markers() {
  if (in_flight_ > 0)
    return;
  for (; eos_ready_ > 0; --eos_ready_) {
    if (next_)
      next_->broadcast(this, nullptr, make_message(close_atom_v), context());
    else
      report_stream_done(handle_, self_ptr(), context());
  }
  if (drain_ready_) {
    drain_ready_ = false;
    if (next_)
      next_->broadcast(this, nullptr, make_message(drain_atom{}), context());
    on_drained();
    quit();
  }
}

} // namespace troupe::patterns::detail
