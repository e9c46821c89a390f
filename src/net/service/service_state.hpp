#pragma once

// A listening network service: its acceptor, the count of its connections
// and what each new one gets (protocol, handler). net::server refers to it.

#include "troupe/net/service.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <memory>

namespace troupe::net::detail {

class middleman_impl;

class service_state : public std::enable_shared_from_this<service_state> {
public:
  using tcp = boost::asio::ip::tcp;

  service_state(std::shared_ptr<middleman_impl> mm, service_options opts,
                protocol_factory protocol, handler_factory handler,
                std::unique_ptr<boost::asio::ssl::context> tls);

  ~service_state();

  /// Opens the listening socket (the caller's thread).
  expected<uint16_t> listen();

  /// Accepts while below max_connections (the I/O thread).
  void start_accept();

  /// One of its connections ended (the I/O thread).
  void on_closed();

  /// Closes the listening socket. Any thread.
  void dispose();

  /// Spawns the actor that stands for the server while it listens: the
  /// system runs while it lives, as while any actor does, and a shutdown
  /// that stops it disposes the server.
  void spawn_keeper(actor_system& sys);

  uint16_t port() const noexcept {
    return port_;
  }

  size_t connections() const noexcept {
    return connections_.load(std::memory_order_relaxed);
  }

  bool disposed() const noexcept {
    return disposed_.load(std::memory_order_acquire);
  }

  const service_options& options() const noexcept {
    return opts_;
  }

  /// "length-prefix framing on port 7788", for activity reports.
  std::string describe() const;

private:
  void on_accept(tcp::socket socket);

  std::shared_ptr<middleman_impl> mm_;
  const service_options opts_;
  protocol_factory protocol_;
  handler_factory handler_;
  std::unique_ptr<boost::asio::ssl::context> tls_;
  std::string protocol_name_;

  // The I/O thread.
  tcp::acceptor acceptor_;
  boost::asio::steady_timer retry_;
  bool accepting_ = false;

  actor keeper_;
  uint16_t port_ = 0;
  std::atomic<size_t> connections_{0};
  std::atomic<bool> disposed_{false};
};

} // namespace troupe::net::detail
