#pragma once

// What every network service has in common: a server (what accepting
// returns), and the options of the builders of net/lp.hpp and
// net/octet_stream.hpp.
//
// A connection is an actor. A server spawns a handler actor for each
// connection it accepts, and a client one for the connection it makes,
// with the connection's handle as its argument; the two are linked:
//
//   auto server = net::lp::with(sys)
//                   .accept(7788)
//                   .max_connections(128)
//                   .start([](event_based_actor* self, actor conn) -> behavior {
//                     return {[self, conn](const byte_buffer& frame) {
//                       self->mail(frame).send(conn);   // echo
//                     }};
//                   });
//
// What the connection reads reaches the handler as messages whose sender is
// the connection; what the handler (or any actor) sends the connection is
// written to the socket. When the peer closes, the handler gets an exit_msg
// with exit_reason::normal; when the connection fails (malformed input, a
// peer that stopped reading, a reset), one with the error. When the handler
// terminates, the connection writes what it holds and closes. `close_atom`
// sent to the connection does the same.
//
// Back-pressure both ways: the connection stops reading while its handler
// has max_pending_messages queued; it mutes the actors that write to it
// while it holds send_buffer bytes the socket has not taken, and drops a
// peer that takes nothing for write_timeout.

#include "troupe/actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/config_sections.hpp"
#include "troupe/defaults.hpp"
#include "troupe/expected.hpp"
#include "troupe/mailbox_overflow.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace troupe::net {

namespace detail {
class service_state;
class protocol;
} // namespace detail

/// A listening service: accepting returns it. Connections it accepted stay
/// when it is disposed. Any thread.
class server {
public:
  server() = default;

  explicit server(std::shared_ptr<detail::service_state> state) : state_(std::move(state)) {}

  /// The port it listens on (the one the system picked for port 0).
  uint16_t port() const noexcept;

  /// Connections open now.
  size_t connections() const noexcept;

  /// Stops accepting; closes the listening socket.
  void dispose();

  bool disposed() const noexcept;

private:
  std::shared_ptr<detail::service_state> state_;
};

/// What a connection does with a message while it holds send_buffer bytes
/// its socket has not taken.
enum class when_full : uint8_t {
  /// Takes it and mutes the sender until half is out: back-pressure.
  mute,
  /// Refuses it and drops the connection: a slow peer never holds up the
  /// actors that write to it (a chat room's or a ticker's broadcast).
  disconnect,
};

/// What a builder was given; what a connection keeps of it.
struct service_options {
  /// Server: the address to listen on (default: troupe.net.listen-address).
  std::string address;
  uint16_t port = 0;
  /// Client: the host to connect to.
  std::string host;
  /// PEM files. A server needs certificate and private_key; with ca, it
  /// asks clients for a certificate the CA signed. A client checks the
  /// server's certificate against ca (the system's CAs without it) and
  /// the host name, and shows its own certificate if given one.
  net_tls_config tls;
  bool use_tls = false;
  size_t max_connections = defaults::net::service::max_connections;
  size_t max_message_size = defaults::net::service::max_message_size;
  size_t max_pending_messages = defaults::net::service::max_pending_messages;
  size_t send_buffer = defaults::net::service::send_buffer;
  net::when_full when_full = net::when_full::mute;
  std::chrono::milliseconds write_timeout = defaults::net::service::write_timeout;
  std::chrono::milliseconds idle_timeout = defaults::net::service::idle_timeout;
};

namespace detail {

/// Spawns the handler of a new connection, given the connection's handle.
using handler_factory = std::function<actor(actor conn)>;

/// Makes the protocol state of one connection.
using protocol_factory = std::function<std::unique_ptr<protocol>(const service_options&)>;

expected<server> start_server(actor_system& sys, service_options opts,
                              protocol_factory protocol, handler_factory handler);

expected<actor> start_client(actor_system& sys, service_options opts,
                             protocol_factory protocol, handler_factory handler);

class acceptor_builder;
class connector_builder;

/// The setters every builder has; `Derived` returns itself from each. A
/// protocol's builder has make_protocol(), and with it accept() and
/// connect().
template <class Derived>
class service_builder {
public:
  /// Listens on `port` (0: one the system picks) at `address` (default:
  /// troupe.net.listen-address, loopback).
  acceptor_builder accept(uint16_t port, std::string address = {});

  /// Connects to `host`:`port`.
  connector_builder connect(std::string host, uint16_t port);

  /// Serves or connects with TLS (see service_options::tls).
  Derived& tls(net_tls_config files) {
    opts_.tls = std::move(files);
    opts_.use_tls = true;
    return self();
  }

  Derived& max_message_size(size_t n) {
    opts_.max_message_size = n;
    return self();
  }

  Derived& max_pending_messages(size_t n) {
    opts_.max_pending_messages = n;
    return self();
  }

  Derived& send_buffer(size_t n) {
    opts_.send_buffer = n;
    return self();
  }

  Derived& when_full(net::when_full x) {
    opts_.when_full = x;
    return self();
  }

  Derived& write_timeout(std::chrono::milliseconds d) {
    opts_.write_timeout = d;
    return self();
  }

  Derived& idle_timeout(std::chrono::milliseconds d) {
    opts_.idle_timeout = d;
    return self();
  }

  const service_options& options() const noexcept {
    return opts_;
  }

protected:
  explicit service_builder(actor_system& sys) : sys_(&sys) {}

  Derived& self() noexcept {
    return static_cast<Derived&>(*this);
  }

  /// Wraps `fn` into what spawns a connection's handler: linked to the
  /// connection, with a mailbox bounded by max_pending_messages.
  template <class F>
  handler_factory make_handler_factory(F fn) const {
    auto* sys = sys_;
    auto limit = mailbox_limit{opts_.max_pending_messages, mailbox_overflow::mute};
    return [sys, limit, fn = std::move(fn)](actor conn) -> actor {
      return actor{sys->spawn(limit, fn, std::move(conn))};
    };
  }

  actor_system* sys_;
  service_options opts_;
};

/// A builder once it knows to accept.
class acceptor_builder : public service_builder<acceptor_builder> {
public:
  acceptor_builder(actor_system& sys, service_options opts, protocol_factory protocol)
    : service_builder<acceptor_builder>(sys), protocol_(std::move(protocol)) {
    this->opts_ = std::move(opts);
  }

  acceptor_builder& max_connections(size_t n) {
    this->opts_.max_connections = n;
    return *this;
  }

  /// Listens, and spawns `fn(self, conn)` for each connection it accepts.
  template <class F>
  expected<server> start(F fn) {
    return start_server(*this->sys_, this->opts_, protocol_, this->make_handler_factory(std::move(fn)));
  }

  /// Listens, for a protocol that needs no handler (HTTP: its routes).
  expected<server> start() {
    return start_server(*this->sys_, this->opts_, protocol_, nullptr);
  }

private:
  protocol_factory protocol_;
};

/// A builder once it knows where to connect.
class connector_builder : public service_builder<connector_builder> {
public:
  connector_builder(actor_system& sys, service_options opts, protocol_factory protocol)
    : service_builder<connector_builder>(sys), protocol_(std::move(protocol)) {
    this->opts_ = std::move(opts);
  }

  /// Connects (waiting at most troupe.net.handshake-timeout, TLS
  /// included) and spawns `fn(self, conn)`; returns that handler.
  template <class F>
  expected<actor> start(F fn) {
    return start_client(*this->sys_, this->opts_, protocol_, this->make_handler_factory(std::move(fn)));
  }

  /// Connects, for a protocol that needs no handler (an HTTP client);
  /// returns the connection.
  expected<actor> start() {
    return start_client(*this->sys_, this->opts_, protocol_, nullptr);
  }

private:
  protocol_factory protocol_;
};

template <class Derived>
acceptor_builder service_builder<Derived>::accept(uint16_t port, std::string address) {
  auto opts = opts_;
  opts.port = port;
  opts.address = std::move(address);
  return {*sys_, std::move(opts), self().make_protocol()};
}

template <class Derived>
connector_builder service_builder<Derived>::connect(std::string host, uint16_t port) {
  auto opts = opts_;
  opts.host = std::move(host);
  opts.port = port;
  return {*sys_, std::move(opts), self().make_protocol()};
}

} // namespace detail

} // namespace troupe::net
