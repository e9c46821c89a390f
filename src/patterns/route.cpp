#include "troupe/patterns/detail/route.hpp"

#include "troupe/abstract_actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/mailbox_element.hpp"

namespace troupe::patterns::detail {

std::unique_ptr<route> actor_route::clone() const {
  return std::make_unique<actor_route>(dest_);
}

void actor_route::send(local_actor*, strong_actor_ptr sender, message_id mid, message msg,
                       execution_unit* ctx) {
  dest_->get()->enqueue(make_mailbox_element(std::move(sender), mid, std::move(msg)), ctx);
}

void actor_route::broadcast(local_actor*, const strong_actor_ptr& sender, const message& marker,
                            execution_unit* ctx) {
  dest_->get()->enqueue(make_mailbox_element(sender, message_id::make(), marker), ctx);
}

std::unique_ptr<route> farm_route::clone() const {
  std::vector<route_ptr> replicas;
  replicas.reserve(replicas_.size());
  for (const auto& r : replicas_)
    replicas.push_back(r->clone());
  return std::make_unique<farm_route>(std::move(replicas), pick_);
}

void farm_route::send(local_actor* self, strong_actor_ptr sender, message_id mid, message msg,
                      execution_unit* ctx) {
  // A custom routing may return any number: wrap it onto the replicas.
  auto i = pick_(msg, replicas_.size()) % replicas_.size();
  replicas_[i]->send(self, std::move(sender), mid, std::move(msg), ctx);
}

void farm_route::broadcast(local_actor* self, const strong_actor_ptr& sender, const message& marker,
                           execution_unit* ctx) {
  for (auto& r : replicas_)
    r->broadcast(self, sender, marker, ctx);
}

void answer(actor_system& sys, const strong_actor_ptr& self, strong_actor_ptr sender,
            message_id mid, message msg, execution_unit* ctx) {
  if (mid.is_answered() || mid.is_response() || mid.is_system())
    return;
  if (!mid.is_request() && msg.empty())
    return; // a plain send asked for nothing
  if (!sender) {
    sys.add_dead_letter(msg, "a pattern's result for a message without a sender");
    return;
  }
  auto reply_id = mid.is_request() ? mid.response_id() : message_id::make();
  sender->get()->enqueue(make_mailbox_element(self, reply_id, std::move(msg)), ctx);
}

} // namespace troupe::patterns::detail
