#include "troupe/patterns/detail/loop.hpp"

#include "troupe/local_actor.hpp"
#include "troupe/patterns/detail/stage.hpp"

namespace troupe::patterns::detail {

std::unique_ptr<route> loop_entry::clone() const {
  return std::make_unique<loop_entry>(st_);
}

void loop_entry::send(local_actor* self, strong_actor_ptr sender, message_id mid, message msg,
                      execution_unit* ctx) {
  {
    std::lock_guard guard{st_->mtx};
    ++st_->inside;
  }
  first_->send(self, std::move(sender), mid, std::move(msg), ctx);
}

void loop_entry::broadcast(local_actor* self, const strong_actor_ptr& sender,
                           const message& marker, execution_unit* ctx) {
  {
    std::lock_guard guard{st_->mtx};
    if (st_->inside > 0) {
      st_->held.emplace_back(sender, marker);
      return;
    }
  }
  first_->broadcast(self, sender, marker, ctx);
}

std::unique_ptr<route> loop_exit::clone() const {
  return std::make_unique<loop_exit>(st_, out_ ? out_->clone() : nullptr);
}

route* loop_exit::first() {
  if (!first_)
    first_ = st_->first->clone();
  return first_.get();
}

void loop_exit::send(local_actor* self, strong_actor_ptr sender, message_id mid, message msg,
                     execution_unit* ctx) {
  if (st_->again(msg)) {
    first()->send(self, std::move(sender), mid, std::move(msg), ctx);
    return;
  }
  std::vector<std::pair<strong_actor_ptr, message>> released;
  {
    std::lock_guard guard{st_->mtx};
    if (--st_->inside == 0)
      released.swap(st_->held);
  }
  if (out_)
    out_->send(self, std::move(sender), mid, std::move(msg), ctx);
  else
    answer(self->system(), self->self_ptr(), std::move(sender), mid, std::move(msg), ctx);
  // The loop is empty: the markers held back may go in now, behind every
  // item that came before them.
  for (auto& [s, marker] : released)
    first()->broadcast(self, s, marker, ctx);
}

void loop_exit::broadcast(local_actor* self, const strong_actor_ptr& sender,
                          const message& marker, execution_unit* ctx) {
  if (out_) {
    out_->broadcast(self, sender, marker, ctx);
    return;
  }
  // The end of the pattern: as a last stage without a route would.
  if (marker.match_elements<close_atom>())
    report_stream_done(st_->handle, self->self_ptr(), ctx);
}

} // namespace troupe::patterns::detail
