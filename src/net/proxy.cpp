#include "proxy.hpp"

#include "buffer_full.hpp"
#include "peer.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/logger.hpp"
#include "troupe/net/middleman.hpp"


namespace troupe::net::detail {

actor_proxy::actor_proxy(actor_config& cfg, std::shared_ptr<peer> owner,
                         uint64_t remote_id) noexcept
  : abstract_actor(cfg), owner_(std::move(owner)), ready_(true), remote_id_(remote_id) {}

actor_proxy::actor_proxy(actor_config& cfg, target where, uint64_t remote_id)
  : abstract_actor(cfg), ready_(false), remote_id_(remote_id), target_(std::move(where)) {}

void actor_proxy::enqueue(mailbox_element_ptr elem, execution_unit* ctx) {
  if (!ready_.load(std::memory_order_acquire)) [[unlikely]] {
    std::unique_lock guard{mtx_};
    if (!ready_.load(std::memory_order_relaxed)) {
      if (!dead_) {
        kept_.push_back(std::move(elem));
        return;
      }
      guard.unlock();
      bounce(std::move(elem), fail_state(), system(), ctx);
      return;
    }
  }
  if (terminated()) {
    bounce(std::move(elem), fail_state(), system(), ctx);
    return;
  }
  send_now(std::move(elem), ctx);
}

void actor_proxy::send_now(mailbox_element_ptr elem, execution_unit* ctx) {
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
}

void actor_proxy::attach(std::shared_ptr<peer> owner) {
  std::lock_guard guard{mtx_};
  if (dead_ || ready_.load(std::memory_order_relaxed))
    return;
  owner_ = std::move(owner);
  // Under the lock: a sender that sees the proxy pending waits for these
  // to go out first, so the order holds.
  for (auto& elem : kept_)
    send_now(std::move(elem), nullptr);
  kept_.clear();
  ready_.store(true, std::memory_order_release);
}

void actor_proxy::on_cleanup(const error& reason, execution_unit* ctx) {
  std::vector<mailbox_element_ptr> kept;
  {
    std::lock_guard guard{mtx_};
    dead_ = true;
    kept.swap(kept_);
  }
  for (auto& elem : kept)
    bounce(std::move(elem), reason, system(), ctx);
}

void actor_proxy::on_full() {
  auto limit = system().config().net.send_buffer / 2;
  on_buffer_full(*this, [this, limit] { return owner_->buffered() < limit; });
}

bool actor_proxy::add_muted(strong_actor_ptr sender) {
  if (!ready_.load(std::memory_order_acquire))
    return false;
  return owner_->add_muted(std::move(sender));
}

std::string actor_proxy::wait_report() const {
  if (!ready_.load(std::memory_order_acquire))
    return "proxy of actor#" + std::to_string(remote_id_) + " on node "
           + target_.node.to_string() + " (connecting to " + target_.host + ":"
           + std::to_string(target_.port) + ")";
  return "proxy of actor#" + std::to_string(remote_id_) + " on node " + owner_->remote_name();
}

} // namespace troupe::net::detail
