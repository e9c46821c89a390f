// The distributed study's engine floor: a plain Boost.Asio program, one
// io_context thread per process, asynchronous reads and writes on
// 127.0.0.1 with TCP_NODELAY, frames of common/wire.hpp. A read takes what
// the socket has (up to 64 KiB); every whole frame in it is handled, then
// the answers go out in one write. While a write is in flight, new frames
// wait in a second buffer that goes out when it completes.

#include "distributed/common/peer.hpp"
#include "distributed/common/wire.hpp"

#include <boost/asio.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using dist::wire::tag;

constexpr size_t chunk = 64 * 1024;

/// One connection. Logic has on_frame(frame), on_batch() (after the frames
/// of one read, before the flush), on_written() (after each write) and
/// on_closed().
template <class Logic>
class channel {
public:
  channel(tcp::socket socket, Logic& logic)
    : socket_(std::move(socket)), logic_(logic), in_(chunk) {
    socket_.set_option(tcp::no_delay{true});
    pending_.reserve(2 * chunk);
    writing_buf_.reserve(2 * chunk);
  }

  std::vector<char>& out() noexcept {
    return pending_;
  }

  size_t waiting() const noexcept {
    return pending_.size();
  }

  void start() {
    read();
  }

  void flush() {
    if (writing_ || pending_.empty())
      return;
    writing_ = true;
    std::swap(pending_, writing_buf_);
    asio::async_write(socket_, asio::buffer(writing_buf_),
                      [this](const boost::system::error_code& ec, size_t) {
                        writing_ = false;
                        writing_buf_.clear();
                        if (ec) {
                          logic_.on_closed();
                          return;
                        }
                        logic_.on_written();
                        flush();
                      });
  }

  void close() {
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
  }

private:
  void read() {
    if (begin_ == end_) {
      begin_ = end_ = 0;
    } else if (in_.size() - end_ < chunk / 2) {
      std::memmove(in_.data(), in_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (end_ - begin_ >= dist::wire::length_bytes
        && dist::wire::frame_size(in_.data() + begin_) > in_.size() - begin_)
      in_.resize(begin_ + dist::wire::frame_size(in_.data() + begin_));
    socket_.async_read_some(asio::buffer(in_.data() + end_, in_.size() - end_),
                            [this](const boost::system::error_code& ec, size_t n) {
                              if (ec) {
                                logic_.on_closed();
                                return;
                              }
                              end_ += n;
                              begin_ += dist::wire::parse(
                                in_.data() + begin_, end_ - begin_,
                                [this](const dist::wire::frame& f) { logic_.on_frame(f); });
                              logic_.on_batch();
                              flush();
                              read();
                            });
  }

  tcp::socket socket_;
  Logic& logic_;
  std::vector<char> in_;
  size_t begin_ = 0;
  size_t end_ = 0;
  std::vector<char> pending_;
  std::vector<char> writing_buf_;
  bool writing_ = false;
};

// -- server ------------------------------------------------------------------------

class server_logic {
public:
  server_logic(const dist::config& cfg, dist::server_side& side, asio::io_context& io)
    : side_(side), io_(io), respond_(cfg, side) {
  }

  void attach(channel<server_logic>* ch) {
    ch_ = ch;
  }

  void on_frame(const dist::wire::frame& f) {
    respond_.on_frame(f, ch_->out());
  }

  void on_batch() {
  }

  void on_written() {
    // The last answer is on its way: the measured work is over.
    if (respond_.finished() && ch_->waiting() == 0)
      side_.done();
  }

  void on_closed() {
    if (!side_.is_done())
      dist::die("server: the client closed the connection early");
    io_.stop();
  }

private:
  dist::server_side& side_;
  asio::io_context& io_;
  dist::wire::responder respond_;
  channel<server_logic>* ch_ = nullptr;
};

int serve(const dist::config& cfg) {
  dist::server_side side{cfg};
  asio::io_context io{1};
  tcp::acceptor acceptor{io, tcp::endpoint{asio::ip::make_address(dist::host), cfg.port}};
  side.ready(acceptor.local_endpoint().port());
  server_logic logic{cfg, side, io};
  std::unique_ptr<channel<server_logic>> ch;
  acceptor.async_accept([&](const boost::system::error_code& ec, tcp::socket socket) {
    if (ec)
      dist::die("server: accept failed");
    acceptor.close();
    ch = std::make_unique<channel<server_logic>>(std::move(socket), logic);
    logic.attach(ch.get());
    ch->start();
  });
  io.run();
  side.finish();
}

// -- client ------------------------------------------------------------------------

class client_logic {
public:
  client_logic(const dist::config& cfg, dist::outcome& out, asio::io_context& io)
    : cfg_(cfg), out_(out), io_(io) {
  }

  void attach(channel<client_logic>* ch) {
    ch_ = ch;
  }

  uint64_t checksum() const noexcept {
    return checksum_;
  }

  void start() {
    switch (cfg_.what) {
      case dist::kind::ping_pong:
        out_.rtt_ns.reserve(cfg_.ops);
        warm_left_ = cfg_.warmup;
        next_ping();
        break;
      case dist::kind::throughput_small:
      case dist::kind::throughput_1k:
        watch_.start();
        produce();
        break;
      case dist::kind::requests:
        watch_.start();
        while (sent_ < cfg_.ops && sent_ < cfg_.window)
          dist::wire::append(ch_->out(), tag::request, static_cast<int64_t>(++sent_));
        break;
      case dist::kind::node_loss:
        break; // refused by dist::parse
    }
    ch_->flush();
  }

  void on_frame(const dist::wire::frame& f) {
    switch (cfg_.what) {
      case dist::kind::ping_pong:
        if (f.value > 0) {
          out_.rtt_ns.push_back(dist::nanos_between(t0_, dist::steady::now()));
          checksum_ += static_cast<uint64_t>(f.value);
        }
        next_ping();
        break;
      case dist::kind::throughput_small:
      case dist::kind::throughput_1k:
        watch_.stop(out_);
        checksum_ = static_cast<uint64_t>(f.value);
        finish();
        break;
      case dist::kind::requests:
        checksum_ += static_cast<uint64_t>(f.value);
        if (sent_ < cfg_.ops)
          dist::wire::append(ch_->out(), tag::request, static_cast<int64_t>(++sent_));
        if (++answered_ == cfg_.ops) {
          watch_.stop(out_);
          finish();
        }
        break;
      case dist::kind::node_loss:
        break; // refused by dist::parse
    }
  }

  void on_batch() {
  }

  void on_written() {
    if (cfg_.what == dist::kind::throughput_small || cfg_.what == dist::kind::throughput_1k)
      produce();
  }

  void on_closed() {
    if (!finished_)
      dist::die("client: the server closed the connection");
  }

private:
  void next_ping() {
    if (warm_left_ > 0) {
      dist::wire::append(ch_->out(), tag::request, -static_cast<int64_t>(warm_left_--));
      return;
    }
    if (sent_ == 0)
      watch_.start();
    if (sent_ == cfg_.ops) {
      watch_.stop(out_);
      finish();
      return;
    }
    t0_ = dist::steady::now();
    dist::wire::append(ch_->out(), tag::request, static_cast<int64_t>(++sent_));
  }

  /// Up to 64 KiB of messages, then flushes.
  void produce() {
    while (sent_ < cfg_.ops && ch_->waiting() < chunk)
      dist::wire::append(ch_->out(), tag::data, static_cast<int64_t>(++sent_), cfg_.payload);
    ch_->flush();
  }

  void finish() {
    finished_ = true;
    ch_->close();
    io_.stop();
  }

  const dist::config& cfg_;
  dist::outcome& out_;
  asio::io_context& io_;
  channel<client_logic>* ch_ = nullptr;
  dist::stopwatch watch_;
  dist::steady::time_point t0_{};
  uint64_t warm_left_ = 0;
  uint64_t sent_ = 0;
  uint64_t answered_ = 0;
  uint64_t checksum_ = 0;
  bool finished_ = false;
};

} // namespace

int main(int argc, char** argv) {
  auto cfg = dist::parse(argc, argv);
  if (cfg.server)
    return serve(cfg);
  dist::client_side peer{cfg};
  dist::outcome out;
  uint64_t checksum = 0;
  {
    asio::io_context io{1};
    tcp::socket socket{io};
    socket.connect(tcp::endpoint{asio::ip::make_address(dist::host), peer.port()});
    client_logic logic{cfg, out, io};
    channel<client_logic> ch{std::move(socket), logic};
    logic.attach(&ch);
    ch.start();
    logic.start();
    io.run();
    checksum = logic.checksum();
  }
  return peer.finish(out, checksum);
}
