#pragma once

// The local stand-in of an actor on another node. Sending to it writes a
// frame to the connection (peer); it has no mailbox and never runs. It dies
// when the remote actor does (a down frame) or when the node is lost, and
// its monitors and links hear of it as of any actor's death.

#include "troupe/abstract_actor.hpp"

#include <memory>

namespace troupe::net::detail {

class peer;

class actor_proxy final : public abstract_actor {
public:
  actor_proxy(actor_config& cfg, std::shared_ptr<peer> owner, uint64_t remote_id) noexcept;

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

  uint64_t remote_id() const noexcept {
    return remote_id_;
  }

  const peer* owner() const noexcept {
    return owner_.get();
  }

protected:
  void on_cleanup(const error&, execution_unit*) override {
    // Nothing queued here: every message went to the peer at once.
  }

private:
  /// The connection's buffer reached troupe.net.send-buffer.
  void on_full();

  std::shared_ptr<peer> owner_;
  uint64_t remote_id_;
};

} // namespace troupe::net::detail
