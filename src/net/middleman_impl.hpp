#pragma once

// The state behind net::middleman: the I/O threads and their io_context, the
// published actors and their acceptors, the connections, and the watcher,
// a hidden actor that monitors every actor exported to a peer and tells
// the peers when one terminates.

#include "troupe/actor_system.hpp"
#include "troupe/net/detail/wire.hpp"
#include "troupe/net/middleman.hpp"

#include "io_runner.hpp"
#include "proxy.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <array>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace troupe::net::detail {

class peer;
class service_state;
class connection_io;

class middleman_impl : public std::enable_shared_from_this<middleman_impl> {
public:
  using tcp = boost::asio::ip::tcp;

  explicit middleman_impl(actor_system& sys);

  ~middleman_impl();

  void start();
  void stop() noexcept;

  expected<uint16_t> publish(strong_actor_ptr hdl, std::vector<std::string> interface,
                             uint16_t port, std::string address);
  expected<void> unpublish(uint16_t port);
  expected<strong_actor_ptr> remote_actor(std::vector<std::string> interface, std::string host,
                                          uint16_t port);
  expected<node_id> connect(std::string host, uint16_t port);
  expected<strong_actor_ptr> remote_lookup(std::vector<std::string> interface, std::string name,
                                           const node_id& node);
  expected<strong_actor_ptr> remote_spawn(std::vector<std::string> interface,
                                          const node_id& node, std::string name, message args);

  /// The actor this node's registry names `name`: what the service actor
  /// answers peers' lookups with.
  static expected<spawned_actor> lookup_here(actor_system& sys, const std::string& name);

  /// A new actor of this node's type `name` (cfg.add_actor_type): what the
  /// service actor answers peers' spawns with.
  static expected<spawned_actor> spawn_here(actor_system& sys, const std::string& name,
                                            const message& args);

  actor_system& system() noexcept {
    return sys_;
  }

  const net_config& config() const noexcept {
    return cfg_;
  }

  const node_id& this_node() const noexcept {
    return node_;
  }

  const std::vector<std::pair<type_id_t, std::string>>& type_table() const noexcept {
    return types_;
  }

  boost::asio::io_context& io() noexcept {
    return io_;
  }

  /// The current I/O thread's execution unit (I/O threads only).
  io_unit& unit() noexcept {
    return runner_->unit();
  }

  /// Runs or schedules what the last read woke up (I/O threads only).
  void dispatch() {
    runner_->dispatch();
  }

  /// The TLS context of every connection, or null without TLS.
  boost::asio::ssl::context* tls() noexcept {
    return tls_.get();
  }

  /// The service actor: peers look up and spawn actors through it.
  const actor& service() const noexcept {
    return service_;
  }

  /// The watcher's address: exported actors get it as a monitor.
  const actor_addr& watcher() const noexcept {
    return watcher_addr_;
  }

  /// A published actor by its ID (a peer may message it on any
  /// connection), or null.
  strong_actor_ptr published_actor(uint64_t id) const;

  /// Connections that completed their handshake.
  size_t connected_nodes() const;

  size_t buffered_bytes() const;

  /// See middleman::activity.
  std::vector<std::string> activity() const;

  /// Our actor `id` if it is published or was exported to any peer, else
  /// null: a handle of it that comes back through a third node.
  strong_actor_ptr exported_actor(uint64_t id) const;

  /// A port this node listens on for peers (the lowest), 0 if none.
  uint16_t listen_port() const;

  /// A proxy of actor `id` of a node this one is not connected to, which
  /// keeps what it is sent until this node has connected to `where` (one
  /// connection attempt per node), or dies with the reason it failed (the
  /// I/O thread).
  strong_actor_ptr pending_proxy(actor_proxy::target where, uint64_t id);

  /// A connection to `node` that finished its handshake, other than
  /// `except`, or null.
  std::shared_ptr<peer> find_peer(const node_id& node, const peer* except = nullptr) const;

  /// Called by a peer as it closes (I/O thread).
  void remove_peer(const peer* p);

  /// An error if the network layer has stopped; `what` names the call.
  error check_running(std::string_view what) const;

  // -- network services (service/) ------------------------------------------------

  /// A server listens: it counts as activity, and stop() closes it. Any
  /// thread.
  void add_service(std::shared_ptr<service_state> s);
  void remove_service(const service_state* s);

  /// A service's connection opened or closed (I/O thread): stop() closes
  /// those still open.
  void add_connection(std::shared_ptr<connection_io> c);
  void remove_connection(const connection_io* c);

private:
  /// Called once on the I/O thread: with the connection to use (null when
  /// `host`:`port` is this node) and the node's hello, or with an error.
  using connected_fn = std::function<void(peer* p, const hello_frame& hello, const error& err)>;

  void start_connect(std::string host, uint16_t port, connected_fn fn);
  template <class T>
  expected<T> await(std::future<expected<T>>& fut, std::string_view what);
  /// A proxy of `node`'s service actor.
  expected<strong_actor_ptr> service_of(const node_id& node, std::string_view what);
  /// `node`'s service actor's answer to (xs...).
  template <class... Ts>
  expected<spawned_actor> ask_service(const node_id& node, std::string_view what, Ts&&... xs);
  /// The connections now, to act on outside mtx_.
  std::vector<std::shared_ptr<peer>> peers_now() const;

  /// Loads troupe.net.tls.* into tls_, or sets tls_error_.
  void load_tls();
  /// Why talking to or listening on `addr` is refused, if it is.
  error check_address(const boost::asio::ip::address& addr, std::string_view what) const;

  void accept(std::shared_ptr<tcp::acceptor> acceptor, strong_actor_ptr hdl,
              std::vector<std::string> interface);
  void add_peer(std::shared_ptr<peer> p);
  /// The watcher saw exported actor `id` terminate (a worker thread).
  void on_exported_down(uint64_t id, const error& reason);

  actor_system& sys_;
  const net_config& cfg_;
  node_id node_;
  std::vector<std::pair<type_id_t, std::string>> types_;
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  std::unique_ptr<io_runner> runner_;
  actor watcher_;
  actor service_;
  std::unique_ptr<boost::asio::ssl::context> tls_;
  // What publish, open and connect answer when troupe.net.tls.* is unusable.
  error tls_error_;
  actor_addr watcher_addr_;

  struct published_entry {
    strong_actor_ptr hdl;
    std::vector<std::string> interface;
    std::shared_ptr<tcp::acceptor> acceptor;
  };

  // Pending proxies by node, while this node connects to it (I/O thread).
  std::map<std::array<uint8_t, 16>, std::map<uint64_t, strong_actor_ptr>> connecting_;

  mutable std::mutex mtx_;
  std::condition_variable peers_cv_;
  // Guarded by mtx_.
  std::map<uint16_t, published_entry> published_;
  std::vector<std::shared_ptr<peer>> peers_;
  std::vector<std::shared_ptr<service_state>> services_;
  std::vector<std::shared_ptr<connection_io>> connections_;
  bool stopped_ = false;
};

/// The middleman's state, for the network services.
struct middleman_access {
  static std::shared_ptr<middleman_impl> impl(middleman& mm) {
    return mm.impl_;
  }
};

} // namespace troupe::net::detail
