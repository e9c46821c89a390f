// The machine's floor for the distributed study: plain blocking POSIX TCP
// sockets on 127.0.0.1 with TCP_NODELAY, one thread per process, frames of
// common/wire.hpp. Reads take what the socket has (up to 64 KiB) and handle
// every whole frame in it; writes go out when a batch is handled, or when
// 64 KiB are waiting.

#include "distributed/common/peer.hpp"
#include "distributed/common/wire.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace {

using dist::wire::tag;

constexpr size_t chunk = 64 * 1024;

void set_nodelay(int fd) {
  int one = 1;
  if (::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
    dist::die_errno("setsockopt(TCP_NODELAY)");
}

sockaddr_in loopback(uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, dist::host, &addr.sin_addr) != 1)
    dist::die("bad address");
  return addr;
}

/// One connected socket with a read buffer and a write buffer.
class connection {
public:
  explicit connection(int fd) : fd_(fd), in_(chunk) {
    set_nodelay(fd_);
    out_.reserve(2 * chunk);
  }

  ~connection() {
    ::close(fd_);
  }

  std::vector<char>& out() noexcept {
    return out_;
  }

  void flush() {
    size_t sent = 0;
    while (sent < out_.size()) {
      auto n = ::send(fd_, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        dist::die_errno("send");
      sent += static_cast<size_t>(n);
    }
    out_.clear();
  }

  /// Flushes once 64 KiB are waiting.
  void maybe_flush() {
    if (out_.size() >= chunk)
      flush();
  }

  /// Blocks until at least one whole frame is in, then calls f(frame) for
  /// every whole frame read. False at the end of the stream.
  template <class F>
  bool read_frames(F&& f) {
    for (;;) {
      auto used = dist::wire::parse(in_.data() + begin_, end_ - begin_, f);
      begin_ += used;
      if (used > 0) {
        compact();
        return true;
      }
      compact();
      if (end_ == in_.size())
        in_.resize(in_.size() * 2);
      auto n = ::recv(fd_, in_.data() + end_, in_.size() - end_, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        dist::die_errno("recv");
      if (n == 0)
        return false;
      end_ += static_cast<size_t>(n);
    }
  }

private:
  void compact() {
    if (begin_ == end_) {
      begin_ = end_ = 0;
    } else if (begin_ > 0 && in_.size() - end_ < chunk / 2) {
      std::memmove(in_.data(), in_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
  }

  int fd_;
  std::vector<char> in_;
  size_t begin_ = 0;
  size_t end_ = 0;
  std::vector<char> out_;
};

int serve(const dist::config& cfg) {
  dist::server_side side{cfg};
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0)
    dist::die_errno("socket");
  int one = 1;
  ::setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  auto addr = loopback(cfg.port);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    dist::die_errno("bind");
  if (::listen(listener, 1) != 0)
    dist::die_errno("listen");
  socklen_t len = sizeof(addr);
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  side.ready(ntohs(addr.sin_port));
  int fd = ::accept(listener, nullptr, nullptr);
  if (fd < 0)
    dist::die_errno("accept");
  ::close(listener);
  connection conn{fd};
  dist::wire::responder respond{cfg, side};
  while (!respond.finished()) {
    bool open = conn.read_frames([&](const dist::wire::frame& f) {
      respond.on_frame(f, conn.out());
      conn.maybe_flush();
    });
    conn.flush();
    if (!open)
      dist::die("server: the client closed the connection early");
  }
  side.done();
  // Drain until the client closes, so that no reset cuts the last answer.
  while (conn.read_frames([](const dist::wire::frame&) {}))
    ;
  side.finish();
}

int connect_to(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    dist::die_errno("socket");
  auto addr = loopback(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    dist::die_errno("connect");
  return fd;
}

uint64_t ping_pong(const dist::config& cfg, connection& conn, dist::outcome& out) {
  uint64_t sum = 0;
  auto round_trip = [&](int64_t value) {
    dist::wire::append(conn.out(), tag::request, value);
    conn.flush();
    int64_t answer = 0;
    if (!conn.read_frames([&](const dist::wire::frame& f) { answer = f.value; }))
      dist::die("client: the server closed the connection");
    return answer;
  };
  for (uint64_t i = cfg.warmup; i > 0; --i)
    round_trip(-static_cast<int64_t>(i));
  out.rtt_ns.reserve(cfg.ops);
  dist::stopwatch watch;
  watch.start();
  for (uint64_t i = 1; i <= cfg.ops; ++i) {
    auto t0 = dist::steady::now();
    sum += static_cast<uint64_t>(round_trip(static_cast<int64_t>(i)));
    out.rtt_ns.push_back(dist::nanos_between(t0, dist::steady::now()));
  }
  watch.stop(out);
  return sum;
}

uint64_t stream(const dist::config& cfg, connection& conn, dist::outcome& out) {
  dist::stopwatch watch;
  watch.start();
  for (uint64_t i = 1; i <= cfg.ops; ++i) {
    dist::wire::append(conn.out(), tag::data, static_cast<int64_t>(i), cfg.payload);
    conn.maybe_flush();
  }
  conn.flush();
  int64_t received = 0;
  if (!conn.read_frames([&](const dist::wire::frame& f) { received = f.value; }))
    dist::die("client: the server closed the connection");
  watch.stop(out);
  return static_cast<uint64_t>(received);
}

uint64_t requests(const dist::config& cfg, connection& conn, dist::outcome& out) {
  uint64_t sum = 0;
  uint64_t sent = 0;
  uint64_t answered = 0;
  dist::stopwatch watch;
  watch.start();
  while (sent < cfg.ops && sent < cfg.window)
    dist::wire::append(conn.out(), tag::request, static_cast<int64_t>(++sent));
  conn.flush();
  while (answered < cfg.ops) {
    bool open = conn.read_frames([&](const dist::wire::frame& f) {
      sum += static_cast<uint64_t>(f.value);
      ++answered;
      if (sent < cfg.ops)
        dist::wire::append(conn.out(), tag::request, static_cast<int64_t>(++sent));
    });
    conn.flush();
    if (!open)
      dist::die("client: the server closed the connection");
  }
  watch.stop(out);
  return sum;
}

} // namespace

int main(int argc, char** argv) {
  auto cfg = dist::parse(argc, argv);
  if (cfg.server)
    return serve(cfg);
  dist::client_side peer{cfg};
  dist::outcome out;
  uint64_t checksum = 0;
  {
    connection conn{connect_to(peer.port())};
    switch (cfg.what) {
      case dist::kind::ping_pong:
        checksum = ping_pong(cfg, conn, out);
        break;
      case dist::kind::throughput_small:
      case dist::kind::throughput_1k:
        checksum = stream(cfg, conn, out);
        break;
      case dist::kind::requests:
        checksum = requests(cfg, conn, out);
        break;
      case dist::kind::node_loss:
        break; // refused by dist::parse
    }
  }
  return peer.finish(out, checksum);
}
