#include "service_state.hpp"

#include "../connect.hpp"
#include "../middleman_impl.hpp"
#include "../tls_context.hpp"
#include "connection.hpp"

#include "troupe/defaults.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/logger.hpp"
#include "troupe/net/middleman.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>

#include <future>

namespace troupe::net {

namespace asio = boost::asio;

// -- server -----------------------------------------------------------------------

uint16_t server::port() const noexcept {
  return state_ ? state_->port() : 0;
}

size_t server::connections() const noexcept {
  return state_ ? state_->connections() : 0;
}

void server::dispose() {
  if (state_)
    state_->dispose();
}

bool server::disposed() const noexcept {
  return !state_ || state_->disposed();
}

namespace detail {

// -- service_state ----------------------------------------------------------------

namespace {

/// Links a connection and its handler, either of which may have ended
/// already: link_to does nothing on an actor that ended, so each side
/// links to the other, and the one still alive hears of the other's end.
void link_both(abstract_actor* conn, abstract_actor* handler) {
  conn->link_to(handler);
  handler->link_to(conn);
}

/// Spawns the handler of `conn` (none without a factory), links the two and
/// starts reading; returns the handler, or the connection itself for a
/// protocol without handlers, or an invalid handle (the connection then
/// closed) if the handler did not start.
actor start_handler(const handler_factory& factory, connection_io& io,
                    const strong_actor_ptr& conn) {
  if (!factory) {
    io.run(nullptr);
    return actor{conn};
  }
  actor hdl;
  try {
    hdl = factory(actor{conn});
  } catch (...) {
    // As a handler that did not start.
  }
  auto* ctrl = troupe::detail::handle_ctrl(hdl);
  if (ctrl == nullptr) {
    io.close(make_error(errc::runtime_error, "the handler did not start"));
    return {};
  }
  link_both(conn->get(), ctrl->get());
  io.run(strong_actor_ptr{ctrl});
  return hdl;
}

} // namespace

service_state::service_state(std::shared_ptr<middleman_impl> mm, service_options opts,
                             protocol_factory protocol, handler_factory handler,
                             std::unique_ptr<asio::ssl::context> tls)
  : mm_(std::move(mm)),
    opts_(std::move(opts)),
    protocol_(std::move(protocol)),
    handler_(std::move(handler)),
    tls_(std::move(tls)),
    protocol_name_(protocol_(opts_)->name()),
    acceptor_(mm_->io()),
    retry_(mm_->io()) {}

service_state::~service_state() = default;

expected<uint16_t> service_state::listen() {
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(opts_.address, ec);
  if (ec)
    return make_error(errc::invalid_argument,
                      "accept(): \"" + opts_.address + "\" is not an IP address: " + ec.message());
  tcp::endpoint ep{addr, opts_.port};
  acceptor_.open(ep.protocol(), ec);
  if (!ec)
    acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec)
    acceptor_.bind(ep, ec);
  if (!ec)
    acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return make_error(errc::cannot_publish_invalid_actor,
                      "accept(): cannot listen on " + opts_.address + ":"
                        + std::to_string(opts_.port) + ": " + ec.message());
  port_ = acceptor_.local_endpoint().port();
  return port_;
}

std::string service_state::describe() const {
  return std::string{protocol_name_} + " on port " + std::to_string(port_);
}

void service_state::start_accept() {
  if (accepting_ || disposed() || !acceptor_.is_open()
      || connections_.load(std::memory_order_relaxed) >= opts_.max_connections)
    return;
  accepting_ = true;
  acceptor_.async_accept([self = shared_from_this()](const boost::system::error_code& ec,
                                                     tcp::socket socket) {
    self->accepting_ = false;
    if (ec) {
      if (ec == asio::error::operation_aborted || self->disposed())
        return;
      // Out of descriptors, say: the listening socket stays, and accepting
      // tries again a little later rather than at once, in a loop.
      TROUPE_LOG_WARNING("net", "{}: accepting failed: {}", self->describe(), ec.message());
      self->retry_.expires_after(std::chrono::milliseconds{100});
      self->retry_.async_wait([self](const boost::system::error_code& ec) {
        if (!ec)
          self->start_accept();
      });
      return;
    }
    self->on_accept(std::move(socket));
    self->start_accept();
  });
}

void service_state::on_accept(tcp::socket socket) {
  connections_.fetch_add(1, std::memory_order_relaxed);
  auto io = std::make_shared<connection_io>(*mm_, shared_from_this(), std::move(socket), tls_.get(),
                                            true, std::string{}, protocol_(opts_), opts_);
  io->start([self = shared_from_this(), io](strong_actor_ptr conn, const error& err) {
    if (!err)
      start_handler(self->handler_, *io, conn);
  });
}

void service_state::on_closed() {
  connections_.fetch_sub(1, std::memory_order_relaxed);
  start_accept();
}

void service_state::spawn_keeper(actor_system& sys) {
  // Its behavior holds this guard: when the actor ends, for whatever
  // reason, the guard goes and disposes the server.
  struct guard {
    std::weak_ptr<service_state> state;
    ~guard() {
      if (auto x = state.lock())
        x->dispose();
    }
  };
  auto g = std::make_shared<guard>();
  g->state = weak_from_this();
  keeper_ = sys.spawn([g](event_based_actor*) -> behavior { return {[g](close_atom) {}}; });
}

void service_state::dispose() {
  if (disposed_.exchange(true, std::memory_order_acq_rel))
    return;
  anon_send_exit(keeper_, exit_reason::user_shutdown);
  asio::post(mm_->io(), [self = shared_from_this()] {
    boost::system::error_code ec;
    self->acceptor_.close(ec);
    self->retry_.cancel();
  });
  mm_->remove_service(this);
}

// -- starting a server or a client ------------------------------------------------

namespace {

error check_options(const service_options& opts, std::string_view what) {
  auto bad = [&](std::string_view option, size_t value, std::string_view range) {
    return make_error(errc::invalid_argument, std::string{what} + ": " + std::string{option} + " "
                                                + std::to_string(value) + " is out of range "
                                                + std::string{range});
  };
  if (opts.max_message_size < 1 || opts.max_message_size > defaults::net::max_max_message_size)
    return bad("max_message_size", opts.max_message_size, "[1, 1 GiB]");
  if (opts.max_pending_messages < 1
      || opts.max_pending_messages > defaults::mailbox::max_capacity)
    return bad("max_pending_messages", opts.max_pending_messages,
               "[1, " + std::to_string(defaults::mailbox::max_capacity) + "]");
  if (opts.send_buffer < 4096)
    return bad("send_buffer", opts.send_buffer, "[4096, ...)");
  if (opts.max_connections < 1)
    return bad("max_connections", opts.max_connections, "[1, ...)");
  if (opts.write_timeout.count() < 0 || opts.idle_timeout.count() < 0)
    return make_error(errc::invalid_argument,
                      std::string{what} + ": write_timeout and idle_timeout are not negative");
  return {};
}

/// The TLS context of a server or client, or null without TLS.
expected<std::unique_ptr<asio::ssl::context>> make_context(const service_options& opts,
                                                          bool server_side) {
  if (!opts.use_tls)
    return std::unique_ptr<asio::ssl::context>{};
  auto& files = opts.tls;
  if (server_side && (files.certificate.empty() || files.private_key.empty()))
    return make_error(errc::invalid_argument,
                      "tls(): a server needs a certificate and a private_key file");
  if (files.certificate.empty() != files.private_key.empty())
    return make_error(errc::invalid_argument,
                      "tls(): certificate and private_key go together");
  auto ctx = make_tls_context(files, "tls()");
  if (!ctx)
    return ctx.error();
  if (server_side) {
    // With a CA, only clients with a certificate it signed get in.
    if (!files.ca.empty())
      (*ctx)->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  } else {
    if (files.ca.empty())
      (*ctx)->set_default_verify_paths();
    (*ctx)->set_verify_mode(asio::ssl::verify_peer);
  }
  return ctx;
}

} // namespace

expected<server> start_server(actor_system& sys, service_options opts, protocol_factory protocol,
                              handler_factory handler) {
  auto mm = middleman_access::impl(sys.middleman());
  if (auto err = check_options(opts, "accept()"))
    return err;
  if (auto err = mm->check_running("accept()"))
    return err;
  if (protocol(opts)->needs_handler() != static_cast<bool>(handler))
    return make_error(errc::invalid_argument,
                      handler ? "accept(): this protocol takes no handler: start()"
                              : "accept(): this protocol needs a handler: start(fn)");
  auto tls = make_context(opts, true);
  if (!tls)
    return tls.error();
  if (opts.address.empty())
    opts.address = mm->config().listen_address;
  auto state = std::make_shared<service_state>(mm, std::move(opts), std::move(protocol),
                                               std::move(handler), std::move(*tls));
  auto port = state->listen();
  if (!port)
    return port.error();
  mm->add_service(state);
  state->spawn_keeper(sys);
  asio::post(mm->io(), [state] { state->start_accept(); });
  TROUPE_LOG_INFO("net", "serving {}", state->describe());
  return server{state};
}

expected<actor> start_client(actor_system& sys, service_options opts, protocol_factory protocol,
                             handler_factory handler) {
  auto mm = middleman_access::impl(sys.middleman());
  auto what = "connect(" + opts.host + ":" + std::to_string(opts.port) + ")";
  if (auto err = check_options(opts, what))
    return err;
  if (auto err = mm->check_running(what))
    return err;
  if (protocol(opts)->needs_handler() != static_cast<bool>(handler))
    return make_error(errc::invalid_argument,
                      handler ? what + ": this protocol takes no handler: start()"
                              : what + ": this protocol needs a handler: start(fn)");
  auto tls = make_context(opts, false);
  if (!tls)
    return tls.error();
  using tcp = asio::ip::tcp;
  auto done = std::make_shared<std::promise<expected<actor>>>();
  auto fut = done->get_future();
  auto limit = mm->config().handshake_timeout;
  auto tls_ctx = std::shared_ptr<asio::ssl::context>{std::move(*tls)};
  asio::post(mm->io(), [mm, opts, protocol, handler, done, what, limit, tls_ctx] {
    auto fail = [done, what](std::string why) {
      done->set_value(make_error(errc::cannot_connect_to_node, what + ": " + why));
    };
    // Connecting has troupe.net.handshake-timeout, and so has the TLS
    // handshake (connection_io::start).
    connect_within(
      mm->io(), opts.host, opts.port, limit, "troupe.net.handshake-timeout", nullptr,
      [=](const error& err, tcp::socket socket) mutable {
        if (err) {
          fail(err.context());
          return;
        }
        auto io = std::make_shared<connection_io>(*mm, nullptr, std::move(socket),
                                                  tls_ctx.get(), false, opts.host,
                                                  protocol(opts), opts);
        // The connection keeps the context its TLS stream refers to.
        io->keep_alive(tls_ctx);
        io->start([=](strong_actor_ptr conn, const error& err) {
          if (err) {
            fail(err.context());
            return;
          }
          if (auto hdl = start_handler(handler, *io, conn))
            done->set_value(std::move(hdl));
          else
            fail("the handler did not start");
        });
      });
  });
  if (fut.wait_for(2 * limit) != std::future_status::ready)
    return make_error(errc::cannot_connect_to_node,
                      what + ": no connection within " + std::to_string(2 * limit.count()) + " ms");
  return fut.get();
}

} // namespace detail

} // namespace troupe::net
