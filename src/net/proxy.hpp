#pragma once

// The local stand-in of an actor on another node. Sending to it writes a
// frame to the connection (peer); it has no mailbox and never runs. It dies
// when the remote actor does (a down frame) or when the node is lost, and
// its monitors and links hear of it as of any actor's death.
//
// A proxy of an actor of a node this one is still connecting to (a third
// node's actor, handed over by a peer) is pending: it keeps what it is sent,
// in order, until attach() gives it the connection, or dies with the reason
// the connection failed.

#include "troupe/abstract_actor.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/net/node_id.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace troupe::net::detail {

class peer;

class actor_proxy final : public abstract_actor {
public:
  /// Where a pending proxy's node is being reached.
  struct target {
    node_id node;
    std::string host;
    uint16_t port = 0;
  };

  actor_proxy(actor_config& cfg, std::shared_ptr<peer> owner, uint64_t remote_id) noexcept;

  /// A pending proxy.
  actor_proxy(actor_config& cfg, target where, uint64_t remote_id);

  /// Any thread: writes `elem` to the peer, or bounces it (a request gets
  /// the error, anything else is a dead letter) if that fails.
  void enqueue(mailbox_element_ptr elem, execution_unit* ctx) override;

  const char* name() const noexcept override {
    return "actor_proxy";
  }

  std::string wait_report() const override;

  /// Keeps `sender` muted until the connection's buffer is half empty.
  bool add_muted(strong_actor_ptr sender) override;

  /// Terminates the proxy with `reason`: the remote actor died or its node
  /// was lost. Any thread.
  void kill(error reason) {
    cleanup(std::move(reason), nullptr);
  }

  /// A pending proxy's connection is up: what it kept goes out, in order,
  /// then everything else directly (the I/O thread).
  void attach(std::shared_ptr<peer> owner);

  uint64_t remote_id() const noexcept {
    return remote_id_;
  }

  /// The connection, or null while pending.
  const peer* owner() const noexcept {
    return ready_.load(std::memory_order_acquire) ? owner_.get() : nullptr;
  }

  /// A pending proxy's node and address (meaningful while owner() is null).
  const target& pending_target() const noexcept {
    return target_;
  }

protected:
  void on_cleanup(const error& reason, execution_unit* ctx) override;

private:
  /// Writes `elem` to owner_, or bounces it.
  void send_now(mailbox_element_ptr elem, execution_unit* ctx);
  /// The connection's buffer reached troupe.net.send-buffer.
  void on_full();

  // Set at construction, or by attach() under mtx_ before ready_.
  std::shared_ptr<peer> owner_;
  std::atomic<bool> ready_;
  const uint64_t remote_id_;
  const target target_;

  // While pending.
  std::mutex mtx_;
  std::vector<mailbox_element_ptr> kept_;
  bool dead_ = false;
};

} // namespace troupe::net::detail
