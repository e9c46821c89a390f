#include "troupe/net/middleman.hpp"

#include "../detail/system_internals.hpp"

#include "connect.hpp"
#include "middleman_impl.hpp"
#include "peer.hpp"
#include "service/connection.hpp"
#include "service/service_state.hpp"
#include "tls_context.hpp"

#include "troupe/type_id.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/logger.hpp"
#include "troupe/system_messages.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <future>
#include <stdexcept>

namespace troupe {

net::middleman& actor_system::middleman() {
  auto* m = module(net::middleman::module_name);
  if (m == nullptr)
    throw std::logic_error("troupe: sys.middleman() needs the network layer loaded: "
                           "cfg.load<troupe::net::middleman>() before the actor system starts");
  return *static_cast<net::middleman*>(m);
}

} // namespace troupe

namespace troupe::net {

namespace asio = boost::asio;

// -- middleman --------------------------------------------------------------------

middleman::middleman(actor_system& sys)
  : sys_(sys), impl_(std::make_shared<detail::middleman_impl>(sys)) {}

middleman::~middleman() = default;

void middleman::start() {
  impl_->start();
}

void middleman::stop() noexcept {
  impl_->stop();
}

std::vector<std::string> middleman::activity() const {
  return impl_->activity();
}

expected<void> middleman::unpublish(uint16_t port) {
  return impl_->unpublish(port);
}

const node_id& middleman::this_node() const {
  return impl_->this_node();
}

expected<uint16_t> middleman::open(uint16_t port, std::string address) {
  return impl_->publish(nullptr, {}, port, std::move(address));
}

expected<node_id> middleman::connect(std::string host, uint16_t port) {
  return impl_->connect(std::move(host), port);
}

expected<strong_actor_ptr> middleman::remote_lookup_impl(std::vector<std::string> interface,
                                                         std::string name, const node_id& node) {
  return impl_->remote_lookup(std::move(interface), std::move(name), node);
}

expected<strong_actor_ptr> middleman::remote_spawn_impl(std::vector<std::string> interface,
                                                        const node_id& node, std::string name,
                                                        message args) {
  return impl_->remote_spawn(std::move(interface), node, std::move(name), std::move(args));
}

size_t middleman::connected_nodes() const {
  return impl_->connected_nodes();
}

size_t middleman::buffered_bytes() const {
  return impl_->buffered_bytes();
}

expected<uint16_t> middleman::publish_impl(strong_actor_ptr hdl,
                                           std::vector<std::string> interface, uint16_t port,
                                           std::string address) {
  if (!hdl)
    return make_error(errc::cannot_publish_invalid_actor, "publish() of an invalid handle");
  return impl_->publish(std::move(hdl), std::move(interface), port, std::move(address));
}

expected<strong_actor_ptr> middleman::remote_actor_impl(std::vector<std::string> interface,
                                                        std::string host, uint16_t port) {
  return impl_->remote_actor(std::move(interface), std::move(host), port);
}

} // namespace troupe::net

namespace troupe::net::detail {

namespace {

/// Takes `x`'s entry out of `xs` (null if it has none); the caller lets go
/// of it outside its lock, as it may be the last reference.
template <class T>
std::shared_ptr<T> take(std::vector<std::shared_ptr<T>>& xs, const T* x) {
  auto i = std::find_if(xs.begin(), xs.end(), [x](auto& y) { return y.get() == x; });
  if (i == xs.end())
    return nullptr;
  auto result = std::move(*i);
  xs.erase(i);
  return result;
}

std::string join(const std::vector<std::string>& xs) {
  std::string result = "{";
  for (auto& x : xs)
    result += (result.size() > 1 ? ", " : "") + x;
  return result + "}";
}

/// The error of a handle type that expects `expected` of `actor_name`,
/// which offers `offered`.
error interface_mismatch(std::string_view what, const std::vector<std::string>& expected,
                         const std::string& actor_name, const std::vector<std::string>& offered) {
  return make_error(errc::unexpected_actor_messaging_interface,
                    std::string{what} + ": the handle expects " + join(expected) + ", "
                      + actor_name
                      + (offered.empty() ? " is dynamically typed" : " offers " + join(offered)));
}

} // namespace

middleman_impl::middleman_impl(actor_system& sys)
  : sys_(sys), cfg_(sys.config().net), node_(node_id::make()) {}

middleman_impl::~middleman_impl() {
  stop();
}

void middleman_impl::load_tls() {
  auto& tls = cfg_.tls;
  int given = !tls.certificate.empty() + !tls.private_key.empty() + !tls.ca.empty();
  if (given == 0)
    return;
  if (given != 3) {
    tls_error_ = make_error(errc::invalid_argument,
                            "troupe.net.tls.certificate, private-key and ca go together: "
                            "give all three or none");
    TROUPE_LOG_ERROR("net", "{}", tls_error_.context());
    return;
  }
  auto ctx = make_tls_context(tls, "troupe.net.tls");
  if (!ctx) {
    tls_error_ = ctx.error();
    TROUPE_LOG_ERROR("net", "{}", tls_error_.context());
    return;
  }
  // Mutual: a peer without a certificate from the CA is refused.
  (*ctx)->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
  tls_ = std::move(*ctx);
}

error middleman_impl::check_address(const asio::ip::address& addr, std::string_view what) const {
  if (tls_error_)
    return tls_error_;
  if (addr.is_loopback() || tls_ || cfg_.insecure)
    return {};
  return make_error(errc::invalid_argument,
                    std::string{what} + ": " + addr.to_string()
                      + " is not loopback, and without TLS anyone who reaches it could talk "
                        "to this node's actors: set troupe.net.tls.certificate, private-key "
                        "and ca (or troupe.net.insecure)");
}

void middleman_impl::start() {
  types_ = local_type_table();
  load_tls();
  if (cfg_.insecure && !tls_)
    TROUPE_LOG_WARNING("net", "troupe.net.insecure: this node listens beyond loopback and "
                              "connects off it without TLS; whoever reaches its ports can "
                              "send to its published actors");
  if (cfg_.heartbeat_timeout < 2 * cfg_.heartbeat_interval)
    TROUPE_LOG_WARNING("net",
                       "troupe.net.heartbeat-timeout ({} ms) is under twice "
                       "troupe.net.heartbeat-interval ({} ms): a peer that is only slow may "
                       "count as lost",
                       cfg_.heartbeat_timeout.count(), cfg_.heartbeat_interval.count());
  // The watcher holds the state weakly: it may run once more after stop().
  std::weak_ptr<middleman_impl> weak = weak_from_this();
  watcher_ = sys_.spawn<hidden>([weak](event_based_actor* self) {
    self->set_down_handler([weak](down_msg& msg) {
      if (auto impl = weak.lock())
        impl->on_exported_down(msg.source.id(), msg.reason);
    });
    return behavior{[](const exit_msg&) {}};
  });
  watcher_addr_ = watcher_.address();
  service_ = sys_.spawn<hidden>([](event_based_actor* self) {
    using answer = result<actor, std::vector<std::string>>;
    auto reply = [self](expected<spawned_actor> x) -> answer {
      if (!x)
        return error{x.error().code(), x.error().category(),
                     "node " + self->system().middleman().this_node().to_string() + ": "
                       + x.error().context()};
      return {actor{std::move(x->hdl)}, std::move(x->interface)};
    };
    return behavior{
      [self, reply](get_atom, const std::string& name) {
        return reply(lookup_here(self->system(), name));
      },
      [self, reply](spawn_atom, const std::string& name, const message& args) {
        return reply(spawn_here(self->system(), name, args));
      },
    };
  });
  work_.emplace(io_.get_executor());
  io_runner::settings settings;
  settings.inline_receivers = cfg_.inline_receivers;
  settings.inline_limit = cfg_.inline_limit;
  settings.quiet_tick = cfg_.heartbeat_interval;
  settings.connected = [this] {
    std::lock_guard guard{mtx_};
    return !peers_.empty() || !connections_.empty();
  };
  runner_ = std::make_unique<io_runner>(io_, sys_.scheduler(), sys_.max_throughput(),
                                        std::move(settings));
  runner_->start();
}

void middleman_impl::stop() noexcept {
  {
    std::lock_guard guard{mtx_};
    if (stopped_ || !runner_)
      return;
    stopped_ = true;
  }
  // Every peer gets what was queued for it, then a goodbye; so does every
  // service's connection.
  std::vector<std::shared_ptr<service_state>> services;
  {
    std::lock_guard guard{mtx_};
    services = services_;
  }
  for (auto& x : services)
    x->dispose();
  asio::post(io_, [this] {
    std::vector<std::shared_ptr<connection_io>> conns;
    {
      std::lock_guard guard{mtx_};
      for (auto& [port, entry] : published_) {
        boost::system::error_code ec;
        entry.acceptor->close(ec);
      }
      published_.clear();
      conns = connections_;
    }
    for (auto& p : peers_now())
      p->close_gracefully();
    for (auto& c : conns)
      c->close_gracefully(make_error(errc::connection_closed, "the network layer stopped"));
  });
  {
    std::unique_lock guard{mtx_};
    peers_cv_.wait_for(guard, cfg_.handshake_timeout,
                       [this] { return peers_.empty() && connections_.empty(); });
  }
  // What did not say goodbye in time is cut off.
  asio::post(io_, [this] {
    for (auto& p : peers_now())
      p->close(make_error(exit_reason::remote_link_unreachable, "this node stopped"));
    std::vector<std::shared_ptr<connection_io>> conns;
    {
      std::lock_guard guard{mtx_};
      conns = connections_;
    }
    for (auto& c : conns)
      c->close(make_error(errc::connection_closed, "the network layer stopped"));
  });
  work_.reset();
  runner_->join();
  anon_send_exit(watcher_, exit_reason::user_shutdown);
  watcher_ = nullptr;
  anon_send_exit(service_, exit_reason::user_shutdown);
  service_ = nullptr;
}

expected<uint16_t> middleman_impl::publish(strong_actor_ptr hdl,
                                           std::vector<std::string> interface, uint16_t port,
                                           std::string address) {
  if (address.empty())
    address = cfg_.listen_address;
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(address, ec);
  if (ec)
    return make_error(errc::invalid_argument,
                      "publish(): \"" + address + "\" is not an IP address: " + ec.message());
  if (auto err = check_address(addr, "publish()"))
    return err;
  auto acceptor = std::make_shared<tcp::acceptor>(io_);
  tcp::endpoint ep{addr, port};
  acceptor->open(ep.protocol(), ec);
  if (!ec)
    acceptor->set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec)
    acceptor->bind(ep, ec);
  if (!ec)
    acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return make_error(errc::cannot_publish_invalid_actor,
                      "publish(): cannot listen on " + address + ":" + std::to_string(port) + ": "
                        + ec.message());
  auto actual = acceptor->local_endpoint().port();
  {
    std::lock_guard guard{mtx_};
    if (stopped_)
      return make_error(errc::system_shutdown, "publish(): the network layer has stopped");
    published_[actual] = published_entry{hdl, interface, acceptor};
  }
  asio::post(io_, [this, acceptor, hdl, interface]() mutable {
    accept(std::move(acceptor), std::move(hdl), std::move(interface));
  });
  if (hdl)
    TROUPE_LOG_INFO("net", "actor#{} published on {}:{}", hdl->id(), address, actual);
  else
    TROUPE_LOG_INFO("net", "listening on {}:{}", address, actual);
  return actual;
}

expected<void> middleman_impl::unpublish(uint16_t port) {
  std::shared_ptr<tcp::acceptor> acceptor;
  {
    std::lock_guard guard{mtx_};
    auto i = published_.find(port);
    if (i == published_.end())
      return make_error(errc::invalid_argument,
                        "unpublish(): nothing is published on port " + std::to_string(port));
    acceptor = std::move(i->second.acceptor);
    published_.erase(i);
  }
  std::promise<void> done;
  asio::post(io_, [&] {
    boost::system::error_code ec;
    acceptor->close(ec);
    done.set_value();
  });
  done.get_future().wait();
  return {};
}

void middleman_impl::accept(std::shared_ptr<tcp::acceptor> acceptor, strong_actor_ptr hdl,
                            std::vector<std::string> interface) {
  acceptor->async_accept([this, acceptor, hdl, interface](const boost::system::error_code& ec,
                                                          tcp::socket socket) mutable {
    if (ec) {
      if (ec != asio::error::operation_aborted)
        TROUPE_LOG_WARNING("net", "accepting a connection failed: {}", ec.message());
      if (!acceptor->is_open())
        return;
    } else {
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto p = std::make_shared<peer>(*this, std::move(socket), hdl, interface, tls(), true);
      add_peer(p);
      p->start([](peer& self, const error& err) {
        if (err)
          TROUPE_LOG_WARNING("net", "a connection from {} failed: {}", self.remote_name(),
                             to_string(err));
      });
    }
    accept(std::move(acceptor), std::move(hdl), std::move(interface));
  });
}

void middleman_impl::start_connect(std::string host, uint16_t port, connected_fn fn) {
  auto on_handshake = [this, fn](peer& p, const error& err) {
    if (err) {
      fn(nullptr, p.remote(), err);
      return;
    }
    auto& hello = p.remote();
    if (hello.node == node_) {
      // Connected to ourselves: no proxies, the actors themselves.
      fn(nullptr, hello, {});
      p.close_gracefully();
      return;
    }
    // One connection per node: a second one says goodbye at once.
    if (auto existing = find_peer(hello.node, &p)) {
      fn(existing.get(), hello, {});
      p.close_gracefully();
      return;
    }
    fn(&p, hello, {});
  };
  asio::post(io_, [this, host, port, on_handshake, fn]() mutable {
    connect_within(
      io_, host, port, cfg_.handshake_timeout, "troupe.net.handshake-timeout",
      [this](const asio::ip::address& addr) { return check_address(addr, "connecting"); },
      [this, on_handshake, fn](const error& err, tcp::socket socket) mutable {
        if (err) {
          fn(nullptr, hello_frame{}, err);
          return;
        }
        auto p = std::make_shared<peer>(*this, std::move(socket), nullptr,
                                        std::vector<std::string>{}, tls(), false);
        add_peer(p);
        p->start(std::move(on_handshake));
      });
  });
}

template <class T>
expected<T> middleman_impl::await(std::future<expected<T>>& fut, std::string_view what) {
  // The handshake has its own timeout; this one bounds resolving and
  // connecting too.
  if (fut.wait_for(2 * cfg_.handshake_timeout) != std::future_status::ready)
    return make_error(errc::cannot_connect_to_node,
                      std::string{what} + ": no connection within "
                        + std::to_string(2 * cfg_.handshake_timeout.count()) + " ms");
  return fut.get();
}

error middleman_impl::check_running(std::string_view what) const {
  std::lock_guard guard{mtx_};
  if (stopped_)
    return make_error(errc::system_shutdown, std::string{what} + ": the network layer has stopped");
  return {};
}

expected<strong_actor_ptr> middleman_impl::remote_actor(std::vector<std::string> interface,
                                                        std::string host, uint16_t port) {
  auto what = "remote_actor(" + host + ":" + std::to_string(port) + ")";
  if (auto err = check_running(what))
    return err;
  auto done = std::make_shared<std::promise<expected<strong_actor_ptr>>>();
  auto fut = done->get_future();
  start_connect(host, port, [this, done, interface, what](peer* p, const hello_frame& hello,
                                                          const error& err) {
    if (err) {
      done->set_value(make_error(errc::cannot_connect_to_node, what + ": " + to_string(err)));
      return;
    }
    if (hello.published == 0) {
      done->set_value(make_error(errc::cannot_connect_to_node,
                                 what + ": node " + hello.node.to_string()
                                   + " publishes no actor there"));
      return;
    }
    if (!troupe::detail::offers_interface(hello.interface, interface)) {
      done->set_value(interface_mismatch(what, interface,
                                         "node " + hello.node.to_string() + "'s published actor",
                                         hello.interface));
      return;
    }
    if (p == nullptr) {
      auto self = published_actor(hello.published);
      if (self)
        done->set_value(std::move(self));
      else
        done->set_value(make_error(errc::cannot_connect_to_node, what + ": no longer published"));
      return;
    }
    done->set_value(p->proxy_for(hello.published));
  });
  return await(fut, what);
}

expected<node_id> middleman_impl::connect(std::string host, uint16_t port) {
  auto what = "connect(" + host + ":" + std::to_string(port) + ")";
  if (auto err = check_running(what))
    return err;
  auto done = std::make_shared<std::promise<expected<node_id>>>();
  auto fut = done->get_future();
  start_connect(host, port, [done, what](peer*, const hello_frame& hello, const error& err) {
    if (err)
      done->set_value(make_error(errc::cannot_connect_to_node, what + ": " + to_string(err)));
    else
      done->set_value(hello.node);
  });
  return await(fut, what);
}

std::shared_ptr<peer> middleman_impl::find_peer(const node_id& node, const peer* except) const {
  std::lock_guard guard{mtx_};
  for (auto& p : peers_)
    if (p.get() != except && p->is_up() && p->remote().node == node)
      return p;
  return nullptr;
}

strong_actor_ptr middleman_impl::exported_actor(uint64_t id) const {
  if (auto hdl = published_actor(id))
    return hdl;
  for (auto& p : peers_now())
    if (auto hdl = p->exported_actor(id))
      return hdl;
  return nullptr;
}

uint16_t middleman_impl::listen_port() const {
  std::lock_guard guard{mtx_};
  return published_.empty() ? 0 : published_.begin()->first;
}

strong_actor_ptr middleman_impl::pending_proxy(actor_proxy::target where, uint64_t id) {
  auto [entry, first] = connecting_.try_emplace(where.node.bytes);
  if (auto i = entry->second.find(id); i != entry->second.end())
    return i->second;
  auto host = where.host;
  auto port = where.port;
  auto node = where.node;
  auto proxy = troupe::detail::make_actor<actor_proxy>(troupe::detail::system_internals::next_actor_id(sys_), &sys_,
                                                       std::move(where), id);
  entry->second.emplace(id, proxy);
  if (!first)
    return proxy;
  TROUPE_LOG_DEBUG("net", "connecting to node {} at {}:{}: a peer sent a handle of one of its "
                          "actors",
                   to_string(node), host, port);
  start_connect(host, port, [this, node, host, port](peer* p, const hello_frame& hello,
                                                     const error& err) {
    auto i = connecting_.find(node.bytes);
    if (i == connecting_.end())
      return;
    auto waiting = std::move(i->second);
    connecting_.erase(i);
    error why;
    if (err)
      why = make_error(errc::cannot_connect_to_node,
                       "cannot reach node " + to_string(node) + " at " + host + ":"
                         + std::to_string(port) + ": " + err.context());
    else if (!(hello.node == node) || p == nullptr)
      why = make_error(exit_reason::remote_link_unreachable,
                       "node " + to_string(node) + " is gone: " + host + ":"
                         + std::to_string(port) + " is node " + hello.node.to_string()
                         + " now");
    if (why) {
      TROUPE_LOG_WARNING("net", "{}", why.context());
      for (auto& [id, proxy] : waiting)
        static_cast<actor_proxy*>(proxy->get())->kill(why);
      return;
    }
    for (auto& [id, proxy] : waiting)
      p->adopt_proxy(id, proxy);
  });
  return proxy;
}

std::vector<std::shared_ptr<peer>> middleman_impl::peers_now() const {
  std::lock_guard guard{mtx_};
  return peers_;
}

expected<strong_actor_ptr> middleman_impl::service_of(const node_id& node, std::string_view what) {
  if (auto err = check_running(what))
    return err;
  auto p = find_peer(node);
  if (!p)
    return make_error(errc::cannot_connect_to_node,
                      std::string{what} + ": not connected to node " + node.to_string()
                        + " (connect() first)");
  // Proxies are the I/O thread's.
  std::promise<strong_actor_ptr> done;
  auto fut = done.get_future();
  asio::post(io_, [&] { done.set_value(p->proxy_for(p->remote().service)); });
  return fut.get();
}

template <class... Ts>
expected<spawned_actor> middleman_impl::ask_service(const node_id& node, std::string_view what,
                                                   Ts&&... xs) {
  auto service = service_of(node, what);
  if (!service)
    return service.error();
  scoped_actor self{sys_};
  expected<spawned_actor> result{make_error(errc::runtime_error, "no answer")};
  self->request(actor{*service}, cfg_.handshake_timeout, std::forward<Ts>(xs)...)
    .receive(
      [&](const actor& hdl, const std::vector<std::string>& interface) {
        result = spawned_actor{hdl.ptr(), interface};
      },
      [&](const error& err) {
        result = error{err.code(), err.category(), std::string{what} + ": " + err.context()};
      });
  return result;
}

expected<strong_actor_ptr> middleman_impl::remote_lookup(std::vector<std::string> interface,
                                                         std::string name, const node_id& node) {
  auto what = "remote_lookup(\"" + name + "\", " + node.to_string() + ")";
  auto found = node == node_ ? lookup_here(sys_, name) : ask_service(node, what, get_atom_v, name);
  if (!found)
    return found.error();
  if (!troupe::detail::offers_interface(found->interface, interface))
    return interface_mismatch(what, interface, "the actor", found->interface);
  return std::move(found->hdl);
}

expected<strong_actor_ptr> middleman_impl::remote_spawn(std::vector<std::string> interface,
                                                        const node_id& node, std::string name,
                                                        message args) {
  auto what = "remote_spawn(" + node.to_string() + ", \"" + name + "\")";
  auto spawned = node == node_ ? spawn_here(sys_, name, args)
                               : ask_service(node, what, spawn_atom_v, name, std::move(args));
  if (!spawned)
    return spawned.error();
  if (!troupe::detail::offers_interface(spawned->interface, interface)) {
    // Nobody else knows it: it ends with the refusal.
    anon_send_exit(actor{spawned->hdl}, exit_reason::user_shutdown);
    return interface_mismatch(what, interface, "the actor", spawned->interface);
  }
  return std::move(spawned->hdl);
}

expected<spawned_actor> middleman_impl::lookup_here(actor_system& sys, const std::string& name) {
  auto x = sys.registry().find(name);
  if (!x)
    return make_error(errc::invalid_argument, "node has no actor named '" + name + "'");
  return spawned_actor{std::move(x->hdl), std::move(x->interface)};
}

expected<spawned_actor> middleman_impl::spawn_here(actor_system& sys, const std::string& name,
                                                   const message& args) {
  auto* factory = sys.config().find_actor_factory(name);
  if (factory == nullptr)
    return make_error(errc::invalid_argument,
                      "node has no actor type named '" + name + "' (cfg.add_actor_type)");
  return (*factory)(sys, args);
}

strong_actor_ptr middleman_impl::published_actor(uint64_t id) const {
  std::lock_guard guard{mtx_};
  for (auto& [port, entry] : published_)
    if (entry.hdl && entry.hdl->id() == id)
      return entry.hdl;
  return nullptr;
}

size_t middleman_impl::connected_nodes() const {
  std::lock_guard guard{mtx_};
  // A duplicate connection, saying goodbye, is the same node.
  std::vector<const node_id*> nodes;
  for (auto& p : peers_)
    if (p->is_up()
        && std::none_of(nodes.begin(), nodes.end(),
                        [&](const node_id* n) { return *n == p->remote().node; }))
      nodes.push_back(&p->remote().node);
  return nodes.size();
}

std::vector<std::string> middleman_impl::activity() const {
  std::vector<std::string> result;
  {
    std::lock_guard guard{mtx_};
    for (auto& [port, entry] : published_) {
      if (!entry.hdl)
        result.push_back("listening on port " + std::to_string(port));
      else if (!entry.hdl->get()->terminated())
        result.push_back("listening on port " + std::to_string(port) + " for actor#"
                         + std::to_string(entry.hdl->id()));
    }
  }
  {
    std::lock_guard guard{mtx_};
    for (auto& x : services_)
      result.push_back("serving " + x->describe());
  }
  // Each peer's lock apart from ours.
  for (auto& p : peers_now())
    if (auto n = p->awaited_responses(); n > 0)
      result.push_back(std::to_string(n) + " requests awaiting a response from node "
                       + p->remote_name());
  if (auto buffered = buffered_bytes(); buffered > 0)
    result.push_back(std::to_string(buffered) + " bytes queued for peers");
  return result;
}

size_t middleman_impl::buffered_bytes() const {
  size_t total = 0;
  for (auto& p : peers_now())
    total += p->buffered();
  return total;
}

void middleman_impl::add_peer(std::shared_ptr<peer> p) {
  {
    std::lock_guard guard{mtx_};
    peers_.push_back(std::move(p));
  }
  // Actors may run inline from now on: the standby I/O thread looks out.
  runner_->wake();
}

void middleman_impl::add_service(std::shared_ptr<service_state> s) {
  std::lock_guard guard{mtx_};
  services_.push_back(std::move(s));
}

void middleman_impl::remove_service(const service_state* s) {
  std::shared_ptr<service_state> last;
  std::lock_guard guard{mtx_};
  last = take(services_, s);
}

void middleman_impl::add_connection(std::shared_ptr<connection_io> c) {
  {
    std::lock_guard guard{mtx_};
    connections_.push_back(std::move(c));
  }
  // Actors may run inline from now on: the standby I/O thread looks out.
  runner_->wake();
}

void middleman_impl::remove_connection(const connection_io* c) {
  std::shared_ptr<connection_io> last;
  {
    std::lock_guard guard{mtx_};
    last = take(connections_, c);
  }
  if (last)
    peers_cv_.notify_all();
}

void middleman_impl::remove_peer(const peer* p) {
  std::shared_ptr<peer> last;
  {
    std::lock_guard guard{mtx_};
    last = take(peers_, p);
  }
  if (last)
    peers_cv_.notify_all();
}

void middleman_impl::on_exported_down(uint64_t id, const error& reason) {
  for (auto& p : peers_now())
    p->send_down(id, reason);
}

} // namespace troupe::net::detail
