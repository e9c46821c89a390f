#include "proxy.hpp"

#include "peer.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/logger.hpp"
#include "troupe/net/middleman.hpp"

#include <chrono>
#include <thread>

namespace troupe::net::detail {

actor_proxy::actor_proxy(actor_config& cfg, std::shared_ptr<peer> owner,
                         uint64_t remote_id) noexcept
  : abstract_actor(cfg), owner_(std::move(owner)), remote_id_(remote_id) {}

void actor_proxy::enqueue(mailbox_element_ptr elem, execution_unit* ctx) {
  if (!terminated()) {
    bool full = false;
    auto err = owner_->send(*elem, remote_id_, full);
    if (!err) {
      if (full) [[unlikely]]
        on_full();
      return;
    }
    if (err != errc::actor_down)
      TROUPE_LOG_WARNING("net", "not sent to actor#{} on node {}: {}", remote_id_,
                         owner_->remote_name(), to_string(err));
    if (elem->mid.is_response() && err != errc::actor_down) {
      // The requester waits for this answer: it gets the reason instead.
      auto reason = make_message(error{err.code(), err.category(),
                                       "the answer from node "
                                         + system().middleman().this_node().to_string()
                                         + " does not reach it: " + err.context()});
      auto instead = make_mailbox_element(elem->sender, elem->mid, std::move(reason));
      if (!owner_->send(*instead, remote_id_, full))
        return;
    }
    bounce(std::move(elem), err, system(), ctx);
    return;
  }
  bounce(std::move(elem), fail_state(), system(), ctx);
}

void actor_proxy::on_full() {
  // As a full mailbox with the mute policy: an event-based sender pauses
  // after its handler; another thread waits here (the message is queued
  // already, so it is never dropped), at most troupe.mailbox.push-timeout.
  if (troupe::detail::running_actor != nullptr) {
    troupe::detail::mute_running_actor(this);
    return;
  }
  if (!troupe::detail::push_may_wait)
    return;
  auto limit = system().config().net.send_buffer / 2;
  auto deadline = std::chrono::steady_clock::now() + system().config().mailbox.push_timeout;
  while (owner_->buffered() >= limit && !terminated()
         && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds{50});
}

bool actor_proxy::add_muted(strong_actor_ptr sender) {
  return owner_->add_muted(std::move(sender));
}

std::string actor_proxy::wait_report() const {
  return "proxy of actor#" + std::to_string(remote_id_) + " on node " + owner_->remote_name();
}

} // namespace troupe::net::detail
