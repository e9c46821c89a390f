#pragma once

// An HTTP/1.1 server on Boost.Beast's parser, as CAF's caf::net::http:
// routes with path parameters, each answered by a function on the I/O
// thread or by an actor's response to a request.
//
//   auto srv = net::http::with(sys)
//                .accept(8080)
//                .route("/time", http::method::get,
//                       [](const http::request&) { return http::response::text(now()); })
//                .route("/api/users/<id>", http::method::get, users)   // an actor
//                .start();
//
// An actor route gets an http::request as a request (`self->request`'s
// counterpart: its handler returns an http::response, or a response
// promise that it delivers later) and has max_pending_messages requests of
// one connection in flight at most. Responses leave in the order the
// requests came, keep-alive included. A request that matches no route gets
// 404, one whose path matches with another method 405 (with Allow); a body
// over max_message_size gets 413, a header over max_header_size 431, bytes
// that are no HTTP 400: then the connection closes and the server serves
// the others.
//
// A client is a connection that takes an http::request as a request and
// answers with the server's http::response (or the error that ended the
// connection); requests of several actors may be in flight on it at once:
//
//   auto client = net::http::with(sys).connect("localhost", 8080).start();
//   self->mail(http::request{.path = "/time"}).request(*client, 5s)
//     .then([](const http::response& res) { ... });

#include "troupe/net/detail/route.hpp"
#include "troupe/net/service.hpp"
#include "troupe/type_id.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace troupe::net::http {

enum class method : uint8_t { get, head, post, put, del, patch, options };

constexpr std::string_view to_string(method x) noexcept {
  switch (x) {
    case method::get:
      return "GET";
    case method::head:
      return "HEAD";
    case method::post:
      return "POST";
    case method::put:
      return "PUT";
    case method::del:
      return "DELETE";
    case method::patch:
      return "PATCH";
    default:
      return "OPTIONS";
  }
}

/// The status codes a server commonly answers with; any other number
/// works too (`static_cast<http::status>(418)`).
enum class status : uint16_t {
  ok = 200,
  created = 201,
  accepted = 202,
  no_content = 204,
  moved_permanently = 301,
  found = 302,
  not_modified = 304,
  bad_request = 400,
  unauthorized = 401,
  forbidden = 403,
  not_found = 404,
  method_not_allowed = 405,
  request_timeout = 408,
  conflict = 409,
  payload_too_large = 413,
  unsupported_media_type = 415,
  request_header_fields_too_large = 431,
  internal_server_error = 500,
  not_implemented = 501,
  service_unavailable = 503,
};

using fields = std::vector<std::pair<std::string, std::string>>;

struct request {
  http::method method = http::method::get;
  /// The path of the target, without its query ("/api/users/7").
  std::string path{};
  /// What follows "?" in the target, if anything.
  std::string query{};
  fields headers{};
  std::string body{};
  /// The route's parameters and their values, in the route's order.
  fields params{};

  /// The value of header `name` (any case), or "" if absent.
  std::string_view header(std::string_view name) const noexcept;

  /// The value of route parameter `name`, or "" if the route has none.
  std::string_view param(std::string_view name) const noexcept;
};

struct response {
  http::status code = http::status::ok;
  fields headers{};
  std::string body{};

  response() = default;

  response(http::status code, std::string content_type, std::string body)
    : code(code), headers{{"Content-Type", std::move(content_type)}}, body(std::move(body)) {}

  /// 200 with a text/plain body.
  static response text(std::string body) {
    return {http::status::ok, "text/plain; charset=utf-8", std::move(body)};
  }

  /// 200 with an application/json body.
  static response json(std::string body) {
    return {http::status::ok, "application/json", std::move(body)};
  }
};

template <class Inspector>
bool inspect(Inspector& f, request& x) {
  return f.object(x).fields(f.field("method", x.method), f.field("path", x.path),
                            f.field("query", x.query), f.field("headers", x.headers),
                            f.field("body", x.body), f.field("params", x.params));
}

template <class Inspector>
bool inspect(Inspector& f, response& x) {
  return f.object(x).fields(f.field("code", x.code), f.field("headers", x.headers),
                            f.field("body", x.body));
}

/// A route's function: runs on the I/O thread, so it must not block.
using route_function = std::function<response(const request&)>;

namespace detail {

struct route_entry {
  net::detail::route_pattern pattern;
  http::method method;
  /// The function, or else the actor, that answers.
  route_function fn;
  actor target;
};

} // namespace detail

class builder : public net::detail::service_builder<builder> {
public:
  explicit builder(actor_system& sys);

  /// Answers `m` requests to paths that match `pattern` with `fn`. A bad
  /// pattern throws std::invalid_argument naming it.
  builder& route(std::string_view pattern, http::method m, route_function fn);

  /// Answers them with `target`'s response to an http::request.
  builder& route(std::string_view pattern, http::method m, actor target);

  /// Listens on `port` (0: one the system picks) at `address` (default:
  /// troupe.net.listen-address, loopback). Routes may come before or after.
  builder& accept(uint16_t port, std::string address = {}) {
    opts_.port = port;
    opts_.address = std::move(address);
    return *this;
  }

  builder& max_connections(size_t n) {
    opts_.max_connections = n;
    return *this;
  }

  /// Listens and serves the routes.
  expected<server> start() {
    return net::detail::start_server(*sys_, opts_, make_protocol(), nullptr);
  }

  /// The largest request header (default 8 KiB); beyond it: 431.
  builder& max_header_size(size_t n) {
    max_header_size_ = n;
    return *this;
  }

  /// Each connection's protocol state (net::detail::service_builder).
  net::detail::protocol_factory make_protocol() const;

private:
  /// Throws std::invalid_argument for a bad pattern, as spawn does for a
  /// bad mailbox bound: routes are the program's own constants.
  void add(std::string_view pattern, http::method m, route_function fn, actor target);

  std::shared_ptr<std::vector<detail::route_entry>> routes_;
  size_t max_header_size_ = 8 * 1024;
};

/// The start of an HTTP server, as CAF's http::with(sys): then accept(port),
/// the routes and start().
inline builder with(actor_system& sys) {
  return builder{sys};
}

} // namespace troupe::net::http

TROUPE_BEGIN_TYPE_ID_BLOCK(net_http, 196)
  TROUPE_ADD_TYPE_ID_WITH_NAME(net_http, (troupe::net::http::request), "troupe::net::http::request")
  TROUPE_ADD_TYPE_ID_WITH_NAME(net_http, (troupe::net::http::response), "troupe::net::http::response")
TROUPE_END_TYPE_ID_BLOCK(net_http)
