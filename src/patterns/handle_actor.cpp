#include "troupe/patterns/detail/handle_actor.hpp"

#include "troupe/mailbox_element.hpp"

namespace troupe::patterns::detail {

handle_actor::handle_actor(actor_config& cfg, std::shared_ptr<handle_state> st)
  : event_based_actor(cfg), state_(std::move(st)) {}

behavior handle_actor::make_behavior() {
  // One of the pattern's actors died: so does the pattern (on_cleanup stops
  // the others). They only quit normally once the handle itself is gone.
  set_down_handler([this](down_msg& msg) { quit(msg.reason); });
  return {
    [this](close_atom) {
      eos_target_ = state_->sink ? state_->sink : current_sender();
      state_->entry->broadcast(this, nullptr, make_message(close_atom_v), context());
    },
    [this](stream_done_atom) {
      if (++exits_done_ < state_->exits)
        return;
      exits_done_ = 0;
      if (auto target = std::move(eos_target_))
        target->get()->enqueue(
          make_mailbox_element(self_ptr(), message_id::make(), make_message(close_atom_v)),
          context());
    },
    [this](message& msg) -> result<void> {
      if (state_->accepts && !state_->accepts(msg))
        return make_error(errc::unexpected_message,
                          state_->name + " takes (" + state_->input_names + "), not "
                            + to_string(msg));
      auto* e = current_mailbox_element();
      auto mid = e->mid;
      e->mid = mid.with_answered();
      auto sender = !mid.is_request() && state_->sink ? state_->sink : e->sender;
      state_->entry->send(this, std::move(sender), mid, std::move(msg), context());
      return delegated<>{};
    },
  };
}

void handle_actor::on_cleanup(const error& reason, execution_unit* ctx) {
  event_based_actor::on_cleanup(reason, ctx);
  if (!state_->entry)
    return;
  if (reason == exit_reason::normal || reason == exit_reason::unreachable) {
    // Nobody can send new items: let those inside finish, then stop.
    state_->entry->broadcast(this, nullptr, make_message(drain_atom{}), ctx);
  } else {
    for (auto& a : state_->actors)
      a.ctrl()->get()->enqueue(
        make_mailbox_element(nullptr, message_id::make_system(message_priority::urgent),
                             make_message(exit_msg{address(), reason})),
        ctx);
  }
  state_->entry.reset();
}

} // namespace troupe::patterns::detail
