#include "proxy.hpp"

#include "peer.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/logger.hpp"

namespace troupe::net::detail {

actor_proxy::actor_proxy(actor_config& cfg, std::shared_ptr<peer> owner,
                         uint64_t remote_id) noexcept
  : abstract_actor(cfg), owner_(std::move(owner)), remote_id_(remote_id) {}

void actor_proxy::enqueue(mailbox_element_ptr elem, execution_unit* ctx) {
  if (!terminated()) {
    auto err = owner_->send(*elem, remote_id_);
    if (!err)
      return;
    if (err != errc::actor_down)
      TROUPE_LOG_WARNING("net", "not sent to actor#{} on node {}: {}", remote_id_,
                         owner_->remote_name(), to_string(err));
    bounce(std::move(elem), err, system(), ctx);
    return;
  }
  bounce(std::move(elem), fail_state(), system(), ctx);
}

std::string actor_proxy::wait_report() const {
  return "proxy of actor#" + std::to_string(remote_id_) + " on node " + owner_->remote_name();
}

} // namespace troupe::net::detail
