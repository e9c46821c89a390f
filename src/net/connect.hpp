#pragma once

// Reaching an address: resolving it, then connecting within a time limit.
// The one way both a node (the middleman) and a service's client connect.

#include "troupe/error.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace troupe::net::detail {

/// Refuses an address that resolving gave, or lets it pass (empty error).
using address_check = std::function<error(const boost::asio::ip::address&)>;

/// Gets the connected socket (with TCP_NODELAY), or the reason there is
/// none: the check's error, or errc::cannot_connect_to_node.
using connect_handler = std::function<void(const error& err, boost::asio::ip::tcp::socket socket)>;

/// The I/O thread: resolves `host`:`port`, lets `check` refuse any address
/// it gives, and connects within `limit` (`limit_name` says in the error
/// which setting that is). Calls `fn` once.
void connect_within(boost::asio::io_context& io, const std::string& host, uint16_t port,
                    std::chrono::milliseconds limit, std::string limit_name,
                    address_check check, connect_handler fn);

} // namespace troupe::net::detail
