#pragma once

// One connection of a network service (net/service.hpp): its actor face,
// `connection`, and its socket, `connection_io`.
//
// `connection` is the handle users hold. It has no mailbox and never runs:
// sending to it encodes the message with the connection's protocol and
// writes it, as sending to a remote actor's proxy does. It terminates when
// the connection ends, so its handler (linked to it) and its monitors hear
// of that as of any actor's end.
//
// Threads. The I/O thread (the middleman's, running Boost.Asio's
// io_context) owns the socket object, the read buffer, the timers and the
// handler. Any thread may send(): it encodes into out_ under out_mtx_, and
// flush() writes out_ with one non-blocking send() on the socket's
// descriptor from the calling thread, so an answer leaves without waking
// the I/O thread. What the kernel does not take at once goes to the I/O
// thread (io_writing_), which writes it and whatever out_ gathers
// meanwhile. With TLS, the I/O thread does all writing: it owns the TLS
// stream. closed_ is set under out_mtx_ before the I/O thread closes the
// socket, so no thread writes to a closed (or reused) descriptor.

#include "troupe/abstract_actor.hpp"
#include "troupe/detail/deferred_flush.hpp"
#include "troupe/error.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/net/service.hpp"

#include "protocol.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace troupe::net::detail {

class middleman_impl;
class service_state;
class connection_io;

class connection final : public abstract_actor {
public:
  connection(actor_config& cfg, std::shared_ptr<connection_io> io) noexcept;

  /// Any thread: writes `elem`'s message, or bounces it. An exit_msg (the
  /// linked handler ended) or close_atom closes the connection once what
  /// it holds is out.
  void enqueue(mailbox_element_ptr elem, execution_unit* ctx) override;

  const char* name() const noexcept override {
    return "net_connection";
  }

  std::string wait_report() const override;

  /// Keeps `sender` muted until half of send_buffer is out.
  bool add_muted(strong_actor_ptr sender) override;

  /// Terminates with `reason`: the connection ended. Any thread.
  void kill(error reason) {
    cleanup(std::move(reason), nullptr);
  }

protected:
  void on_cleanup(const error& reason, execution_unit* ctx) override;

private:
  std::shared_ptr<connection_io> io_;
};

class connection_io final : public troupe::detail::flushable,
                            public std::enable_shared_from_this<connection_io> {
public:
  using tcp = boost::asio::ip::tcp;
  using clock = std::chrono::steady_clock;
  using tls_stream = boost::asio::ssl::stream<tcp::socket>;

  /// `service` is the server that accepted it, or null for a client; with
  /// `tls`, the connection is TLS (`server_side`: this side is the server;
  /// a client checks the certificate against `host`).
  connection_io(middleman_impl& mm, std::shared_ptr<service_state> service, tcp::socket socket,
                boost::asio::ssl::context* tls, bool server_side, std::string host,
                std::unique_ptr<protocol> proto, const service_options& opts);

  ~connection_io() override;

  // -- I/O thread ------------------------------------------------------------------

  /// Makes the connection's actor and runs the TLS handshake (if any);
  /// then `on_ready` gets the actor, or the reason it failed.
  void start(std::function<void(strong_actor_ptr conn, const error& err)> on_ready);

  /// Keeps `x` (a client's TLS context) as long as the connection.
  void keep_alive(std::shared_ptr<void> x) {
    kept_ = std::move(x);
  }

  /// Starts reading for `handler`.
  void run(strong_actor_ptr handler);

  /// Ends the connection at once: the actor terminates with `reason`.
  /// Later calls do nothing.
  void close(const error& reason);

  // -- any thread ------------------------------------------------------------------

  /// Encodes `msg` for the peer and writes it once the running actor
  /// yields (or at once outside a resume); `full` says the buffer reached
  /// send_buffer. An error says why it was not written.
  error send(const mailbox_element& elem, bool& full);

  /// Writes what the connection holds, then closes: the peer reads it all.
  void close_gracefully(error reason);

  /// See connection::add_muted.
  bool add_muted(strong_actor_ptr sender);

  /// Bytes the kernel has not taken yet.
  size_t buffered() const;

  /// See protocol::answers_requests.
  bool answers_requests() const noexcept {
    return proto_->answers_requests();
  }

  size_t send_buffer() const noexcept {
    return opts_.send_buffer;
  }

  /// The peer's address ("127.0.0.1:41234").
  const std::string& peer_name() const noexcept {
    return peer_name_;
  }

  /// Writes what send() queued (flushable).
  void flush() noexcept override;

private:
  tcp::socket& socket() noexcept {
    return tls_ ? tls_->next_layer() : socket_;
  }

  void start_read();
  void on_read(size_t n);
  /// Hands what the protocol made of the read to the handler; false if
  /// the connection closed meanwhile.
  bool deliver();
  void pause_reading();
  void on_eof();
  void start_io_write();
  void arm_write_timer();
  void arm_idle_timer();
  void flush_locked() noexcept;
  size_t pending_locked() const noexcept;
  std::vector<strong_actor_ptr> take_unmuted_locked();
  static void resume(std::vector<strong_actor_ptr> muted);
  void schedule_flush();
  /// Shuts the sending side once everything is out (I/O thread, out_mtx_
  /// held by the caller).
  void finish_graceful_locked();
  /// close_gracefully() with out_mtx_ held.
  void close_gracefully_locked(error reason);
  /// Whether reading must wait: the handler's mailbox is full, or (no
  /// handler) max_pending_messages are unanswered.
  bool must_pause();
  /// Drops the connection for `why`, with a log line.
  void fail(std::string why);

  std::shared_ptr<middleman_impl> mm_;
  std::shared_ptr<service_state> service_;
  std::shared_ptr<void> kept_;
  const service_options opts_;
  int fd_;
  std::string peer_name_;

  // I/O thread. With TLS, tls_ owns the socket and socket_ is empty.
  tcp::socket socket_;
  std::unique_ptr<tls_stream> tls_;
  const bool server_side_;
  std::unique_ptr<protocol> proto_;
  strong_actor_ptr self_;
  strong_actor_ptr handler_;
  boost::asio::steady_timer write_timer_;
  boost::asio::steady_timer idle_timer_;
  boost::asio::steady_timer pause_timer_;
  byte_buffer rd_buf_;
  size_t rd_begin_ = 0;
  size_t rd_end_ = 0;
  std::vector<delivery> inbox_;
  bool closed_io_ = false;
  bool eof_ = false;
  bool write_timer_armed_ = false;
  bool idle_timer_armed_ = false;
  clock::time_point last_read_;

  // Guarded by out_mtx_. The protocol's encode() runs under it too.
  mutable std::mutex out_mtx_;
  byte_buffer out_;
  bool io_writing_ = false;
  bool closed_ = false;
  /// False until the TLS handshake is done: nothing may be written before.
  bool writable_ = true;
  /// close_gracefully() was called: nothing more is accepted.
  bool closing_ = false;
  /// The peer closed its side; without a handler, the connection closes
  /// once the protocol's backlog is answered.
  bool peer_done_ = false;
  error close_reason_;
  std::vector<strong_actor_ptr> muted_;
  /// Written by the I/O thread while io_writing_, from io_offset_ on.
  byte_buffer io_buf_;
  size_t io_offset_ = 0;

  // Any thread: when the socket last took bytes.
  std::atomic<int64_t> last_write_ns_{0};
};

} // namespace troupe::net::detail
