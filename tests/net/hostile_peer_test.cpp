// Bytes that are not a well-behaved Troupe node, sent over a real socket to
// a running node: each such connection is closed, and the node keeps
// serving everyone else.

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/net/detail/wire.hpp"
#include "troupe/net/middleman.hpp"
#include "troupe/scoped_actor.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <memory>
#include <netinet/in.h>
#include <poll.h>
#include <random>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;

namespace {

/// A TCP connection to 127.0.0.1:`port` that writes raw bytes.
class raw_client {
public:
  explicit raw_client(uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  }

  ~raw_client() {
    close(fd_);
  }

  bool connected() const {
    return connected_;
  }

  void write_bytes(const void* data, size_t n) {
    // The node may have closed already; that is what the tests wait for.
    (void) ::send(fd_, data, n, MSG_NOSIGNAL);
  }

  void write_bytes(const byte_buffer& buf) {
    write_bytes(buf.data(), buf.size());
  }

  /// True once the node closed the connection, read within `timeout`
  /// (whatever the node sent first, its hello, is skipped).
  bool closed_within(std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    char buf[4096];
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
      if (left <= 0ms)
        return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0)
        continue;
      auto n = recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0)
        return true;
    }
  }

private:
  int fd_ = -1;
  bool connected_ = false;
};

byte_buffer frame_of(uint8_t kind, const std::vector<uint8_t>& body, uint32_t claimed) {
  byte_buffer out(4);
  std::memcpy(out.data(), &claimed, 4);
  out.push_back(static_cast<std::byte>(kind));
  for (auto b : body)
    out.push_back(static_cast<std::byte>(b));
  return out;
}

/// A valid hello of a made-up node.
byte_buffer valid_hello() {
  net::detail::hello_frame hello;
  hello.node = net::detail::node_id::make();
  hello.node.bytes[0] ^= 0xFF;
  hello.max_message_size = 1 << 20;
  hello.types = net::detail::local_type_table();
  byte_buffer out;
  net::detail::write_hello(out, hello);
  return out;
}

class hostile_peer_test : public ::testing::Test {
protected:
  hostile_peer_test() {
    cfg.load<net::middleman>();
    cfg.net.handshake_timeout = 300ms;
    cfg.net.max_message_size = 64 * 1024;
    cfg.shutdown.grace_period = 100ms;
    sys = std::make_unique<actor_system>(cfg);
    echo = sys->spawn([] { return behavior{[](int32_t x) { return x; }}; });
    auto published = sys->middleman().publish(echo, 0);
    EXPECT_TRUE(published);
    port = published ? *published : 0;
  }

  ~hostile_peer_test() override {
    anon_send_exit(echo, exit_reason::user_shutdown);
  }

  /// A well-behaved node still gets answers.
  void expect_still_serving() {
    actor_system_config other_cfg;
    other_cfg.load<net::middleman>();
    actor_system other{other_cfg};
    auto remote = other.middleman().remote_actor("127.0.0.1", port);
    ASSERT_TRUE(remote) << to_string(remote.error());
    scoped_actor self{other};
    int32_t y = 0;
    self->request(*remote, 5s, int32_t{7}).receive([&](int32_t v) { y = v; },
                                                   [](const error& e) { FAIL() << to_string(e); });
    EXPECT_EQ(y, 7);
  }

  actor_system_config cfg;
  std::unique_ptr<actor_system> sys;
  actor echo;
  uint16_t port = 0;
};

} // namespace

TEST_F(hostile_peer_test, bytes_of_another_protocol_close_the_connection) {
  raw_client client{port};
  ASSERT_TRUE(client.connected());
  const char request[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
  client.write_bytes(request, sizeof(request) - 1);
  EXPECT_TRUE(client.closed_within(5s));
  expect_still_serving();
}

TEST_F(hostile_peer_test, a_hello_of_another_protocol_version_closes_the_connection) {
  auto hello = valid_hello();
  // The version follows the length, the kind and the magic.
  hello[9] = std::byte{0x7F};
  raw_client client{port};
  client.write_bytes(hello);
  EXPECT_TRUE(client.closed_within(5s));
  expect_still_serving();
}

TEST_F(hostile_peer_test, a_frame_over_the_size_limit_closes_the_connection) {
  raw_client client{port};
  client.write_bytes(valid_hello());
  client.write_bytes(frame_of(2, {1, 2, 3}, 1u << 30));
  EXPECT_TRUE(client.closed_within(5s));
  expect_still_serving();
}

TEST_F(hostile_peer_test, a_peer_that_never_says_hello_is_dropped_after_the_handshake_timeout) {
  raw_client client{port};
  ASSERT_TRUE(client.connected());
  EXPECT_TRUE(client.closed_within(5s));
  expect_still_serving();
}

TEST_F(hostile_peer_test, truncated_and_random_frames_after_a_hello_leave_the_node_serving) {
  std::mt19937 gen{42};
  for (int round = 0; round < 20; ++round) {
    raw_client client{port};
    client.write_bytes(valid_hello());
    for (int i = 0; i < 10; ++i) {
      std::vector<uint8_t> body(gen() % 64);
      for (auto& b : body)
        b = static_cast<uint8_t>(gen());
      auto kind = static_cast<uint8_t>(gen() % 7);
      auto claimed = static_cast<uint32_t>(body.size() + 1 + (gen() % 3 == 0 ? gen() % 100 : 0));
      client.write_bytes(frame_of(kind, body, claimed));
    }
  }
  expect_still_serving();
}
