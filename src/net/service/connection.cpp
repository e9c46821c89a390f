#include "connection.hpp"

#include "../../detail/system_internals.hpp"
#include "../buffer_full.hpp"
#include "../middleman_impl.hpp"
#include "../now.hpp"
#include "service_state.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/logger.hpp"
#include "troupe/system_messages.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/write.hpp>

#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <thread>

namespace troupe::net::detail {

namespace asio = boost::asio;

namespace {

constexpr size_t initial_read_buffer = 16 * 1024;

std::string endpoint_name(const asio::ip::tcp::socket& s) {
  boost::system::error_code ec;
  auto ep = s.remote_endpoint(ec);
  if (ec)
    return "an unknown peer";
  return ep.address().to_string() + ":" + std::to_string(ep.port());
}

error closed_error(std::string why) {
  return make_error(errc::connection_closed, std::move(why));
}

} // namespace

// -- connection -------------------------------------------------------------------

connection::connection(actor_config& cfg, std::shared_ptr<connection_io> io) noexcept
  : abstract_actor(cfg), io_(std::move(io)) {}

void connection::enqueue(mailbox_element_ptr elem, execution_unit* ctx) {
  if (terminated()) {
    bounce(std::move(elem), fail_state(), system(), ctx);
    return;
  }
  auto& msg = elem->payload;
  if (elem->mid.is_system() || msg.match_elements<close_atom>()) {
    // The handler ended (its link), or someone asked: what is queued goes
    // out, then the connection closes.
    if (msg.match_elements<exit_msg>()) {
      auto& x = msg.get_as<exit_msg>(0);
      io_->close_gracefully(x.reason.code() != 0 ? x.reason
                                                 : closed_error("its handler ended"));
    } else if (msg.match_elements<close_atom>()) {
      io_->close_gracefully(closed_error("closed by request"));
    }
    return;
  }
  bool full = false;
  if (auto err = io_->send(*elem, full)) {
    if (err != errc::connection_closed)
      TROUPE_LOG_WARNING("net", "not written to {}: {}", io_->peer_name(), to_string(err));
    bounce(std::move(elem), err, system(), ctx);
    return;
  }
  if (elem->mid.is_request() && elem->sender && !io_->answers_requests())
    elem->sender->get()->enqueue(make_mailbox_element(strong_actor_ptr{ctrl()},
                                                      elem->mid.response_id(), make_message()),
                                 ctx);
  if (full) [[unlikely]]
    on_buffer_full(*this, [this] { return io_->buffered() < io_->send_buffer() / 2; });
}

std::string connection::wait_report() const {
  return "connection to " + io_->peer_name();
}

bool connection::add_muted(strong_actor_ptr sender) {
  return io_->add_muted(std::move(sender));
}

void connection::on_cleanup(const error&, execution_unit*) {
  // The connection_io closed first (it is what kills this actor).
}

// -- connection_io: I/O thread ----------------------------------------------------

connection_io::connection_io(middleman_impl& mm, std::shared_ptr<service_state> service,
                             tcp::socket socket, asio::ssl::context* tls, bool server_side,
                             std::string host, std::unique_ptr<protocol> proto,
                             const service_options& opts)
  : mm_(mm.shared_from_this()),
    service_(std::move(service)),
    opts_(opts),
    fd_(socket.native_handle()),
    peer_name_(endpoint_name(socket)),
    socket_(mm.io()),
    server_side_(server_side),
    proto_(std::move(proto)),
    write_timer_(mm.io()),
    idle_timer_(mm.io()),
    pause_timer_(mm.io()),
    rd_buf_(initial_read_buffer) {
  boost::system::error_code ec;
  socket.set_option(tcp::no_delay(true), ec);
  if (tls) {
    tls_ = std::make_unique<tls_stream>(std::move(socket), *tls);
    writable_ = false;
    if (!server_side) {
      // The server's certificate must name the host we asked for.
      tls_->set_verify_callback(asio::ssl::host_name_verification(host));
      SSL_set_tlsext_host_name(tls_->native_handle(), host.c_str());
    }
  } else {
    socket_ = std::move(socket);
  }
}

connection_io::~connection_io() = default;

void connection_io::start(std::function<void(strong_actor_ptr conn, const error& err)> on_ready) {
  auto& sys = mm_->system();
  self_ = troupe::detail::make_actor<connection>(
    troupe::detail::system_internals::next_actor_id(sys), &sys, shared_from_this());
  mm_->add_connection(shared_from_this());
  last_read_ = clock::now();
  last_write_ns_.store(now_ns(), std::memory_order_relaxed);
  if (!tls_) {
    on_ready(self_, {});
    return;
  }
  // A peer that connects and never finishes the handshake must not hold a
  // connection slot: the handshake has troupe.net.handshake-timeout.
  write_timer_.expires_after(mm_->config().handshake_timeout);
  write_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->closed_io_ || self->writable_)
      return;
    self->fail("the TLS handshake did not finish within "
               + std::to_string(self->mm_->config().handshake_timeout.count()) + " ms");
  });
  auto side = server_side_ ? asio::ssl::stream_base::server : asio::ssl::stream_base::client;
  tls_->async_handshake(side, [self = shared_from_this(), on_ready = std::move(on_ready)](
                                const boost::system::error_code& ec) {
    if (self->closed_io_) {
      on_ready(nullptr, self->close_reason_);
      return;
    }
    if (ec) {
      auto why = "the TLS handshake failed: " + ec.message();
      self->fail(why);
      on_ready(nullptr, closed_error(why));
      return;
    }
    self->write_timer_.cancel();
    {
      std::lock_guard guard{self->out_mtx_};
      self->writable_ = true;
      self->flush_locked();
    }
    on_ready(self->self_, {});
  });
}

void connection_io::run(strong_actor_ptr handler) {
  if (closed_io_) {
    // Closed before the handler came: it hears of it through the link.
    return;
  }
  handler_ = std::move(handler);
  arm_idle_timer();
  start_read();
}

void connection_io::start_read() {
  if (rd_end_ == rd_buf_.size()) {
    if (rd_begin_ > 0) {
      // Room at the front.
      std::memmove(rd_buf_.data(), rd_buf_.data() + rd_begin_, rd_end_ - rd_begin_);
      rd_end_ -= rd_begin_;
      rd_begin_ = 0;
    } else {
      // A unit larger than the buffer: grow, up to the largest unit.
      rd_buf_.resize(std::min(std::max(2 * rd_buf_.size(), initial_read_buffer),
                              std::max(proto_->max_unit_size(), rd_buf_.size() + 1)));
    }
  }
  auto buf = asio::buffer(rd_buf_.data() + rd_end_, rd_buf_.size() - rd_end_);
  auto on_done = [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
    if (self->closed_io_)
      return;
    if (ec) {
      // A TLS peer that stops ends the TCP stream without TLS's close
      // notice, as a plain one does: both are the end of the connection.
      if (ec == asio::error::eof || ec == asio::ssl::error::stream_truncated)
        self->on_eof();
      else
        self->close(closed_error("reading failed: " + ec.message()));
      return;
    }
    self->on_read(n);
  };
  if (tls_)
    tls_->async_read_some(buf, std::move(on_done));
  else
    socket_.async_read_some(buf, std::move(on_done));
}

void connection_io::on_read(size_t n) {
  rd_end_ += n;
  last_read_ = clock::now();
  {
    std::lock_guard guard{out_mtx_};
    // Closing: what the peer sends now is read and dropped, until it
    // closes too; only answers still owed to requesters are read.
    if (closing_ && !(proto_->answers_requests() && proto_->backlog() > 0)) {
      rd_begin_ = rd_end_ = 0;
      start_read();
      return;
    }
  }
  auto took = proto_->consume({rd_buf_.data() + rd_begin_, rd_end_ - rd_begin_}, self_, inbox_);
  if (!took) {
    inbox_.clear();
    fail("it sent bad input (" + std::string{proto_->name()} + "): " + took.error().context());
    return;
  }
  rd_begin_ += *took;
  if (rd_begin_ == rd_end_) {
    rd_begin_ = rd_end_ = 0;
    // A large unit grew the buffer; give the memory back.
    if (rd_buf_.size() > initial_read_buffer)
      byte_buffer(initial_read_buffer).swap(rd_buf_);
  }
  if (!deliver())
    return;
  if (must_pause()) [[unlikely]] {
    pause_reading();
    mm_->dispatch();
    return;
  }
  // The next read is asked for before the woken actors run: should one run
  // long here, the other I/O thread takes over this connection too. Nothing
  // below touches the connection.
  start_read();
  mm_->dispatch();
}

bool connection_io::deliver() {
  if (inbox_.empty())
    return true;
  // The I/O thread must not wait for room in a muting mailbox: every
  // connection would wait.
  troupe::detail::no_push_wait over_the_bound;
  auto* unit = mm_->config().inline_receivers ? &mm_->unit() : nullptr;
  for (auto& x : inbox_) {
    auto& dest = x.dest ? x.dest : handler_;
    if (!dest)
      continue;
    // The end of the stream is a system message in the normal queue.
    dest->get()->enqueue(make_mailbox_element(self_, x.mid, std::move(x.msg)),
                         dest == self_ ? nullptr : unit);
  }
  inbox_.clear();
  return !closed_io_;
}

bool connection_io::must_pause() {
  if (handler_)
    return handler_->get()->mailbox_full();
  std::lock_guard guard{out_mtx_};
  return proto_->backlog() >= opts_.max_pending_messages;
}

void connection_io::pause_reading() {
  // Polled: a mailbox has no one to tell when it drains. The kernel's
  // buffers fill meanwhile, then the peer's: it is slowed down.
  pause_timer_.expires_after(std::chrono::milliseconds{1});
  pause_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->closed_io_)
      return;
    bool drained = false;
    if (self->handler_) {
      drained = self->handler_->get()->mailbox_drained();
    } else {
      std::lock_guard guard{self->out_mtx_};
      drained = self->proto_->backlog() < std::max<size_t>(self->opts_.max_pending_messages / 2, 1);
    }
    if (!drained) {
      // Not reading: the peer's silence is not its own.
      self->last_read_ = clock::now();
      self->pause_reading();
      return;
    }
    self->last_read_ = clock::now();
    self->start_read();
  });
}

void connection_io::on_eof() {
  std::vector<delivery> rest;
  auto finished = proto_->finish({rd_buf_.data() + rd_begin_, rd_end_ - rd_begin_}, rest);
  bool closing = false;
  bool writing = false;
  {
    std::lock_guard guard{out_mtx_};
    eof_ = true;
    closing = closing_;
    writing = io_writing_ || !out_.empty();
  }
  if (closing) {
    // What is still going out goes out; finish_graceful_locked() then
    // closes, seeing eof_.
    if (!writing)
      close(close_reason_);
    mm_->dispatch();
    return;
  }
  if (finished) {
    fail("the peer closed the connection: " + finished.context());
    return;
  }
  inbox_ = std::move(rest);
  if (!handler_) {
    // Answers still owed go out first (a client may half-close after its
    // last request).
    deliver();
    std::unique_lock guard{out_mtx_};
    if (proto_->backlog() > 0) {
      peer_done_ = true;
    } else if (writing) {
      close_gracefully_locked(closed_error("the peer closed the connection"));
    } else {
      guard.unlock();
      close(closed_error("the peer closed the connection"));
    }
    mm_->dispatch();
    return;
  }
  // The peer sent all it will; it may still read. The handler hears of it
  // after what was read before (the exit_msg of a link would overtake
  // that), and the connection writes on until the handler ends.
  inbox_.push_back({nullptr, message_id::make_system(),
                    make_message(exit_msg{self_->get()->address(),
                                          closed_error("the peer closed the connection")})});
  deliver();
  mm_->dispatch();
}

void connection_io::fail(std::string why) {
  TROUPE_LOG_WARNING("net", "closing the connection with {}: {}", peer_name_, why);
  close(closed_error(std::move(why)));
}

void connection_io::close(const error& reason) {
  if (closed_io_)
    return;
  closed_io_ = true;
  std::vector<strong_actor_ptr> unmuted;
  {
    std::lock_guard guard{out_mtx_};
    closed_ = true;
    if (!close_reason_)
      close_reason_ = reason;
    unmuted.swap(muted_);
  }
  // They write again, and their messages bounce.
  resume(std::move(unmuted));
  boost::system::error_code ec;
  socket().shutdown(tcp::socket::shutdown_both, ec);
  socket().close(ec);
  write_timer_.cancel();
  idle_timer_.cancel();
  pause_timer_.cancel();
  TROUPE_LOG_DEBUG("net", "connection with {} closed: {}", peer_name_, to_string(reason));
  // Whoever still waits for an answer gets the reason instead.
  inbox_.clear();
  proto_->on_close(close_reason_, inbox_);
  for (auto& x : inbox_)
    if (x.dest)
      x.dest->get()->enqueue(make_mailbox_element(nullptr, x.mid, std::move(x.msg)), nullptr);
  inbox_.clear();
  // The actor ends: its handler (linked) and its monitors hear why.
  if (auto self = std::move(self_))
    static_cast<connection*>(self->get())->kill(close_reason_);
  handler_ = nullptr;
  if (service_)
    service_->on_closed();
  mm_->remove_connection(this);
}

void connection_io::arm_idle_timer() {
  if (opts_.idle_timeout.count() == 0 || idle_timer_armed_ || closed_io_)
    return;
  idle_timer_armed_ = true;
  idle_timer_.expires_after(opts_.idle_timeout);
  idle_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    self->idle_timer_armed_ = false;
    if (ec || self->closed_io_)
      return;
    auto last_write = clock::time_point{std::chrono::nanoseconds{
      self->last_write_ns_.load(std::memory_order_relaxed)}};
    auto last = std::max(self->last_read_, last_write);
    if (clock::now() - last >= self->opts_.idle_timeout) {
      self->fail("nothing was read or written for "
                 + std::to_string(self->opts_.idle_timeout.count()) + " ms (idle_timeout)");
      return;
    }
    self->arm_idle_timer();
  });
}

void connection_io::arm_write_timer() {
  if (opts_.write_timeout.count() == 0 || write_timer_armed_ || closed_io_)
    return;
  write_timer_armed_ = true;
  write_timer_.expires_after(opts_.write_timeout);
  write_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    self->write_timer_armed_ = false;
    if (ec || self->closed_io_)
      return;
    bool writing = false;
    {
      std::lock_guard guard{self->out_mtx_};
      writing = self->io_writing_;
    }
    if (!writing)
      return;
    auto quiet = std::chrono::nanoseconds{
      now_ns() - self->last_write_ns_.load(std::memory_order_relaxed)};
    if (quiet >= self->opts_.write_timeout) {
      self->fail("it took nothing of " + std::to_string(self->buffered())
                 + " bytes for " + std::to_string(self->opts_.write_timeout.count())
                 + " ms: it stopped reading (write_timeout)");
      return;
    }
    self->arm_write_timer();
  });
}

void connection_io::start_io_write() {
  arm_write_timer();
  auto on_done = [self = shared_from_this()](const boost::system::error_code& ec, size_t n) {
    if (ec) {
      if (!self->closed_io_)
        self->close(closed_error("writing failed: " + ec.message()));
      return;
    }
    self->last_write_ns_.store(now_ns(), std::memory_order_relaxed);
    std::unique_lock guard{self->out_mtx_};
    self->io_offset_ += n;
    if (self->closed_)
      return;
    if (self->io_offset_ < self->io_buf_.size()) {
      // Some progress: the write timeout starts over.
      guard.unlock();
      self->start_io_write();
      return;
    }
    self->io_buf_.clear();
    self->io_offset_ = 0;
    if (self->out_.empty()) {
      self->io_writing_ = false;
      auto unmuted = self->take_unmuted_locked();
      if (self->closing_)
        self->finish_graceful_locked();
      guard.unlock();
      resume(std::move(unmuted));
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
    tls_->async_write_some(pending, std::move(on_done));
  else
    socket_.async_write_some(pending, std::move(on_done));
}

void connection_io::finish_graceful_locked() {
  // Everything is out: end the sending side, and read on (dropping what
  // comes) until the peer closes too. Closing now, with bytes unread,
  // would reset the connection and could lose what it has not read yet.
  // Under TLS without a close notice: sending one would need the TLS
  // stream while a read is pending on it. Both sides treat the end of the
  // TCP stream as the end of the connection.
  boost::system::error_code ignored;
  socket().shutdown(tcp::socket::shutdown_send, ignored);
  if (eof_) {
    // The peer is done too.
    auto self = shared_from_this();
    asio::post(mm_->io(), [self] {
      if (!self->closed_io_)
        self->close(self->close_reason_);
    });
    return;
  }
  // A peer that never closes its side: it gets the write timeout (or, if
  // none, the handshake timeout) to do so.
  auto limit = opts_.write_timeout.count() > 0 ? opts_.write_timeout
                                                : mm_->config().handshake_timeout;
  idle_timer_.cancel();
  idle_timer_armed_ = true;
  idle_timer_.expires_after(limit);
  idle_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (!ec && !self->closed_io_)
      self->close(self->close_reason_);
  });
}

// -- connection_io: any thread ----------------------------------------------------

error connection_io::send(const mailbox_element& elem, bool& full) {
  {
    std::lock_guard guard{out_mtx_};
    if (closed_)
      return close_reason_;
    if (closing_)
      return closed_error("the connection with " + peer_name_ + " is closing");
    auto before = out_.size();
    bool close_after = false;
    if (auto err = proto_->encode(elem, out_, close_after)) {
      out_.resize(before);
      return err;
    }
    full = pending_locked() >= opts_.send_buffer;
    if (full && opts_.when_full == when_full::disconnect) {
      // Nobody waits for a slow peer: it is dropped instead.
      full = false;
      auto why = "it fell " + std::to_string(pending_locked())
                 + " bytes behind (send_buffer; when_full is disconnect)";
      closing_ = true;
      close_reason_ = closed_error(why);
      asio::post(mm_->io(), [self = shared_from_this(), why] {
        if (!self->closed_io_)
          self->fail(why);
      });
      return {};
    }
    if (close_after)
      close_gracefully_locked(closed_error("the protocol closed it"));
    else if (peer_done_ && proto_->backlog() == 0)
      close_gracefully_locked(closed_error("the peer closed the connection"));
    if (closing_)
      return {};
  }
  schedule_flush();
  return {};
}

void connection_io::close_gracefully(error reason) {
  std::lock_guard guard{out_mtx_};
  close_gracefully_locked(std::move(reason));
}

void connection_io::close_gracefully_locked(error reason) {
  if (closed_ || closing_)
    return;
  closing_ = true;
  close_reason_ = std::move(reason);
  if (io_writing_)
    return; // start_io_write's completion finishes.
  // Through the I/O thread, which owns the socket's end.
  io_writing_ = true;
  io_buf_.swap(out_);
  io_offset_ = 0;
  asio::post(mm_->io(), [self = shared_from_this()] {
    if (self->closed_io_)
      return;
    std::unique_lock guard{self->out_mtx_};
    if (self->io_buf_.empty() && self->out_.empty()) {
      self->io_writing_ = false;
      self->finish_graceful_locked();
      return;
    }
    guard.unlock();
    self->start_io_write();
  });
}

bool connection_io::add_muted(strong_actor_ptr sender) {
  std::lock_guard guard{out_mtx_};
  if (closed_ || pending_locked() < opts_.send_buffer / 2)
    return false;
  muted_.push_back(std::move(sender));
  return true;
}

size_t connection_io::pending_locked() const noexcept {
  return closed_ ? 0 : out_.size() + (io_writing_ ? io_buf_.size() - io_offset_ : 0);
}

size_t connection_io::buffered() const {
  std::lock_guard guard{out_mtx_};
  return pending_locked();
}

std::vector<strong_actor_ptr> connection_io::take_unmuted_locked() {
  std::vector<strong_actor_ptr> result;
  if (!muted_.empty() && (closed_ || pending_locked() < opts_.send_buffer / 2))
    result.swap(muted_);
  return result;
}

void connection_io::resume(std::vector<strong_actor_ptr> muted) {
  for (auto& x : muted)
    troupe::detail::resume_muted(x);
}

void connection_io::schedule_flush() {
  if (!troupe::detail::flushes_deferred)
    flush();
  else if (troupe::detail::last_deferred != this)
    troupe::detail::defer_flush(shared_from_this());
}

void connection_io::flush() noexcept {
  std::vector<strong_actor_ptr> unmuted;
  {
    std::lock_guard guard{out_mtx_};
    flush_locked();
    unmuted = take_unmuted_locked();
  }
  resume(std::move(unmuted));
}

void connection_io::flush_locked() noexcept {
  if (closed_ || io_writing_ || out_.empty() || !writable_)
    return;
  // TLS encrypts on the I/O thread, which owns the TLS stream.
  ssize_t n = 0;
  if (!tls_)
    n = ::send(fd_, out_.data(), out_.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  if (n == static_cast<ssize_t>(out_.size())) {
    out_.clear();
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
        if (!self->closed_io_)
          self->close(closed_error("writing failed: " + std::string{std::strerror(code)}));
      });
      return;
    }
    n = 0;
  } else if (n > 0) {
    last_write_ns_.store(now_ns(), std::memory_order_relaxed);
  }
  io_writing_ = true;
  io_buf_.swap(out_);
  io_offset_ = static_cast<size_t>(n);
  asio::post(mm_->io(), [self = shared_from_this()] {
    if (!self->closed_io_)
      self->start_io_write();
  });
}

} // namespace troupe::net::detail
