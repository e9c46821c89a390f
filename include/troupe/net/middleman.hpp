#pragma once

// Actors across processes and machines, as CAF's io::middleman: a node
// publishes an actor on a TCP port, another node connects to it and gets a
// handle that sends, requests, monitors and links as a local one does.
//
//   // node A
//   troupe::actor_system_config cfg;
//   cfg.load<troupe::net::middleman>();
//   troupe::actor_system sys{cfg};
//   auto port = sys.middleman().publish(calculator, 4242);   // expected<uint16_t>
//
//   // node B
//   auto calc = sys.middleman().remote_actor<calculator_actor>("localhost", 4242);
//   if (calc) self->request(*calc, 1s, add_atom_v, 1, 2).receive(...);
//
// Messages travel in Troupe's binary format; the nodes exchange their type
// names when they connect, so two programs interoperate when the names of
// the types they exchange agree. When a node is lost (it closes the
// connection, crashes, or sends nothing for troupe.net.heartbeat-timeout),
// every handle to its actors dies with exit_reason::remote_link_unreachable:
// monitors get a down_msg, links an exit_msg, and requests waiting on it
// fail with that error at once.
//
// Threads: one I/O thread runs Boost.Asio's io_context and reads every
// connection; a worker that sends to a remote actor writes the frame itself
// once its actor yields (detail/deferred_flush.hpp), and hands a write to
// the I/O thread only when the socket's buffer is full. See the README's
// "Several machines" for the count of thread handoffs on a round trip.

#include "troupe/actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/actor_system_module.hpp"
#include "troupe/expected.hpp"
#include "troupe/detail/interface.hpp"
#include "troupe/message.hpp"
#include "troupe/net/node_id.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace troupe::net {

namespace detail {
class middleman_impl;
struct middleman_access;
} // namespace detail

class middleman final : public actor_system_module {
public:
  static constexpr std::string_view module_name = "troupe.net.middleman";

  explicit middleman(actor_system& sys);

  ~middleman() override;

  std::string_view name() const noexcept override {
    return module_name;
  }

  void start() override;

  /// Flushes what every connection still holds, says goodbye to each peer
  /// and stops the I/O thread.
  void stop() noexcept override;

  /// Each port it listens on for a live published actor (or opened with
  /// open()), requests of live actors that a peer has not answered yet, and
  /// bytes still queued for peers: a server keeps its system running, and
  /// so does a client waiting for a slow answer. A connection alone does
  /// not: the peer is a handle from outside, which the system waits one
  /// grace period for.
  std::vector<std::string> activity() const override;

  /// Accepts connections on `port` (0: one the system picks) at `address`
  /// (default: troupe.net.listen-address, loopback) that get `hdl` as
  /// remote_actor's result; returns the port.
  template <class Handle>
  expected<uint16_t> publish(const Handle& hdl, uint16_t port, std::string address = {}) {
    return publish_impl(actor_cast_strong(hdl), troupe::detail::interface_of<Handle>(), port,
                        std::move(address));
  }

  /// Stops accepting connections on `port`; connections made stay.
  expected<void> unpublish(uint16_t port);

  /// Connects to the actor published at `host`:`port` (or reuses a
  /// connection to that node). A typed `Handle` is checked against the
  /// remote actor's interface: an actor that lacks one of its signatures
  /// gives errc::unexpected_actor_messaging_interface naming both.
  template <class Handle = actor>
  expected<Handle> remote_actor(std::string host, uint16_t port) {
    auto ptr = remote_actor_impl(troupe::detail::interface_of<Handle>(), std::move(host), port);
    if (!ptr)
      return ptr.error();
    return Handle{actor{std::move(*ptr)}};
  }

  /// Accepts connections from other nodes on `port` (0: one the system
  /// picks) at `address` (default: troupe.net.listen-address, loopback)
  /// without publishing an actor there, as CAF's open(); returns the port.
  expected<uint16_t> open(uint16_t port, std::string address = {});

  /// Connects to the node listening at `host`:`port` (or reuses a
  /// connection to it) and returns its identity, for remote_lookup and
  /// remote_spawn.
  expected<node_id> connect(std::string host, uint16_t port);

  /// The actor that `node`'s registry names `name` (sys.registry().put on
  /// that node). A typed `Handle` must match the interface it was put
  /// with. Waits at most troupe.net.handshake-timeout.
  template <class Handle = actor>
  expected<Handle> remote_lookup(std::string name, const node_id& node) {
    auto ptr = remote_lookup_impl(troupe::detail::interface_of<Handle>(), std::move(name), node);
    if (!ptr)
      return ptr.error();
    return Handle{actor{std::move(*ptr)}};
  }

  /// Spawns on `node` the actor type registered there as `name`
  /// (cfg.add_actor_type) with `args`, as CAF's remote_spawn. An unknown
  /// name or arguments the type does not take are an error naming them; a
  /// typed `Handle` must match the type's interface. Waits at most
  /// troupe.net.handshake-timeout.
  template <class Handle = actor, class... Ts>
  expected<Handle> remote_spawn(const node_id& node, std::string name, Ts&&... args) {
    auto ptr = remote_spawn_impl(troupe::detail::interface_of<Handle>(), node, std::move(name),
                                 make_message(std::forward<Ts>(args)...));
    if (!ptr)
      return ptr.error();
    return Handle{actor{std::move(*ptr)}};
  }

  /// This node's identity.
  const node_id& this_node() const;

  /// Connections to other nodes that completed their handshake.
  size_t connected_nodes() const;

  /// Bytes queued for peers that the kernel has not taken yet, over all
  /// connections: at most about troupe.net.send-buffer each, as senders
  /// are muted beyond it.
  size_t buffered_bytes() const;

  actor_system& system() const noexcept {
    return sys_;
  }

private:
  friend struct detail::middleman_access;

  template <class Handle>
  static strong_actor_ptr actor_cast_strong(const Handle& hdl) {
    auto* ctrl = troupe::detail::handle_ctrl(hdl);
    return strong_actor_ptr{ctrl};
  }

  expected<uint16_t> publish_impl(strong_actor_ptr hdl, std::vector<std::string> interface,
                                  uint16_t port, std::string address);

  expected<strong_actor_ptr> remote_actor_impl(std::vector<std::string> interface,
                                               std::string host, uint16_t port);

  expected<strong_actor_ptr> remote_lookup_impl(std::vector<std::string> interface,
                                                std::string name, const node_id& node);

  expected<strong_actor_ptr> remote_spawn_impl(std::vector<std::string> interface,
                                               const node_id& node, std::string name,
                                               message args);

  actor_system& sys_;
  std::shared_ptr<detail::middleman_impl> impl_;
};

} // namespace troupe::net
