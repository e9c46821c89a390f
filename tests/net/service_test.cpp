// Network services: length-prefix framing and octet streams over TCP on
// 127.0.0.1, with and without TLS. A connection is an actor: frames reach
// its handler, what is sent to it is written; back-pressure both ways; bad
// input, a peer that stops reading and bad options close one connection
// (or fail the call) and leave the rest serving.

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/net/lp.hpp"
#include "troupe/net/middleman.hpp"
#include "troupe/net/octet_stream.hpp"
#include "troupe/scoped_actor.hpp"

#include "test_certs.hpp"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;
namespace fs = std::filesystem;
using boost::asio::ip::tcp;

namespace {

byte_buffer bytes_of(const std::string& str) {
  byte_buffer result(str.size());
  std::memcpy(result.data(), str.data(), str.size());
  return result;
}

std::string string_of(const byte_buffer& buf) {
  return std::string{reinterpret_cast<const char*>(buf.data()), buf.size()};
}

struct node {
  explicit node(bool inline_receivers = defaults::net::inline_receivers) {
    cfg.load<net::middleman>();
    cfg.net.inline_receivers = inline_receivers;
    cfg.net.handshake_timeout = 2s;
    cfg.shutdown.grace_period = 200ms;
    sys = std::make_unique<actor_system>(cfg);
  }

  /// A listening server keeps its system running, as a server program's
  /// does until SIGINT: the test ends it.
  ~node() {
    sys->shutdown();
  }

  actor_system_config cfg;
  std::unique_ptr<actor_system> sys;
};

/// A server handler that writes back every frame it gets.
behavior echo(event_based_actor* self, actor conn) {
  return {[self, conn](const byte_buffer& frame) { self->mail(frame).send(conn); }};
}

/// Where a handler reports why its connection ended.
using reason_promise = std::shared_ptr<std::promise<error>>;

/// Makes `self` report to `reason` why its connection ended, then quit.
void report_end(event_based_actor* self, reason_promise reason) {
  self->set_exit_handler([self, reason](exit_msg& msg) {
    reason->set_value(msg.reason);
    self->quit(msg.reason);
  });
}

/// A server handler that writes 16 KiB frames to its connection as fast as
/// it is let, and reports the connection's end to `reason`.
behavior flood(event_based_actor* self, actor conn, reason_promise reason) {
  report_end(self, std::move(reason));
  self->mail(tick_atom_v).send(self);
  return {[self, conn](tick_atom) {
            self->mail(byte_buffer(16 * 1024, std::byte{3})).send(conn);
            self->mail(tick_atom_v).send(self);
          },
          [](const byte_buffer&) {}};
}

/// A client handler that passes what arrives to `sink`, and what `sink`
/// sends it to the connection; `sink` hears of the connection's end.
behavior relay(event_based_actor* self, actor conn, actor sink) {
  self->set_exit_handler([self, sink](exit_msg& msg) {
    self->mail(close_atom_v, msg.reason).send(sink);
    self->quit(msg.reason);
  });
  return {
    [self, sink, conn](const byte_buffer& frame) {
      if (self->current_sender().get() == conn.ctrl())
        self->mail(frame).send(sink);
      else
        self->mail(frame).send(conn);
    },
    [self, sink, conn](const std::string& line) {
      if (self->current_sender().get() == conn.ctrl())
        self->mail(line).send(sink);
      else
        self->mail(line).send(conn);
    },
  };
}

/// A client of `port` whose frames reach `self`.
template <class Builder>
actor connect_relay(Builder&& builder, uint16_t port, scoped_actor& self) {
  auto hdl = std::forward<Builder>(builder)
               .connect("127.0.0.1", port)
               .start([sink = actor{self}](event_based_actor* me, actor conn) {
                 return relay(me, std::move(conn), sink);
               });
  EXPECT_TRUE(hdl) << to_string(hdl.error());
  return hdl ? *hdl : actor{};
}

/// A plain blocking socket to `port`, for bytes no well-behaved client
/// sends.
struct raw_client {
  explicit raw_client(uint16_t port) : socket(io) {
    socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  }

  void write(const std::vector<uint8_t>& bytes) {
    boost::asio::write(socket, boost::asio::buffer(bytes));
  }

  /// True once the server closed the connection (reads until EOF).
  bool closed_by_server() {
    boost::system::error_code ec;
    char buf[4096];
    for (;;) {
      socket.read_some(boost::asio::buffer(buf), ec);
      if (ec)
        return ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset;
    }
  }

  boost::asio::io_context io;
  tcp::socket socket;
};

class service_test : public ::testing::TestWithParam<bool> {
protected:
  node server_node{GetParam()};
  node client_node{GetParam()};

  actor_system& server_sys() {
    return *server_node.sys;
  }

  actor_system& client_sys() {
    return *client_node.sys;
  }
};

} // namespace

TEST_P(service_test, length_prefixed_frames_echo_in_order) {
  auto srv = net::lp::with(server_sys()).accept(0).start(echo);
  ASSERT_TRUE(srv) << to_string(srv.error());
  scoped_actor self{client_sys()};
  auto client = connect_relay(net::lp::with(client_sys()), srv->port(), self);
  std::vector<size_t> sizes{0, 1, 5, 1000, 100'000, 3};
  for (auto n : sizes)
    self->mail(byte_buffer(n, std::byte{'x'})).send(client);
  for (auto n : sizes)
    self->receive([n](const byte_buffer& frame) { EXPECT_EQ(frame.size(), n); },
                  after(10s) >> [] { FAIL() << "no echo"; });
  EXPECT_EQ(srv->connections(), 1u);
  anon_send_exit(client, exit_reason::user_shutdown);
}

TEST_P(service_test, every_size_field_carries_frames_up_to_its_limit) {
  for (auto field : {net::lp::size_field::u1, net::lp::size_field::u2, net::lp::size_field::u4}) {
    auto srv = net::lp::with(server_sys()).size_field(field).accept(0).start(echo);
    ASSERT_TRUE(srv);
    scoped_actor self{client_sys()};
    auto client = connect_relay(net::lp::with(client_sys()).size_field(field), srv->port(), self);
    auto largest = std::min<size_t>(net::lp::max_payload(field), 70'000);
    self->mail(byte_buffer(largest, std::byte{1})).send(client);
    self->receive([&](const byte_buffer& frame) { EXPECT_EQ(frame.size(), largest); },
                  after(10s) >> [] { FAIL() << "no echo"; });
    anon_send_exit(client, exit_reason::user_shutdown);
    srv->dispose();
  }
}

TEST_P(service_test, a_frame_too_large_to_send_fails_the_request_and_keeps_the_connection) {
  auto srv = net::lp::with(server_sys()).size_field(net::lp::size_field::u1).accept(0).start(echo);
  ASSERT_TRUE(srv);
  scoped_actor self{client_sys()};
  // The connection handle itself, as a client handler sees it.
  auto conn_promise = std::make_shared<std::promise<actor>>();
  auto fut = conn_promise->get_future();
  auto client = net::lp::with(client_sys())
                  .size_field(net::lp::size_field::u1)
                  .connect("127.0.0.1", srv->port())
                  .start([conn_promise, sink = actor{self}](event_based_actor* me, actor conn) {
                    conn_promise->set_value(conn);
                    return relay(me, conn, sink);
                  });
  ASSERT_TRUE(client);
  auto conn = fut.get();
  bool failed = false;
  self->request(conn, 5s, byte_buffer(256, std::byte{0}))
    .receive([] { FAIL() << "a 256-byte frame went out under a u1 size field"; },
             [&](const error& err) {
               failed = true;
               EXPECT_NE(err.context().find("256"), std::string::npos) << err.context();
             });
  EXPECT_TRUE(failed);
  // Not a string the protocol writes either.
  self->request(conn, 5s, 42).receive([] { FAIL() << "an int went out"; },
                                      [](const error& err) { EXPECT_EQ(err, errc::unexpected_message); });
  // And the connection still serves.
  self->mail(byte_buffer(255, std::byte{2})).send(*client);
  self->receive([](const byte_buffer& frame) { EXPECT_EQ(frame.size(), 255u); },
                after(10s) >> [] { FAIL() << "no echo"; });
  anon_send_exit(*client, exit_reason::user_shutdown);
}

TEST_P(service_test, lines_split_at_newlines_and_a_last_line_without_one_still_arrives) {
  auto srv = net::octet_stream::with(server_sys())
               .lines()
               .accept(0)
               .start([](event_based_actor* self, actor conn) -> behavior {
                 return {[self, conn](const std::string& line) {
                   self->mail("got " + line).send(conn);
                 }};
               });
  ASSERT_TRUE(srv);
  raw_client raw{srv->port()};
  raw.write({'a', 'b', '\r', '\n', 'c', 'd', '\n', 'e', 'f'});
  raw.socket.shutdown(tcp::socket::shutdown_send);
  std::string got;
  boost::system::error_code ec;
  boost::asio::read(raw.socket, boost::asio::dynamic_buffer(got), ec);
  EXPECT_EQ(got, "got ab\ngot cd\ngot ef\n");
}

TEST_P(service_test, an_octet_stream_passes_bytes_through) {
  auto srv = net::octet_stream::with(server_sys()).accept(0).start(echo);
  ASSERT_TRUE(srv);
  scoped_actor self{client_sys()};
  auto client = connect_relay(net::octet_stream::with(client_sys()), srv->port(), self);
  std::string sent(200'000, 'q');
  self->mail(bytes_of(sent)).send(client);
  std::string got;
  while (got.size() < sent.size())
    self->receive([&](const byte_buffer& chunk) { got += string_of(chunk); },
                  after(10s) >> [&] {
                    ADD_FAILURE() << "stuck at " << got.size();
                    got = sent;
                  });
  EXPECT_EQ(got, sent);
  anon_send_exit(client, exit_reason::user_shutdown);
}

TEST_P(service_test, a_bad_frame_closes_that_connection_only) {
  auto srv = net::lp::with(server_sys()).max_message_size(1000).accept(0).start(echo);
  ASSERT_TRUE(srv);
  scoped_actor self{client_sys()};
  auto good = connect_relay(net::lp::with(client_sys()), srv->port(), self);
  raw_client bad{srv->port()};
  // A frame stating 16 MiB, beyond max_message_size.
  bad.write({0x01, 0x00, 0x00, 0x00, 'x'});
  EXPECT_TRUE(bad.closed_by_server());
  self->mail(bytes_of("still here")).send(good);
  self->receive([](const byte_buffer& frame) { EXPECT_EQ(string_of(frame), "still here"); },
                after(10s) >> [] { FAIL() << "the good connection stopped"; });
  anon_send_exit(good, exit_reason::user_shutdown);
}

TEST_P(service_test, the_handler_hears_the_peer_close_and_a_cut_frame_is_an_error) {
  auto reasons = std::make_shared<std::promise<error>>();
  auto fut = reasons->get_future();
  auto srv = net::lp::with(server_sys()).accept(0).start(
    [reasons](event_based_actor* self, actor) -> behavior {
      report_end(self, reasons);
      return {[](const byte_buffer&) {}};
    });
  ASSERT_TRUE(srv);
  {
    raw_client raw{srv->port()};
    raw.write({0x00, 0x00, 0x00, 0x09, 'p', 'a', 'r'});
  }
  ASSERT_EQ(fut.wait_for(10s), std::future_status::ready);
  auto reason = fut.get();
  EXPECT_EQ(reason, errc::connection_closed);
  EXPECT_NE(reason.context().find("inside a frame"), std::string::npos) << reason.context();
}

TEST_P(service_test, a_handler_that_ends_flushes_and_closes_its_connection) {
  auto srv = net::lp::with(server_sys()).accept(0).start(
    [](event_based_actor* self, actor conn) -> behavior {
      for (int i = 0; i < 100; ++i)
        self->mail(byte_buffer(10'000, std::byte{7})).send(conn);
      self->quit();
      return {[](const byte_buffer&) {}};
    });
  ASSERT_TRUE(srv);
  raw_client raw{srv->port()};
  std::vector<char> got;
  boost::system::error_code ec;
  boost::asio::read(raw.socket, boost::asio::dynamic_buffer(got), ec);
  EXPECT_EQ(ec, boost::asio::error::eof);
  EXPECT_EQ(got.size(), 100u * (4 + 10'000));
}

TEST_P(service_test, close_atom_closes_after_what_was_sent) {
  auto srv = net::lp::with(server_sys()).accept(0).start(
    [](event_based_actor* self, actor conn) -> behavior {
      self->mail(bytes_of("bye")).send(conn);
      self->mail(close_atom_v).send(conn);
      return {[](const byte_buffer&) {}};
    });
  ASSERT_TRUE(srv);
  raw_client raw{srv->port()};
  std::vector<char> got;
  boost::system::error_code ec;
  boost::asio::read(raw.socket, boost::asio::dynamic_buffer(got), ec);
  EXPECT_EQ(ec, boost::asio::error::eof);
  EXPECT_EQ(std::string(got.begin(), got.end()), std::string("\0\0\0\3bye", 7));
}

TEST_P(service_test, a_peer_that_stops_reading_is_dropped_after_the_write_timeout) {
  auto reasons = std::make_shared<std::promise<error>>();
  auto fut = reasons->get_future();
  auto srv = net::lp::with(server_sys())
               .write_timeout(300ms)
               .send_buffer(64 * 1024)
               .accept(0)
               // Muted while the connection holds send_buffer.
               .start([reasons](event_based_actor* self, actor conn) {
                 return flood(self, std::move(conn), reasons);
               });
  ASSERT_TRUE(srv);
  raw_client raw{srv->port()};
  ASSERT_EQ(fut.wait_for(20s), std::future_status::ready);
  auto reason = fut.get();
  EXPECT_EQ(reason, errc::connection_closed);
  EXPECT_NE(reason.context().find("write_timeout"), std::string::npos) << reason.context();
}

TEST_P(service_test, when_full_disconnect_drops_a_slow_peer_instead_of_muting_the_writer) {
  auto reasons = std::make_shared<std::promise<error>>();
  auto fut = reasons->get_future();
  auto srv = net::lp::with(server_sys())
               .when_full(net::when_full::disconnect)
               .write_timeout(0ms)
               .send_buffer(64 * 1024)
               .accept(0)
               .start([reasons](event_based_actor* self, actor conn) {
                 return flood(self, std::move(conn), reasons);
               });
  ASSERT_TRUE(srv);
  raw_client raw{srv->port()};
  // No write timeout: only the disconnect policy can end this.
  ASSERT_EQ(fut.wait_for(20s), std::future_status::ready);
  auto reason = fut.get();
  EXPECT_EQ(reason, errc::connection_closed);
  EXPECT_NE(reason.context().find("behind"), std::string::npos) << reason.context();
}

TEST_P(service_test, a_line_may_be_as_long_as_max_message_size_with_either_ending) {
  auto srv = net::octet_stream::with(server_sys())
               .lines()
               .max_message_size(4)
               .accept(0)
               .start([](event_based_actor* self, actor conn) -> behavior {
                 return {[self, conn](const std::string& line) { self->mail(line).send(conn); }};
               });
  ASSERT_TRUE(srv);
  raw_client raw{srv->port()};
  raw.write({'a', 'b', 'c', 'd', '\r', '\n', 'e', 'f', 'g', 'h', '\n'});
  std::vector<char> got(10);
  boost::asio::read(raw.socket, boost::asio::buffer(got));
  EXPECT_EQ(std::string(got.begin(), got.end()), "abcd\nefgh\n");
  // One byte more is too long: that connection closes.
  raw.write({'1', '2', '3', '4', '5', '\n'});
  EXPECT_TRUE(raw.closed_by_server());
}

TEST_P(service_test, a_slow_handler_slows_its_client_and_loses_nothing) {
  constexpr int frames = 3000;
  auto received = std::make_shared<std::atomic<int>>(0);
  auto in_order = std::make_shared<std::atomic<bool>>(true);
  auto most_queued = std::make_shared<std::atomic<size_t>>(0);
  auto srv = net::lp::with(server_sys())
               .max_pending_messages(8)
               .accept(0)
               .start([=](event_based_actor* self, actor) -> behavior {
                 return {[=](const byte_buffer& frame) {
                   int n = 0;
                   std::memcpy(&n, frame.data(), sizeof(n));
                   if (n != received->load())
                     *in_order = false;
                   ++*received;
                   auto queued = self->mailbox_size();
                   if (queued > most_queued->load())
                     *most_queued = queued;
                   if (n % 100 == 0)
                     std::this_thread::sleep_for(1ms);
                 }};
               });
  ASSERT_TRUE(srv);
  scoped_actor self{client_sys()};
  auto client = connect_relay(net::lp::with(client_sys()), srv->port(), self);
  for (int i = 0; i < frames; ++i) {
    byte_buffer frame(64);
    std::memcpy(frame.data(), &i, sizeof(i));
    self->mail(std::move(frame)).send(client);
  }
  auto deadline = std::chrono::steady_clock::now() + 30s;
  while (received->load() < frames && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  EXPECT_EQ(received->load(), frames);
  EXPECT_TRUE(in_order->load());
  // One read's worth at most beyond the bound: 16 KiB of 68-byte frames.
  EXPECT_LT(most_queued->load(), 8u + 16 * 1024 / 68 + 1);
  anon_send_exit(client, exit_reason::user_shutdown);
}

TEST_P(service_test, max_connections_holds_the_next_client_until_one_leaves) {
  auto srv = net::lp::with(server_sys()).accept(0).max_connections(1).start(echo);
  ASSERT_TRUE(srv);
  scoped_actor self{client_sys()};
  auto first = connect_relay(net::lp::with(client_sys()), srv->port(), self);
  self->mail(bytes_of("one")).send(first);
  self->receive([](const byte_buffer&) {}, after(10s) >> [] { FAIL() << "no echo"; });
  raw_client second{srv->port()};
  second.write({0, 0, 0, 3, 't', 'w', 'o'});
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(srv->connections(), 1u);
  anon_send_exit(first, exit_reason::user_shutdown);
  // The second is served once the first is gone.
  std::vector<char> got(7);
  boost::asio::read(second.socket, boost::asio::buffer(got));
  EXPECT_EQ(std::string(got.begin(), got.end()), std::string("\0\0\0\3two", 7));
}

TEST_P(service_test, an_idle_connection_is_closed_after_the_idle_timeout) {
  auto srv = net::lp::with(server_sys()).idle_timeout(200ms).accept(0).start(echo);
  ASSERT_TRUE(srv);
  raw_client raw{srv->port()};
  EXPECT_TRUE(raw.closed_by_server());
}

TEST_P(service_test, many_clients_at_once_lose_nothing) {
  constexpr int clients = 64;
  constexpr int frames = 200;
  auto srv = net::lp::with(server_sys()).accept(0).start(echo);
  ASSERT_TRUE(srv);
  std::vector<std::unique_ptr<scoped_actor>> selves;
  std::vector<actor> handles;
  for (int i = 0; i < clients; ++i) {
    selves.push_back(std::make_unique<scoped_actor>(client_sys()));
    handles.push_back(connect_relay(net::lp::with(client_sys()), srv->port(), *selves.back()));
  }
  for (int i = 0; i < clients; ++i)
    for (int j = 0; j < frames; ++j)
      (*selves[i])->mail(bytes_of(std::to_string(i) + ":" + std::to_string(j))).send(handles[i]);
  for (int i = 0; i < clients; ++i)
    for (int j = 0; j < frames; ++j)
      (*selves[i])->receive(
        [&](const byte_buffer& frame) {
          EXPECT_EQ(string_of(frame), std::to_string(i) + ":" + std::to_string(j));
        },
        after(30s) >> [] { FAIL() << "an echo is missing"; });
  for (auto& hdl : handles)
    anon_send_exit(hdl, exit_reason::user_shutdown);
}

TEST_P(service_test, bad_options_and_unreachable_servers_are_errors) {
  auto bad = net::lp::with(server_sys()).max_pending_messages(0).accept(0).start(echo);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), errc::invalid_argument);
  EXPECT_NE(bad.error().context().find("max_pending_messages"), std::string::npos);
  auto no_cert = net::lp::with(server_sys()).tls({}).accept(0).start(echo);
  ASSERT_FALSE(no_cert);
  EXPECT_NE(no_cert.error().context().find("certificate"), std::string::npos);
  auto bad_address = net::lp::with(server_sys()).accept(0, "not-an-address").start(echo);
  ASSERT_FALSE(bad_address);
  EXPECT_EQ(bad_address.error(), errc::invalid_argument);
  // A port nobody listens on: one that was just closed.
  auto gone = net::lp::with(server_sys()).accept(0).start(echo);
  ASSERT_TRUE(gone);
  auto port = gone->port();
  gone->dispose();
  std::this_thread::sleep_for(50ms);
  auto refused = net::lp::with(client_sys()).connect("127.0.0.1", port).start(echo);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::cannot_connect_to_node);
}

INSTANTIATE_TEST_SUITE_P(receivers, service_test, ::testing::Values(false, true),
                         [](const auto& info) {
                           return info.param ? std::string{"inline"} : std::string{"workers"};
                         });

// -- TLS --------------------------------------------------------------------------

namespace {

fs::path cert_dir;

std::string file(const std::string& name) {
  return (cert_dir / name).string();
}

class service_tls_test : public ::testing::Test {
public:
  static void SetUpTestSuite() {
    if (!test_certs::run("openssl version"))
      return;
    cert_dir = fs::temp_directory_path() / ("troupe-service-tls-" + std::to_string(::getpid()));
    fs::create_directories(cert_dir);
    if (!test_certs::make_ca(cert_dir, "ca")
        || !test_certs::make_cert(cert_dir, "ca", "server", "localhost")
        || !test_certs::make_cert(cert_dir, "ca", "client")
        || !test_certs::make_ca(cert_dir, "rogue-ca"))
      cert_dir.clear();
  }

  static void TearDownTestSuite() {
    if (!cert_dir.empty())
      fs::remove_all(cert_dir);
  }

protected:
  void SetUp() override {
    if (cert_dir.empty())
      GTEST_SKIP() << "the openssl program is missing or failed (make test installs it)";
  }

  node server_node;
  node client_node;
};

} // namespace

TEST_F(service_tls_test, frames_cross_tls_and_the_server_name_is_checked) {
  auto srv = net::lp::with(*server_node.sys)
               .tls({.certificate = file("server.pem"), .private_key = file("server.key")})
               .accept(0)
               .start(echo);
  ASSERT_TRUE(srv) << to_string(srv.error());
  scoped_actor self{*client_node.sys};
  auto client = net::lp::with(*client_node.sys)
                  .tls({.ca = file("ca.pem")})
                  .connect("localhost", srv->port())
                  .start([sink = actor{self}](event_based_actor* me, actor conn) {
                    return relay(me, std::move(conn), sink);
                  });
  ASSERT_TRUE(client) << to_string(client.error());
  self->mail(bytes_of("secret")).send(*client);
  self->receive([](const byte_buffer& frame) { EXPECT_EQ(string_of(frame), "secret"); },
                after(10s) >> [] { FAIL() << "no echo over TLS"; });
  anon_send_exit(*client, exit_reason::user_shutdown);
  // The certificate names localhost, not 127.0.0.1.
  auto wrong_name = net::lp::with(*client_node.sys)
                      .tls({.ca = file("ca.pem")})
                      .connect("127.0.0.1", srv->port())
                      .start(echo);
  ASSERT_FALSE(wrong_name);
  EXPECT_EQ(wrong_name.error(), errc::cannot_connect_to_node);
  // Another CA does not vouch for the server.
  auto rogue = net::lp::with(*client_node.sys)
                 .tls({.ca = file("rogue-ca.pem")})
                 .connect("localhost", srv->port())
                 .start(echo);
  ASSERT_FALSE(rogue);
  EXPECT_EQ(rogue.error(), errc::cannot_connect_to_node);
}

TEST_F(service_tls_test, a_server_with_a_ca_admits_only_clients_it_signed) {
  auto srv = net::lp::with(*server_node.sys)
               .tls({.certificate = file("server.pem"),
                     .private_key = file("server.key"),
                     .ca = file("ca.pem")})
               .accept(0)
               .start(echo);
  ASSERT_TRUE(srv);
  scoped_actor self{*client_node.sys};
  auto signed_client = net::lp::with(*client_node.sys)
                         .tls({.certificate = file("client.pem"),
                               .private_key = file("client.key"),
                               .ca = file("ca.pem")})
                         .connect("localhost", srv->port())
                         .start([sink = actor{self}](event_based_actor* me, actor conn) {
                           return relay(me, std::move(conn), sink);
                         });
  ASSERT_TRUE(signed_client) << to_string(signed_client.error());
  self->mail(bytes_of("hi")).send(*signed_client);
  self->receive([](const byte_buffer& frame) { EXPECT_EQ(string_of(frame), "hi"); },
                after(10s) >> [] { FAIL() << "no echo over mutual TLS"; });
  anon_send_exit(*signed_client, exit_reason::user_shutdown);
  // Without a certificate, the server refuses it: the handshake (TLS 1.3:
  // or the first read after it) fails, and the connection ends.
  scoped_actor other{*client_node.sys};
  auto anonymous = net::lp::with(*client_node.sys)
                     .tls({.ca = file("ca.pem")})
                     .connect("localhost", srv->port())
                     .start([sink = actor{other}](event_based_actor* me, actor conn) {
                       return relay(me, std::move(conn), sink);
                     });
  if (anonymous) {
    other->mail(bytes_of("let me in")).send(*anonymous);
    other->receive([](close_atom, const error& reason) { EXPECT_EQ(reason, errc::connection_closed); },
                   [](const byte_buffer&) { FAIL() << "served without a certificate"; },
                   after(10s) >> [] { FAIL() << "the connection stayed open"; });
  } else {
    EXPECT_EQ(anonymous.error(), errc::cannot_connect_to_node);
  }
}

TEST_F(service_tls_test, a_missing_file_is_an_error_naming_it) {
  auto srv = net::lp::with(*server_node.sys)
               .tls({.certificate = file("nope.pem"), .private_key = file("server.key")})
               .accept(0)
               .start(echo);
  ASSERT_FALSE(srv);
  EXPECT_EQ(srv.error(), errc::invalid_argument);
  EXPECT_NE(srv.error().context().find("nope.pem"), std::string::npos);
}
