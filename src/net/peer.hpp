#pragma once

// One TCP connection to another node: the handshake, reading and
// dispatching frames, writing frames, heartbeats, and what happens when the
// connection ends. The same object is the actor codec of the messages on
// this connection (serialization/actor_codec.hpp).
//
// Threads. The I/O thread (the middleman's, running Boost.Asio's
// io_context) owns the socket object, the read buffer, the timer, the
// proxies and the handshake state. Any thread may send(): it serializes
// into out_ under out_mtx_, and flush() writes out_ to the socket with one
// non-blocking send() on the socket's descriptor from the calling thread,
// so a message leaves without waking the I/O thread. Only what the kernel
// does not take at once goes to the I/O thread (io_writing_), which writes
// it with asio::async_write and takes whatever out_ gathered meanwhile.
// Closing sets closed_ under out_mtx_ before the I/O thread closes the
// socket, so no thread writes to a closed (or reused) descriptor.

#include "troupe/detail/deferred_flush.hpp"
#include "troupe/error.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/net/detail/wire.hpp"
#include "troupe/serialization/actor_codec.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <bitset>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace troupe::net::detail {

class middleman_impl;

class peer final : public std::enable_shared_from_this<peer>,
                   public troupe::detail::flushable,
                   public troupe::detail::actor_codec {
public:
  using tcp = boost::asio::ip::tcp;
  using clock = std::chrono::steady_clock;

  /// Called once on the I/O thread: with no error when the handshake is
  /// done, else with the reason it failed.
  using handshake_handler = std::function<void(peer&, const error&)>;

  using tls_stream = boost::asio::ssl::stream<tcp::socket>;

  /// `published` (0 for none) is the actor this side offers the peer, as
  /// the port it connected to did; `interface` is its interface. With
  /// `tls`, the connection is TLS (`accepted`: this side is the server).
  peer(middleman_impl& mm, tcp::socket socket, strong_actor_ptr published,
       std::vector<std::string> interface, boost::asio::ssl::context* tls, bool accepted);

  ~peer() override;

  // -- I/O thread ------------------------------------------------------------------

  /// Sends this side's hello and starts reading.
  void start(handshake_handler on_handshake);

  /// Ends the connection: its proxies die and requests waiting on it fail
  /// with `reason`. Later calls do nothing.
  void close(const error& reason);

  /// Writes a goodbye after everything queued and closes once it is out.
  void close_gracefully();

  /// The proxy of the peer's actor `remote_id` (made on first use).
  strong_actor_ptr proxy_for(uint64_t remote_id);

  /// A pending proxy of the peer's actor `remote_id`: this connection is
  /// the one it waited for.
  void adopt_proxy(uint64_t remote_id, const strong_actor_ptr& proxy);

  /// The peer's hello; valid once the handshake is done.
  const hello_frame& remote() const noexcept {
    return remote_;
  }

  bool is_up() const noexcept {
    return up_.load(std::memory_order_acquire);
  }

  // -- any thread ------------------------------------------------------------------

  /// Queues `elem` for the peer's actor `receiver` and writes it once the
  /// running actor yields (or at once outside a resume). An error says
  /// why it was not sent: the connection is closed, or the peer has no
  /// type of that name, or the message does not serialize or is too large.
  error send(const mailbox_element& elem, uint64_t receiver, bool& full);

  /// Keeps `sender` muted until half of troupe.net.send-buffer is out;
  /// false if it is already (or the connection closed).
  bool add_muted(strong_actor_ptr sender);

  /// Our actor `id` if it was exported to this peer, else null.
  strong_actor_ptr exported_actor(uint64_t id) const;

  /// Bytes queued for the peer that the kernel has not taken yet. Any
  /// thread.
  size_t buffered() const;

  /// Requests this node's live actors sent the peer that it has not
  /// answered yet. Any thread.
  size_t awaited_responses() const;

  /// Tells the peer that our actor `id` terminated, if it was exported to
  /// it; false if it was not.
  bool send_down(uint64_t id, const error& reason);

  /// Writes what send() queued (flushable).
  void flush() noexcept override;

  /// The peer's node as people read it ("host:pid#id", or its address
  /// before the handshake).
  std::string remote_name() const;

  // -- actor_codec (send(): out_mtx_ held; loading: the I/O thread) -----------------

  bool save(binary_serializer& sink, actor_control_block* x) override;
  bool load(binary_deserializer& source, strong_actor_ptr& x) override;

private:
  enum class handle_tag : uint8_t {
    null = 0,
    writer_local = 1, // an actor of the writer's node
    reader_local = 2, // an actor of the reader's node (a proxy at the writer)
    other_node = 3,   // an actor of a third node, and where to reach that node
  };

  struct pending_request {
    strong_actor_ptr requester;
    message_id mid;
  };

  static uint64_t pending_key(actor_id requester, uint64_t number) noexcept {
    return (requester << 40) ^ number;
  }

  /// The TCP socket, under TLS or not.
  tcp::socket& socket() noexcept {
    return tls_ ? tls_->next_layer() : socket_;
  }
  /// The hello goes out and reading begins (after the TLS handshake).
  void begin();
  void start_read();
  void on_read(size_t n);
  /// False if the connection was closed while handling it.
  bool handle_frame(frame_kind kind, std::span<const std::byte> body);
  void handle_hello(std::span<const std::byte> body);
  void handle_message(std::span<const std::byte> body);
  void start_io_write();
  void on_timer();
  /// Reading waits until paused_for_'s mailbox drains.
  void pause_reading();
  void arm_timer(clock::duration delay);
  /// Writes out_ now, or arranges for it (out_mtx_ held).
  void flush_locked() noexcept;
  /// Bytes not yet taken by the kernel (out_mtx_ held).
  size_t pending_locked() const noexcept;
  /// The muted senders to run again, if the buffer is below half its bound
  /// (out_mtx_ held); run them with resume() once the lock is released.
  std::vector<strong_actor_ptr> take_unmuted_locked();
  static void resume(std::vector<strong_actor_ptr> muted);
  /// Defers or runs a flush, as the calling thread allows.
  void schedule_flush();
  /// The local actor `id` exported to this peer, or a published one.
  strong_actor_ptr local_actor_by_id(uint64_t id);
  void fail_write(const boost::system::error_code& ec);
  /// The reason proxies and requests get when the node is lost.
  error lost(std::string why) const;

  // Keeps the io_context alive as long as the socket and timer.
  std::shared_ptr<middleman_impl> mm_;
  const size_t max_message_size_;
  const size_t send_buffer_;
  int fd_;

  // I/O thread. With TLS, tls_ owns the socket and socket_ is empty.
  tcp::socket socket_;
  std::unique_ptr<tls_stream> tls_;
  const bool accepted_;
  boost::asio::steady_timer timer_;
  // Reading waits while this receiver's bounded mailbox is full.
  boost::asio::steady_timer pause_timer_;
  strong_actor_ptr paused_for_;
  std::vector<std::byte> rd_buf_;
  size_t rd_begin_ = 0;
  size_t rd_end_ = 0;
  handshake_handler on_handshake_;
  bool closed_io_ = false;
  bool closing_ = false;
  // Several for one actor only after a pending proxy was adopted.
  std::unordered_multimap<uint64_t, strong_actor_ptr> proxies_;
  // The last receiver and the last proxy looked up: a stream of messages
  // between two actors looks up neither again. IDs never come back, so an
  // entry can only be stale for an actor that is gone (and then bounces).
  uint64_t last_receiver_id_ = 0;
  strong_actor_ptr last_receiver_;
  uint64_t last_proxy_id_ = 0;
  strong_actor_ptr last_proxy_;
  std::vector<type_id_t> type_map_;
  clock::time_point last_read_;
  std::string endpoint_name_;
  // The peer's address, as this node reaches it (for third nodes).
  std::string remote_host_;

  // Written by the I/O thread before up_ is set, read by any thread after.
  hello_frame remote_;
  std::bitset<65536> peer_knows_;
  std::atomic<bool> up_{false};

  // Guarded by out_mtx_.
  mutable std::mutex out_mtx_;
  byte_buffer out_;
  bool io_writing_ = false;
  bool closed_ = false;
  /// False until the TLS handshake is done: nothing may be written before.
  bool writable_ = true;
  /// Set once close_gracefully() queued the goodbye: nothing follows it.
  bool goodbye_queued_ = false;
  error close_reason_;
  std::unordered_map<uint64_t, pending_request> pending_;
  std::unordered_map<uint64_t, strong_actor_ptr> exports_;
  /// Senders muted while the buffer was over troupe.net.send-buffer.
  std::vector<strong_actor_ptr> muted_;
  actor_control_block* last_export_ = nullptr;
  bool sender_local_ = false;
  /// Written by the I/O thread while io_writing_ (out_mtx_ not needed),
  /// from io_offset_ on: what the first send() took is skipped, not erased.
  byte_buffer io_buf_;
  size_t io_offset_ = 0;

  // Any thread.
  std::atomic<int64_t> last_write_ns_{0};
};

} // namespace troupe::net::detail
