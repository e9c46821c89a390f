#include "troupe/net/middleman.hpp"

#include "middleman_impl.hpp"
#include "peer.hpp"

#include "troupe/detail/thread_name.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/logger.hpp"
#include "troupe/system_messages.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>

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

expected<void> middleman::unpublish(uint16_t port) {
  return impl_->unpublish(port);
}

std::string middleman::this_node() const {
  return impl_->this_node().to_string();
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
  return impl_->publish(std::move(hdl), std::move(interface), port, std::move(address));
}

expected<strong_actor_ptr> middleman::remote_actor_impl(std::vector<std::string> interface,
                                                        std::string host, uint16_t port) {
  return impl_->remote_actor(std::move(interface), std::move(host), port);
}

} // namespace troupe::net

namespace troupe::net::detail {

namespace {

std::string join(const std::vector<std::string>& xs) {
  std::string result = "{";
  for (auto& x : xs)
    result += (result.size() > 1 ? ", " : "") + x;
  return result + "}";
}

} // namespace

middleman_impl::middleman_impl(actor_system& sys)
  : sys_(sys), cfg_(sys.config().net), node_(node_id::make()) {}

middleman_impl::~middleman_impl() {
  stop();
}

void middleman_impl::start() {
  types_ = local_type_table();
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
  work_.emplace(io_.get_executor());
  thread_ = std::thread{[this] {
    troupe::detail::no_push_wait over_the_bound;
    io_.run();
  }};
  troupe::detail::name_thread(thread_, "troupe.net", 0);
}

void middleman_impl::stop() noexcept {
  {
    std::lock_guard guard{mtx_};
    if (stopped_ || !thread_.joinable())
      return;
    stopped_ = true;
  }
  // Every peer gets what was queued for it, then a goodbye.
  asio::post(io_, [this] {
    std::vector<std::shared_ptr<peer>> peers;
    {
      std::lock_guard guard{mtx_};
      for (auto& [port, entry] : published_) {
        boost::system::error_code ec;
        entry.acceptor->close(ec);
      }
      published_.clear();
      peers = peers_;
    }
    for (auto& p : peers)
      p->close_gracefully();
  });
  {
    std::unique_lock guard{mtx_};
    peers_cv_.wait_for(guard, cfg_.handshake_timeout, [this] { return peers_.empty(); });
  }
  // What did not say goodbye in time is cut off.
  asio::post(io_, [this] {
    std::vector<std::shared_ptr<peer>> peers;
    {
      std::lock_guard guard{mtx_};
      peers = peers_;
    }
    for (auto& p : peers)
      p->close(make_error(exit_reason::remote_link_unreachable, "this node stopped"));
  });
  work_.reset();
  thread_.join();
  anon_send_exit(watcher_, exit_reason::user_shutdown);
  watcher_ = nullptr;
}

expected<uint16_t> middleman_impl::publish(strong_actor_ptr hdl,
                                           std::vector<std::string> interface, uint16_t port,
                                           std::string address) {
  if (!hdl)
    return make_error(errc::cannot_publish_invalid_actor, "publish() of an invalid handle");
  if (address.empty())
    address = "127.0.0.1";
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(address, ec);
  if (ec)
    return make_error(errc::invalid_argument,
                      "publish(): \"" + address + "\" is not an IP address: " + ec.message());
  if (!addr.is_loopback())
    return make_error(errc::invalid_argument,
                      "publish(): listening on " + address
                        + " would let any host in; this version listens on loopback only");
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
  TROUPE_LOG_INFO("net", "actor#{} published on {}:{}", hdl->id(), address, actual);
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
      auto p = std::make_shared<peer>(*this, std::move(socket), hdl, interface);
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

expected<strong_actor_ptr> middleman_impl::remote_actor(std::vector<std::string> interface,
                                                        std::string host, uint16_t port) {
  using result_type = expected<strong_actor_ptr>;
  auto done = std::make_shared<std::promise<result_type>>();
  auto fut = done->get_future();
  {
    std::lock_guard guard{mtx_};
    if (stopped_)
      return make_error(errc::system_shutdown, "remote_actor(): the network layer has stopped");
  }
  auto target = host + ":" + std::to_string(port);
  auto resolver = std::make_shared<tcp::resolver>(io_);
  auto socket = std::make_shared<tcp::socket>(io_);
  auto on_handshake = [this, done, interface, target](peer& p, const error& err) {
    if (err) {
      done->set_value(make_error(errc::cannot_connect_to_node,
                                 "remote_actor(" + target + "): " + to_string(err)));
      return;
    }
    auto& hello = p.remote();
    if (hello.published == 0) {
      done->set_value(make_error(errc::cannot_connect_to_node,
                                 "remote_actor(" + target + "): node "
                                   + hello.node.to_string() + " publishes no actor there"));
      p.close_gracefully();
      return;
    }
    for (auto& sig : interface)
      if (std::find(hello.interface.begin(), hello.interface.end(), sig) == hello.interface.end()) {
        done->set_value(make_error(
          errc::unexpected_actor_messaging_interface,
          "remote_actor(" + target + "): the handle expects " + join(interface) + ", node "
            + hello.node.to_string() + " publishes "
            + (hello.interface.empty() ? "a dynamically typed actor" : join(hello.interface))));
        p.close_gracefully();
        return;
      }
    if (hello.node == node_) {
      // Connected to ourselves: the actor itself, not a proxy.
      auto self = published_actor(hello.published);
      p.close_gracefully();
      if (self)
        done->set_value(std::move(self));
      else
        done->set_value(make_error(errc::cannot_connect_to_node,
                                   "remote_actor(" + target + "): no longer published"));
      return;
    }
    // One connection per node: a second one says goodbye at once.
    std::shared_ptr<peer> existing;
    {
      std::lock_guard guard{mtx_};
      for (auto& q : peers_)
        if (q.get() != &p && q->is_up() && q->remote().node == hello.node) {
          existing = q;
          break;
        }
    }
    if (existing) {
      done->set_value(existing->proxy_for(hello.published));
      p.close_gracefully();
      return;
    }
    done->set_value(p.proxy_for(hello.published));
  };
  asio::post(io_, [this, resolver, socket, host, port, on_handshake, done, target]() mutable {
    resolver->async_resolve(
      host, std::to_string(port),
      [this, resolver, socket, on_handshake, done,
       target](const boost::system::error_code& ec, tcp::resolver::results_type results) mutable {
        if (ec) {
          done->set_value(make_error(errc::cannot_connect_to_node,
                                     "remote_actor(" + target + "): " + ec.message()));
          return;
        }
        asio::async_connect(
          *socket, results,
          [this, socket, on_handshake, done, target](const boost::system::error_code& ec,
                                                     const tcp::endpoint&) mutable {
            if (ec) {
              done->set_value(make_error(errc::cannot_connect_to_node,
                                         "remote_actor(" + target + "): " + ec.message()));
              return;
            }
            boost::system::error_code ignored;
            socket->set_option(tcp::no_delay(true), ignored);
            auto p = std::make_shared<peer>(*this, std::move(*socket), nullptr,
                                            std::vector<std::string>{});
            add_peer(p);
            p->start(std::move(on_handshake));
          });
      });
  });
  // The handshake has its own timeout; this one bounds resolving and
  // connecting too.
  if (fut.wait_for(2 * cfg_.handshake_timeout) != std::future_status::ready)
    return make_error(errc::cannot_connect_to_node,
                      "remote_actor(" + target + "): no connection within "
                        + std::to_string(2 * cfg_.handshake_timeout.count()) + " ms");
  return fut.get();
}

strong_actor_ptr middleman_impl::published_actor(uint64_t id) const {
  std::lock_guard guard{mtx_};
  for (auto& [port, entry] : published_)
    if (entry.hdl->id() == id)
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

size_t middleman_impl::buffered_bytes() const {
  std::lock_guard guard{mtx_};
  size_t total = 0;
  for (auto& p : peers_)
    total += p->buffered();
  return total;
}

void middleman_impl::add_peer(std::shared_ptr<peer> p) {
  std::lock_guard guard{mtx_};
  peers_.push_back(std::move(p));
}

void middleman_impl::remove_peer(const peer* p) {
  std::shared_ptr<peer> last;
  {
    std::lock_guard guard{mtx_};
    auto i = std::find_if(peers_.begin(), peers_.end(), [p](auto& q) { return q.get() == p; });
    if (i == peers_.end())
      return;
    last = std::move(*i);
    peers_.erase(i);
  }
  peers_cv_.notify_all();
}

void middleman_impl::on_exported_down(uint64_t id, const error& reason) {
  std::vector<std::shared_ptr<peer>> peers;
  {
    std::lock_guard guard{mtx_};
    peers = peers_;
  }
  for (auto& p : peers)
    p->send_down(id, reason);
}

} // namespace troupe::net::detail
