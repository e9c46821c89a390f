#pragma once

// The parts of actor_system_config, one per table of its keys: a field's
// path is its key (cfg.net.tls.ca is troupe.net.tls.ca).

#include "troupe/defaults.hpp"
#include "troupe/logger.hpp"
#include "troupe/mailbox_overflow.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace troupe {

namespace detail {

/// defaults::mailbox::overflow, parsed at compile time.
inline constexpr mailbox_overflow default_mailbox_overflow = [] {
  auto result = mailbox_overflow::mute;
  if (!from_string(defaults::mailbox::overflow, result))
    throw "defaults::mailbox::overflow names no overflow";
  return result;
}();

} // namespace detail

/// The mailbox part of actor_system_config (keys troupe.mailbox.*).
struct mailbox_config {
  /// 0: no bound.
  size_t capacity = defaults::mailbox::capacity;
  mailbox_overflow overflow = detail::default_mailbox_overflow;
  std::chrono::milliseconds push_timeout = defaults::mailbox::push_timeout;
};

/// How stream graphs run their nodes (troupe.stream.execution).
enum class stream_execution : uint8_t {
  /// On the scheduler's workers, like actors.
  scheduled,
  /// One thread per node replica.
  threads,
};

std::string to_string(stream_execution x);

bool from_string(std::string_view str, stream_execution& x);

/// The stream part of actor_system_config (keys troupe.stream.*).
struct stream_config {
  size_t edge_capacity = defaults::stream::edge_capacity;
  stream_execution execution = defaults::stream::execution == "threads"
                                 ? stream_execution::threads
                                 : stream_execution::scheduled;
};

/// troupe.net.*: the network layer (troupe::net), read when its middleman
/// is loaded.
/// troupe.net.tls.*: this node's certificate chain and private key and the
/// CA its peers' certificates must come from (PEM files). All three or
/// none: with them every connection is mutual TLS.
struct net_tls_config {
  std::string certificate{};
  std::string private_key{};
  std::string ca{};
};

struct net_config {
  std::string listen_address{defaults::net::listen_address};
  std::chrono::milliseconds heartbeat_interval = defaults::net::heartbeat_interval;
  std::chrono::milliseconds heartbeat_timeout = defaults::net::heartbeat_timeout;
  std::chrono::milliseconds handshake_timeout = defaults::net::handshake_timeout;
  size_t max_message_size = defaults::net::max_message_size;
  size_t send_buffer = defaults::net::send_buffer;
  net_tls_config tls;
  /// troupe.net.insecure: listen beyond loopback (and connect off it)
  /// without TLS.
  bool insecure = false;
  /// troupe.net.inline-receivers: the I/O thread runs an actor that a
  /// network message wakes up itself instead of waking a worker.
  bool inline_receivers = defaults::net::inline_receivers;
  /// troupe.net.inline-limit: how long such a run may hold the connections
  /// before a standby I/O thread takes them over.
  std::chrono::milliseconds inline_limit = defaults::net::inline_limit;
};

/// troupe.shutdown.*: see defaults::shutdown.
struct shutdown_config {
  std::chrono::milliseconds grace_period = defaults::shutdown::grace_period;
  std::chrono::milliseconds report_interval = defaults::shutdown::report_interval;
};

/// troupe.logger.*: the actor system hands the verbosity to the logger.
struct logger_config {
  log_level verbosity = default_log_level;
};

} // namespace troupe
