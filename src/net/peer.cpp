#include "peer.hpp"
#include "now.hpp"

#include "../detail/system_internals.hpp"

#include "middleman_impl.hpp"
#include "proxy.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/logger.hpp"
#include "troupe/binary_deserializer.hpp"
#include "troupe/binary_serializer.hpp"
#include "troupe/system_messages.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/socket.h>

namespace troupe::net::detail {

namespace asio = boost::asio;

namespace {

constexpr size_t initial_read_buffer = 64 * 1024;
/// A worker writes at once, not when its actor yields, once this much waits.
constexpr size_t eager_write_bytes = 64 * 1024;

} // namespace

peer::peer(middleman_impl& mm, tcp::socket socket, strong_actor_ptr published,
           std::vector<std::string> interface, boost::asio::ssl::context* tls, bool accepted)
  : mm_(mm.shared_from_this()),
    max_message_size_(mm.config().max_message_size),
    send_buffer_(mm.config().send_buffer),
    fd_(socket.native_handle()),
    socket_(std::move(socket)),
    accepted_(accepted),
    timer_(mm.io()),
    pause_timer_(mm.io()),
    rd_buf_(initial_read_buffer) {
  boost::system::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  endpoint_name_ = ec ? std::string{"<unknown>"}
                      : ep.address().to_string() + ":" + std::to_string(ep.port());
  if (!ec)
    remote_host_ = ep.address().to_string();
  hello_frame hello;
  hello.node = mm.this_node();
  hello.max_message_size = max_message_size_;
  hello.types = mm.type_table();
  hello.listen_port = mm.listen_port();
  // Every peer may look up and spawn actors through it.
  if (auto& service = mm.service()) {
    hello.service = service.id();
    exports_.emplace(service.id(), service.ptr());
  }
  if (published) {
    // The peer may hold a proxy of it from now on: it hears when it dies.
    published->get()->add_monitor(mm.watcher());
    hello.published = published->id();
    hello.interface = std::move(interface);
    exports_.emplace(published->id(), std::move(published));
  }
  write_hello(out_, hello);
  if (tls != nullptr) {
    tls_ = std::make_unique<tls_stream>(std::move(socket_), *tls);
    writable_ = false;
  }
}

peer::~peer() = default;

std::string peer::remote_name() const {
  if (is_up())
    return remote_.node.to_string();
  return endpoint_name_;
}

error peer::lost(std::string why) const {
  return error{exit_reason::remote_link_unreachable,
               "node " + remote_name() + " lost: " + std::move(why)};
}

// -- I/O thread -------------------------------------------------------------------

void peer::start(handshake_handler on_handshake) {
  on_handshake_ = std::move(on_handshake);
  last_read_ = clock::now();
  // The handshake timeout covers the TLS handshake too.
  arm_timer(mm_->config().handshake_timeout);
  if (!tls_) {
    begin();
    return;
  }
  auto side = accepted_ ? boost::asio::ssl::stream_base::server
                        : boost::asio::ssl::stream_base::client;
  tls_->async_handshake(side, [self = shared_from_this()](const boost::system::error_code& ec) {
    if (self->closed_io_)
      return;
    if (ec) {
      auto err = make_error(errc::cannot_connect_to_node,
                            "the TLS handshake with " + self->endpoint_name_
                              + " failed: " + ec.message());
      TROUPE_LOG_WARNING("net", "closing the connection to {}: {}", self->endpoint_name_,
                         err.context());
      self->close(err);
      return;
    }
    {
      std::lock_guard guard{self->out_mtx_};
      self->writable_ = true;
    }
    self->begin();
  });
}

void peer::begin() {
  {
    std::lock_guard guard{out_mtx_};
    flush_locked();
  }
  start_read();
}

void peer::arm_timer(clock::duration delay) {
  timer_.expires_after(delay);
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec)
      self->on_timer();
  });
}

void peer::on_timer() {
  if (closed_io_)
    return;
  if (!is_up()) {
    close(make_error(errc::cannot_connect_to_node,
                     "the handshake with " + endpoint_name_ + " did not finish within "
                       + std::to_string(mm_->config().handshake_timeout.count()) + " ms"));
    return;
  }
  auto& cfg = mm_->config();
  auto now = clock::now();
  // Not reading (a receiver is full): silence says nothing of the peer.
  if (paused_for_)
    last_read_ = now;
  if (now - last_read_ > cfg.heartbeat_timeout) {
    close(lost("it sent nothing for "
               + std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  now - last_read_)
                                  .count())
               + " ms (troupe.net.heartbeat-timeout is "
               + std::to_string(cfg.heartbeat_timeout.count()) + " ms)"));
    return;
  }
  auto quiet = std::chrono::nanoseconds{now_ns() - last_write_ns_.load(std::memory_order_relaxed)};
  if (quiet >= cfg.heartbeat_interval) {
    std::lock_guard guard{out_mtx_};
    if (!closed_ && !goodbye_queued_) {
      write_empty_frame(out_, frame_kind::heartbeat);
      flush_locked();
    }
  }
  arm_timer(cfg.heartbeat_interval);
}

void peer::pause_reading() {
  // The kernel's buffers fill, then the peer's: its senders are muted.
  // Polled: a mailbox has no one to tell when it drains.
  pause_timer_.expires_after(std::chrono::milliseconds{1});
  pause_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->closed_io_)
      return;
    if (!self->paused_for_->get()->mailbox_drained()) {
      self->pause_reading();
      return;
    }
    self->paused_for_ = nullptr;
    self->last_read_ = clock::now();
    // What the buffer still holds first.
    self->on_read(0);
  });
}

void peer::start_read() {
  if (rd_end_ == rd_buf_.size()) {
    // handle_frame() grew the buffer for a large frame, or it is full of
    // a partial one: make room at the front.
    std::memmove(rd_buf_.data(), rd_buf_.data() + rd_begin_, rd_end_ - rd_begin_);
    rd_end_ -= rd_begin_;
    rd_begin_ = 0;
  }
  auto buf = asio::buffer(rd_buf_.data() + rd_end_, rd_buf_.size() - rd_end_);
  auto on_done = [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
    if (self->closed_io_)
      return;
    if (ec) {
      // A TLS peer that stops ends the TCP stream without TLS's close
      // notice, as the plain one does: both are the end of the connection.
      if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated)
        self->close(self->lost(self->closing_ ? "this node stopped" : "it closed the connection"));
      else
        self->close(self->lost("reading failed: " + ec.message()));
      return;
    }
    self->on_read(n);
  };
  if (tls_)
    tls_->async_read_some(buf, std::move(on_done));
  else
    socket_.async_read_some(buf, std::move(on_done));
}

void peer::on_read(size_t n) {
  rd_end_ += n;
  last_read_ = clock::now();
  // The I/O thread must not wait for room in a muting mailbox: every
  // connection would wait.
  troupe::detail::no_push_wait over_the_bound;
  while (rd_end_ - rd_begin_ >= frame_header_size) {
    uint32_t body_size = 0;
    frame_kind kind{};
    std::span<const std::byte, frame_header_size> header{rd_buf_.data() + rd_begin_,
                                                         frame_header_size};
    if (auto err = read_frame_header(header, max_message_size_, body_size, kind)) {
      TROUPE_LOG_WARNING("net", "closing the connection to {}: {}", remote_name(),
                         to_string(err));
      close(lost("it sent a bad frame: " + to_string(err)));
      return;
    }
    size_t total = frame_header_size + body_size;
    if (rd_end_ - rd_begin_ < total) {
      if (total > rd_buf_.size() - rd_begin_) {
        // Room for the whole frame, at the front.
        std::vector<std::byte> bigger(std::max(total, initial_read_buffer));
        std::memcpy(bigger.data(), rd_buf_.data() + rd_begin_, rd_end_ - rd_begin_);
        rd_end_ -= rd_begin_;
        rd_begin_ = 0;
        rd_buf_.swap(bigger);
      }
      break;
    }
    std::span<const std::byte> body{rd_buf_.data() + rd_begin_ + frame_header_size, body_size};
    rd_begin_ += total;
    if (!handle_frame(kind, body)) {
      mm_->dispatch();
      return;
    }
    if (paused_for_) [[unlikely]] {
      pause_reading();
      mm_->dispatch();
      return;
    }
  }
  if (rd_begin_ == rd_end_) {
    rd_begin_ = rd_end_ = 0;
    // A large frame grew the buffer; give the memory back.
    if (rd_buf_.size() > initial_read_buffer)
      std::vector<std::byte>(initial_read_buffer).swap(rd_buf_);
  }
  // The next read is asked for before the woken actors run: should one run
  // long here, the other I/O thread takes over this connection too. Nothing
  // below touches the connection.
  start_read();
  mm_->dispatch();
}

bool peer::handle_frame(frame_kind kind, std::span<const std::byte> body) {
  if (!is_up()) {
    if (kind != frame_kind::hello) {
      close(make_error(errc::incompatible_versions,
                       endpoint_name_ + " sent no hello first: not a Troupe node"));
      return false;
    }
    handle_hello(body);
    return !closed_io_;
  }
  switch (kind) {
    case frame_kind::hello:
      close(lost("it sent a second hello"));
      return false;
    case frame_kind::message:
      handle_message(body);
      return !closed_io_;
    case frame_kind::down: {
      uint64_t id = 0;
      error reason;
      if (auto err = read_down(body, id, reason)) {
        close(lost("it sent a bad down frame: " + to_string(err)));
        return false;
      }
      auto [first, last] = proxies_.equal_range(id);
      std::vector<strong_actor_ptr> dead;
      for (auto i = first; i != last; ++i)
        dead.push_back(std::move(i->second));
      proxies_.erase(first, last);
      if (last_proxy_id_ == id)
        last_proxy_ = nullptr;
      for (auto& proxy : dead)
        static_cast<actor_proxy*>(proxy->get())->kill(reason);
      return true;
    }
    case frame_kind::heartbeat:
      return true;
    case frame_kind::goodbye:
      close(lost(closing_ ? "this node stopped" : "it stopped"));
      return false;
  }
  return true;
}

void peer::handle_hello(std::span<const std::byte> body) {
  hello_frame hello;
  if (auto err = read_hello(body, hello)) {
    TROUPE_LOG_WARNING("net", "closing the connection to {}: {}", endpoint_name_, to_string(err));
    close(err);
    return;
  }
  // The peer's IDs to ours by name; what the peer knows of ours, by name.
  type_id_t max_id = 0;
  for (auto& [id, name] : hello.types)
    max_id = std::max(max_id, id);
  type_map_.assign(size_t{max_id} + 1, invalid_type_id);
  for (auto& [id, name] : hello.types) {
    auto local = query_type_id(name);
    type_map_[id] = local;
    if (local != invalid_type_id)
      peer_knows_.set(local);
  }
  remote_ = std::move(hello);
  up_.store(true, std::memory_order_release);
  TROUPE_LOG_INFO("net", "connected to node {} at {}", remote_.node.to_string(), endpoint_name_);
  timer_.cancel();
  arm_timer(mm_->config().heartbeat_interval);
  if (auto fn = std::move(on_handshake_)) {
    on_handshake_ = nullptr;
    fn(*this, error{});
  }
}

strong_actor_ptr peer::exported_actor(uint64_t id) const {
  std::lock_guard guard{out_mtx_};
  if (auto i = exports_.find(id); i != exports_.end())
    return i->second;
  return nullptr;
}

strong_actor_ptr peer::local_actor_by_id(uint64_t id) {
  {
    std::lock_guard guard{out_mtx_};
    if (auto i = exports_.find(id); i != exports_.end())
      return i->second;
  }
  return mm_->published_actor(id);
}

void peer::handle_message(std::span<const std::byte> body) {
  message_frame frame;
  error header_error;
  auto err = read_message(body, *this, type_map_, frame, header_error);
  if (header_error) {
    close(lost("it sent a bad message header: " + to_string(header_error)));
    return;
  }
  auto receiver = frame.receiver;
  message_id mid{frame.mid};
  auto& sender = frame.sender;
  auto& msg = frame.payload;
  if (err) {
    // The frame is intact, so only this message is lost: say so to its
    // sender if it waits for an answer.
    TROUPE_LOG_WARNING("net", "a message from node {} for actor#{} does not load: {}",
                       remote_name(), receiver, to_string(err));
    if (mid.is_request() && sender)
      sender->get()->enqueue(
        make_mailbox_element(nullptr, mid.response_id(),
                             make_message(error{errc::unsupported_type,
                                                "node " + mm_->this_node().to_string() + ": "
                                                  + err.context()})),
        nullptr);
    else
      mm_->system().add_dead_letter(msg, "a message from node " + remote_name()
                                           + " that does not load");
    return;
  }
  if (mid.is_response()) {
    std::lock_guard guard{out_mtx_};
    pending_.erase(pending_key(receiver, mid.request_number()));
  }
  if (receiver != last_receiver_id_ || !last_receiver_) {
    last_receiver_ = local_actor_by_id(receiver);
    last_receiver_id_ = receiver;
  }
  auto dest = last_receiver_;
  if (!dest) {
    auto why = "node " + mm_->this_node().to_string() + " has no actor#" + std::to_string(receiver)
               + " for node " + remote_name();
    if (mid.is_request() && sender) {
      sender->get()->enqueue(make_mailbox_element(nullptr, mid.response_id(),
                                                  make_message(error{errc::actor_down, why})),
                             nullptr);
      return;
    }
    mm_->system().add_dead_letter(msg, why);
    return;
  }
  auto* target = dest->get();
  // With inline receivers, whom this wakes up runs here once the whole read
  // is handled (dispatch); else a worker takes it at once.
  target->enqueue(make_mailbox_element(std::move(sender), mid, std::move(msg)),
                  mm_->config().inline_receivers ? &mm_->unit() : nullptr);
  if (target->mailbox_full()) [[unlikely]]
    paused_for_ = std::move(dest);
}

void peer::adopt_proxy(uint64_t remote_id, const strong_actor_ptr& proxy) {
  // Beside any made meanwhile (another connection to the node came up
  // first): a down frame or the end of the connection kills both.
  proxies_.emplace(remote_id, proxy);
  static_cast<actor_proxy*>(proxy->get())->attach(shared_from_this());
}

strong_actor_ptr peer::proxy_for(uint64_t remote_id) {
  if (remote_id == last_proxy_id_ && last_proxy_)
    return last_proxy_;
  if (auto i = proxies_.find(remote_id); i != proxies_.end()) {
    last_proxy_id_ = remote_id;
    last_proxy_ = i->second;
    return i->second;
  }
  auto& sys = mm_->system();
  auto ptr = troupe::detail::make_actor<actor_proxy>(troupe::detail::system_internals::next_actor_id(sys), &sys,
                                                     shared_from_this(), remote_id);
  proxies_.emplace(remote_id, ptr);
  return ptr;
}

void peer::close(const error& reason) {
  if (closed_io_)
    return;
  closed_io_ = true;
  std::unordered_map<uint64_t, pending_request> pending;
  std::unordered_map<uint64_t, strong_actor_ptr> exports;
  std::vector<strong_actor_ptr> unmuted;
  {
    std::lock_guard guard{out_mtx_};
    closed_ = true;
    close_reason_ = reason;
    pending.swap(pending_);
    exports.swap(exports_);
    last_export_ = nullptr;
    unmuted.swap(muted_);
  }
  // They send again, and their messages bounce.
  resume(std::move(unmuted));
  boost::system::error_code ec;
  socket().shutdown(tcp::socket::shutdown_both, ec);
  socket().close(ec);
  timer_.cancel();
  pause_timer_.cancel();
  paused_for_ = nullptr;
  if (is_up())
    TROUPE_LOG_INFO("net", "disconnected from node {}: {}", remote_name(), to_string(reason));
  auto proxies = std::move(proxies_);
  proxies_.clear();
  last_proxy_ = nullptr;
  last_receiver_ = nullptr;
  for (auto& [id, proxy] : proxies)
    static_cast<actor_proxy*>(proxy->get())->kill(reason);
  for (auto& [key, req] : pending)
    req.requester->get()->enqueue(
      make_mailbox_element(nullptr, req.mid.response_id(), make_message(reason)), nullptr);
  if (auto fn = std::move(on_handshake_)) {
    on_handshake_ = nullptr;
    fn(*this, reason);
  }
  mm_->remove_peer(this);
}

void peer::close_gracefully() {
  if (closed_io_)
    return;
  closing_ = true;
  std::lock_guard guard{out_mtx_};
  if (closed_ || goodbye_queued_)
    return;
  write_empty_frame(out_, frame_kind::goodbye);
  goodbye_queued_ = true;
  if (!io_writing_ && writable_) {
    // Through the I/O thread, so that its completion closes.
    io_writing_ = true;
    io_buf_.swap(out_);
    asio::post(mm_->io(), [self = shared_from_this()] { self->start_io_write(); });
  }
}

void peer::start_io_write() {
  auto on_done = [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
                      if (ec) {
                        self->fail_write(ec);
                        return;
                      }
                      self->last_write_ns_.store(now_ns(), std::memory_order_relaxed);
                      std::unique_lock guard{self->out_mtx_};
                      self->io_buf_.clear();
                      self->io_offset_ = 0;
                      if (self->closed_)
                        return;
                      if (self->out_.empty()) {
                        self->io_writing_ = false;
                        auto unmuted = self->take_unmuted_locked();
                        guard.unlock();
                        resume(std::move(unmuted));
                        if (self->closing_) {
                          // The goodbye is out. Closing now, with a heartbeat
                          // unread, would reset the connection and drop
                          // what the peer has not read yet: end the sending
                          // side and read on until the peer closes too.
                          boost::system::error_code ignored;
                          self->socket().shutdown(tcp::socket::shutdown_send, ignored);
                        }
                        return;
                      }
                      self->io_buf_.swap(self->out_);
                      auto unmuted = self->take_unmuted_locked();
                      guard.unlock();
                      resume(std::move(unmuted));
                      self->start_io_write();
                    };
  auto pending = asio::buffer(io_buf_.data() + io_offset_, io_buf_.size() - io_offset_);
  if (tls_)
    asio::async_write(*tls_, pending, std::move(on_done));
  else
    asio::async_write(socket_, pending, std::move(on_done));
}

void peer::fail_write(const boost::system::error_code& ec) {
  if (closed_io_)
    return;
  close(lost("writing failed: " + ec.message()));
}

// -- any thread -------------------------------------------------------------------

error peer::send(const mailbox_element& elem, uint64_t receiver, bool& full) {
  auto types = elem.payload.types();
  {
    std::lock_guard guard{out_mtx_};
    if (closed_)
      return close_reason_;
    if (goodbye_queued_)
      return make_error(exit_reason::remote_link_unreachable,
                        "the connection to node " + remote_.node.to_string() + " is closing");
    for (auto id : types)
      if (!peer_knows_.test(id))
        return make_error(errc::unsupported_type,
                          "node " + remote_.node.to_string() + " has no type named "
                            + std::string{query_type_name(id)});
    auto offset = begin_frame(out_, frame_kind::message);
    bool ok = false;
    bool sender_local = false;
    error err;
    {
      binary_serializer sink{out_};
      sink.set_actor_codec(this);
      binary_serializer::batch one_insert{sink};
      ok = sink.apply(receiver) && sink.apply(elem.mid.value());
      if (ok) {
        sender_local_ = false;
        ok = sink.actor_handle(elem.sender.get());
        sender_local = sender_local_;
      }
      ok = ok && sink.apply(elem.payload);
      if (!ok)
        err = sink.get_error();
      sink.buffer();
    }
    if (!ok) {
      out_.resize(offset);
      return err;
    }
    auto limit = std::min<uint64_t>(remote_.max_message_size, UINT32_MAX - 1);
    if (!finish_frame(out_, offset, static_cast<size_t>(limit)))
      return make_error(errc::invalid_argument,
                        "the message exceeds the largest frame node " + remote_.node.to_string()
                          + " accepts (" + std::to_string(remote_.max_message_size) + " bytes)");
    if (elem.mid.is_request() && sender_local)
      pending_.emplace(pending_key(elem.sender->id(), elem.mid.request_number()),
                       pending_request{elem.sender, elem.mid});
    full = pending_locked() >= send_buffer_;
    // A handler that sends much writes as it goes, so that the peer works
    // on the first messages while it sends the next.
    if (out_.size() >= eager_write_bytes)
      flush_locked();
  }
  schedule_flush();
  return {};
}

bool peer::add_muted(strong_actor_ptr sender) {
  std::lock_guard guard{out_mtx_};
  if (closed_ || pending_locked() < send_buffer_ / 2)
    return false;
  muted_.push_back(std::move(sender));
  return true;
}

size_t peer::pending_locked() const noexcept {
  return closed_ ? 0 : out_.size() + (io_writing_ ? io_buf_.size() - io_offset_ : 0);
}

size_t peer::buffered() const {
  std::lock_guard guard{out_mtx_};
  return pending_locked();
}

size_t peer::awaited_responses() const {
  std::lock_guard guard{out_mtx_};
  // A requester that terminated waits for nothing.
  return static_cast<size_t>(
    std::count_if(pending_.begin(), pending_.end(), [](const auto& kvp) {
      return kvp.second.requester && !kvp.second.requester->get()->terminated();
    }));
}

std::vector<strong_actor_ptr> peer::take_unmuted_locked() {
  std::vector<strong_actor_ptr> result;
  if (!muted_.empty() && (closed_ || pending_locked() < send_buffer_ / 2))
    result.swap(muted_);
  return result;
}

void peer::resume(std::vector<strong_actor_ptr> muted) {
  for (auto& x : muted)
    troupe::detail::resume_muted(x);
}

bool peer::send_down(uint64_t id, const error& reason) {
  {
    std::lock_guard guard{out_mtx_};
    auto i = exports_.find(id);
    if (i == exports_.end())
      return false;
    if (last_export_ == i->second.get())
      last_export_ = nullptr;
    // Released outside the lock: it may be the last reference.
    auto ref = std::move(i->second);
    exports_.erase(i);
    if (!closed_ && !goodbye_queued_)
      write_down(out_, id, reason);
  }
  schedule_flush();
  return true;
}

void peer::schedule_flush() {
  if (!troupe::detail::flushes_deferred)
    flush();
  else if (troupe::detail::last_deferred != this)
    troupe::detail::defer_flush(shared_from_this());
}

void peer::flush() noexcept {
  std::vector<strong_actor_ptr> unmuted;
  {
    std::lock_guard guard{out_mtx_};
    flush_locked();
    unmuted = take_unmuted_locked();
  }
  resume(std::move(unmuted));
}

void peer::flush_locked() noexcept {
  // After the goodbye only the I/O thread writes: the goodbye, then the end
  // of the sending side.
  if (closed_ || io_writing_ || out_.empty() || goodbye_queued_ || !writable_)
    return;
  // TLS encrypts on the I/O thread, which owns the TLS stream.
  ssize_t n = 0;
  if (!tls_)
    n = ::send(fd_, out_.data(), out_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n == static_cast<ssize_t>(out_.size())) {
    out_.clear();
    // A burst grew the buffer; let the next one start small.
    if (out_.capacity() > (size_t{4} << 20))
      byte_buffer{}.swap(out_);
    last_write_ns_.store(now_ns(), std::memory_order_relaxed);
    return;
  }
  if (n < 0) {
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      // The I/O thread sees the failure too, and closes.
      auto code = errno;
      asio::post(mm_->io(), [self = shared_from_this(), code] {
        self->fail_write(boost::system::error_code{code, boost::system::system_category()});
      });
      return;
    }
    n = 0;
  }
  io_writing_ = true;
  io_buf_.swap(out_);
  io_offset_ = static_cast<size_t>(n);
  asio::post(mm_->io(), [self = shared_from_this()] { self->start_io_write(); });
}

// -- actor_codec ------------------------------------------------------------------

bool peer::save(binary_serializer& sink, actor_control_block* x) {
  if (x == nullptr) {
    sink.apply(static_cast<uint8_t>(handle_tag::null));
    return true;
  }
  // The last actor exported is the common sender: no lookups for it.
  if (x != last_export_) {
    if (auto* proxy = dynamic_cast<actor_proxy*>(x->get())) {
      auto* owner = proxy->owner();
      if (owner == this) {
        sink.apply(static_cast<uint8_t>(handle_tag::reader_local));
        sink.apply(proxy->remote_id());
        return true;
      }
      // A third node's actor, with where this node reaches that node (a
      // port it listens on, 0 if none), so that the reader can connect.
      sink.apply(static_cast<uint8_t>(handle_tag::other_node));
      if (owner != nullptr) {
        sink.apply(owner->remote().node.bytes);
        sink.apply(proxy->remote_id());
        sink.apply(owner->remote_host_);
        sink.apply(owner->remote().listen_port);
      } else {
        auto& where = proxy->pending_target();
        sink.apply(where.node.bytes);
        sink.apply(proxy->remote_id());
        sink.apply(where.host);
        sink.apply(where.port);
      }
      return true;
    }
    // A local actor: the peer may address it from now on, until it
    // terminates (the watcher then sends a down frame).
    auto [i, added] = exports_.try_emplace(x->id());
    if (!added) {
      last_export_ = x;
    } else if (x->try_strong_ref()) {
      i->second = strong_actor_ptr{x, false};
      x->get()->add_monitor(mm_->watcher());
      last_export_ = x;
    } else {
      // Gone already: the peer gets its ID, and nothing answers there.
      exports_.erase(i);
    }
  }
  sender_local_ = true;
  sink.apply(static_cast<uint8_t>(handle_tag::writer_local));
  sink.apply(static_cast<uint64_t>(x->id()));
  return true;
}

bool peer::load(binary_deserializer& source, strong_actor_ptr& x) {
  uint8_t tag = 0;
  if (!source.apply(tag))
    return false;
  switch (static_cast<handle_tag>(tag)) {
    case handle_tag::null:
      x = nullptr;
      return true;
    case handle_tag::writer_local: {
      uint64_t id = 0;
      if (!source.apply(id))
        return false;
      x = proxy_for(id);
      return true;
    }
    case handle_tag::reader_local: {
      uint64_t id = 0;
      if (!source.apply(id))
        return false;
      x = local_actor_by_id(id);
      return true;
    }
    case handle_tag::other_node: {
      actor_proxy::target where;
      uint64_t id = 0;
      if (!source.apply(where.node.bytes) || !source.apply(id) || !source.apply(where.host)
          || !source.apply(where.port))
        return false;
      if (where.node == mm_->this_node()) {
        // Exported to another peer, which passed it on.
        x = mm_->exported_actor(id);
        return true;
      }
      // A node this one talks to as well: the handle goes there directly.
      if (auto via = mm_->find_peer(where.node)) {
        x = via->proxy_for(id);
        return true;
      }
      if (where.port != 0 && !where.host.empty()) {
        // Else this node connects to it; the proxy keeps what it is sent
        // until then.
        x = mm_->pending_proxy(std::move(where), id);
        return true;
      }
      TROUPE_LOG_WARNING("net", "node {} sent a handle of actor#{} of node {}, which listens "
                                "on no port this node could connect to: it arrives invalid "
                                "(handles do not travel through a node)",
                         remote_name(), id, to_string(where.node));
      x = nullptr;
      return true;
    }
  }
  source.set_error(make_error(errc::malformed_input,
                              "actor handle tag " + std::to_string(tag) + " is unknown"));
  return false;
}

} // namespace troupe::net::detail
