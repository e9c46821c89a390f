// The HTTP server against raw sockets on 127.0.0.1, for what curl does not
// show: pipelined requests answered in order when an actor answers them out
// of order, a route whose actor is gone, a route function that throws, and
// bad route patterns. tests of the examples (examples/testing/http_test.sh)
// cover status codes, limits, keep-alive and HTTPS with curl.

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/net/http.hpp"
#include "troupe/net/middleman.hpp"
#include "troupe/response_promise.hpp"
#include "troupe/scoped_actor.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <future>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;
namespace http = troupe::net::http;
using boost::asio::ip::tcp;

namespace {

struct node {
  node() {
    cfg.load<net::middleman>();
    cfg.shutdown.grace_period = 200ms;
    sys = std::make_unique<actor_system>(cfg);
  }

  ~node() {
    sys->shutdown();
  }

  actor_system_config cfg;
  std::unique_ptr<actor_system> sys;
};

/// Sends `text` on a new connection and returns all the server writes
/// until it closes.
std::string exchange(uint16_t port, const std::string& text) {
  boost::asio::io_context io;
  tcp::socket socket{io};
  socket.connect({boost::asio::ip::make_address("127.0.0.1"), port});
  boost::asio::write(socket, boost::asio::buffer(text));
  std::string result;
  boost::system::error_code ec;
  boost::asio::read(socket, boost::asio::dynamic_buffer(result), ec);
  return result;
}

std::string get(const std::string& path, bool last = false) {
  return "GET " + path + " HTTP/1.1\r\nHost: x\r\n" + (last ? "Connection: close\r\n" : "")
         + "\r\n";
}

} // namespace

TEST(http_test, pipelined_requests_are_answered_in_order) {
  node n;
  // The first request's answer comes last: the actor answers it only after
  // the other two.
  auto slow = n.sys->spawn([](event_based_actor* self) -> behavior {
    auto held = std::make_shared<std::vector<response_promise>>();
    return {[self, held](const http::request& req) -> result<http::response> {
      if (req.param("n") == "1") {
        held->push_back(self->make_response_promise());
        return held->back();
      }
      auto answer = http::response::text("n" + std::string{req.param("n")});
      if (req.param("n") == "3") {
        for (auto& p : *held)
          p.deliver(http::response::text("first"));
        held->clear();
      }
      return answer;
    }};
  });
  auto srv = http::with(*n.sys).accept(0).route("/x/<n>", http::method::get, slow).start();
  ASSERT_TRUE(srv) << to_string(srv.error());
  auto reply = exchange(srv->port(), get("/x/1") + get("/x/2") + get("/x/3", true));
  auto first = reply.find("first");
  auto second = reply.find("n2");
  auto third = reply.find("n3");
  ASSERT_NE(first, std::string::npos) << reply;
  ASSERT_NE(second, std::string::npos) << reply;
  ASSERT_NE(third, std::string::npos) << reply;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  anon_send_exit(slow, exit_reason::user_shutdown);
}

TEST(http_test, a_route_whose_actor_is_gone_answers_500_and_a_throwing_one_too) {
  node n;
  auto gone = n.sys->spawn([]() -> behavior { return {[](const http::request&) {}}; });
  anon_send_exit(gone, exit_reason::user_shutdown);
  auto srv = http::with(*n.sys)
               .accept(0)
               .route("/gone", http::method::get, gone)
               .route("/throws", http::method::get,
                      [](const http::request&) -> http::response {
                        throw std::runtime_error("boom");
                      })
               .route("/fine", http::method::get,
                      [](const http::request&) { return http::response::text("fine"); })
               .start();
  ASSERT_TRUE(srv);
  auto reply = exchange(srv->port(), get("/gone") + get("/throws") + get("/fine", true));
  EXPECT_EQ(reply.find("HTTP/1.1 500"), 0u) << reply;
  EXPECT_NE(reply.find("HTTP/1.1 500", 1), std::string::npos) << reply;
  EXPECT_NE(reply.find("fine"), std::string::npos) << reply;
}

TEST(http_test, a_bad_route_pattern_throws_naming_it) {
  node n;
  auto fn = [](const http::request&) { return http::response{}; };
  EXPECT_THROW(http::with(*n.sys).route("no-slash", http::method::get, fn), std::invalid_argument);
  EXPECT_THROW(http::with(*n.sys).route("/a<b>", http::method::get, fn), std::invalid_argument);
  EXPECT_THROW(http::with(*n.sys).route("/<x>/<x>", http::method::get, fn),
               std::invalid_argument);
  try {
    http::with(*n.sys).route("/<x>/<x>", http::method::get, fn);
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string{ex.what()}.find("/<x>/<x>"), std::string::npos) << ex.what();
  }
}

TEST(route_pattern, matches_literals_and_parameters) {
  auto route = net::detail::route_pattern::parse("/api/users/<id>/posts");
  ASSERT_TRUE(route);
  std::vector<std::pair<std::string, std::string>> params;
  EXPECT_TRUE(route->match("/api/users/7/posts", params));
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].first, "id");
  EXPECT_EQ(params[0].second, "7");
  EXPECT_FALSE(route->match("/api/users//posts", params));
  EXPECT_FALSE(route->match("/api/users/7", params));
  EXPECT_FALSE(route->match("/api/people/7/posts", params));
  auto root = net::detail::route_pattern::parse("/");
  ASSERT_TRUE(root);
  EXPECT_TRUE(root->match("/", params));
  EXPECT_FALSE(root->match("/x", params));
}

TEST(http_client, answers_pipelined_requests_each_to_its_requester) {
  node n;
  // /slow/<n> answers once /release came: requests pile up on the one
  // connection of the client.
  auto holder = n.sys->spawn([](event_based_actor* self) -> behavior {
    auto held = std::make_shared<std::vector<std::pair<response_promise, std::string>>>();
    return {[self, held](const http::request& req) -> result<http::response> {
      if (req.path == "/release") {
        for (auto& [p, text] : *held)
          p.deliver(http::response::text(text));
        held->clear();
        return http::response::text("released");
      }
      held->emplace_back(self->make_response_promise(), std::string{req.param("n")});
      return held->back().first;
    }};
  });
  auto srv = http::with(*n.sys)
               .accept(0)
               .route("/slow/<n>", http::method::get, holder)
               .route("/release", http::method::get, holder)
               .start();
  ASSERT_TRUE(srv);
  auto client = http::with(*n.sys).connect("127.0.0.1", srv->port()).start();
  ASSERT_TRUE(client) << to_string(client.error());
  auto got = std::make_shared<std::promise<std::vector<std::string>>>();
  auto fut = got->get_future();
  n.sys->spawn([client = *client, got](event_based_actor* self) {
    auto bodies = std::make_shared<std::vector<std::string>>();
    auto one = [bodies, got](std::string body) {
      bodies->push_back(std::move(body));
      if (bodies->size() == 4)
        got->set_value(*bodies);
    };
    for (auto path : {"/slow/a", "/slow/b", "/slow/c", "/release"}) {
      http::request req;
      req.path = path;
      self->mail(req).request(client, 10s).then(
        [one](const http::response& res) { one(res.body); },
        [one](const error& err) { one("error: " + to_string(err)); });
    }
  });
  ASSERT_EQ(fut.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(fut.get(), (std::vector<std::string>{"a", "b", "c", "released"}));
  anon_send_exit(holder, exit_reason::user_shutdown);
}

TEST(http_client, a_server_that_closes_fails_the_waiting_request) {
  node n;
  // A server that reads the request and closes without an answer.
  boost::asio::io_context io;
  tcp::acceptor acceptor{io, {boost::asio::ip::make_address("127.0.0.1"), 0}};
  std::thread server{[&] {
    auto socket = acceptor.accept();
    char buf[1024];
    boost::system::error_code ec;
    socket.read_some(boost::asio::buffer(buf), ec);
    socket.close();
  }};
  auto client = http::with(*n.sys).connect("127.0.0.1", acceptor.local_endpoint().port()).start();
  ASSERT_TRUE(client) << to_string(client.error());
  scoped_actor self{*n.sys};
  http::request req;
  req.path = "/";
  self->mail(req).request(*client, 10s).receive(
    [](const http::response&) { FAIL() << "an answer from a server that gave none"; },
    [](const error& err) { EXPECT_EQ(err, errc::connection_closed) << to_string(err); });
  server.join();
  // Not a request, or not an http::request: refused.
  self->mail(42).request(*client, 10s).receive([](const http::response&) { FAIL(); },
                                                [](const error&) {});
}
