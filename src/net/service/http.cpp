// The HTTP/1.1 server protocol of net/http.hpp: Boost.Beast parses each
// request and serializes each response; this file routes requests and
// writes the responses in request order.

#include "protocol.hpp"

#include "troupe/logger.hpp"
#include "troupe/net/http.hpp"

#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/serializer.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>

namespace troupe::net::http {

namespace beast = boost::beast;

namespace {

bool iequals(std::string_view x, std::string_view y) noexcept {
  return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a))
                  == std::tolower(static_cast<unsigned char>(b));
         });
}

std::optional<method> from_beast(beast::http::verb v) noexcept {
  switch (v) {
    case beast::http::verb::get:
      return method::get;
    case beast::http::verb::head:
      return method::head;
    case beast::http::verb::post:
      return method::post;
    case beast::http::verb::put:
      return method::put;
    case beast::http::verb::delete_:
      return method::del;
    case beast::http::verb::patch:
      return method::patch;
    case beast::http::verb::options:
      return method::options;
    default:
      return std::nullopt;
  }
}

} // namespace

std::string_view request::header(std::string_view name) const noexcept {
  for (auto& [key, value] : headers)
    if (iequals(key, name))
      return value;
  return {};
}

std::string_view request::param(std::string_view name) const noexcept {
  for (auto& [key, value] : params)
    if (key == name)
      return value;
  return {};
}

namespace {

/// The bytes Beast writes for `msg`.
template <bool IsRequest>
byte_buffer serialize_message(beast::http::message<IsRequest, beast::http::string_body>& msg) {
  byte_buffer result;
  beast::http::serializer<IsRequest, beast::http::string_body> sr{msg};
  beast::error_code ec;
  while (!sr.is_done() && !ec) {
    sr.next(ec, [&](beast::error_code&, const auto& buffers) {
      size_t n = 0;
      for (auto buf : beast::buffers_range_ref(buffers)) {
        auto* p = static_cast<const std::byte*>(buf.data());
        result.insert(result.end(), p, p + buf.size());
        n += buf.size();
      }
      sr.consume(n);
    });
  }
  return result;
}

beast::http::verb to_beast(method m) noexcept {
  switch (m) {
    case method::get:
      return beast::http::verb::get;
    case method::head:
      return beast::http::verb::head;
    case method::post:
      return beast::http::verb::post;
    case method::put:
      return beast::http::verb::put;
    case method::del:
      return beast::http::verb::delete_;
    case method::patch:
      return beast::http::verb::patch;
    default:
      return beast::http::verb::options;
  }
}

response plain(status code, std::string body) {
  return {code, "text/plain; charset=utf-8", std::move(body)};
}

class http_protocol final : public net::detail::protocol {
public:
  using parser_type = beast::http::request_parser<beast::http::string_body>;

  http_protocol(std::shared_ptr<const std::vector<detail::route_entry>> routes, size_t max_body,
                size_t max_header)
    : routes_(std::move(routes)), max_body_(max_body), max_header_(max_header) {}

  expected<size_t> consume(std::span<const std::byte> data, const strong_actor_ptr& self,
                           std::vector<net::detail::delivery>& out) override {
    size_t pos = 0;
    while (pos < data.size()) {
      if (stopped_)
        return data.size(); // after a request that ends the connection
      if (!parser_) {
        parser_.emplace();
        parser_->body_limit(max_body_);
        parser_->header_limit(static_cast<uint32_t>(std::min<size_t>(max_header_, UINT32_MAX)));
        parser_->eager(true);
      }
      beast::error_code ec;
      pos += parser_->put(boost::asio::buffer(data.data() + pos, data.size() - pos), ec);
      if (ec == beast::http::error::need_more)
        break;
      if (ec) {
        auto [code, why] = parse_failure(ec);
        answer_and_stop(self, plain(code, why + "\n"), out);
        return data.size();
      }
      if (!parser_->is_done())
        continue;
      on_request(parser_->release(), self, out);
      parser_.reset();
    }
    return pos;
  }

  error finish(std::span<const std::byte> rest, std::vector<net::detail::delivery>&) override {
    if (rest.empty() && !parser_)
      return {};
    // A client may stop in the middle of a request: nobody to answer.
    return {};
  }

  error encode(const mailbox_element& elem, byte_buffer& out, bool& close_after) override {
    if (!elem.mid.is_response())
      return make_error(errc::unexpected_message,
                        "an HTTP connection writes the responses to its requests only, not "
                          + to_string(elem.payload));
    auto seq = elem.mid.request_number();
    response resp;
    if (elem.payload.match_elements<response>()) {
      resp = elem.payload.get_as<response>(0);
    } else if (elem.payload.match_elements<error>()) {
      auto& err = elem.payload.get_as<error>(0);
      TROUPE_LOG_WARNING("net", "an HTTP route failed: {}", to_string(err));
      resp = plain(status::internal_server_error, "the route failed: " + to_string(err) + "\n");
    } else {
      resp = plain(status::internal_server_error,
                   "the route answered with " + to_string(elem.payload) + "\n");
    }
    bool last = seq == close_seq_.load(std::memory_order_acquire);
    bool head = false;
    {
      std::lock_guard guard{heads_mtx_};
      head = heads_.erase(seq) > 0;
    }
    auto bytes = serialize(resp, last);
    if (head)
      bytes.resize(bytes.size() - resp.body.size());
    if (seq != next_out_) {
      waiting_.emplace(seq, std::move(bytes));
      return {};
    }
    out.insert(out.end(), bytes.begin(), bytes.end());
    ++next_out_;
    close_after = last;
    // Answers that came early follow in order.
    for (auto i = waiting_.begin(); i != waiting_.end() && i->first == next_out_;
         i = waiting_.erase(i)) {
      out.insert(out.end(), i->second.begin(), i->second.end());
      close_after = close_after || i->first == close_seq_.load(std::memory_order_acquire);
      ++next_out_;
    }
    return {};
  }

  bool needs_handler() const noexcept override {
    return false;
  }

  size_t backlog() const noexcept override {
    return next_seq_.load(std::memory_order_acquire) - next_out_;
  }

  size_t max_unit_size() const noexcept override {
    return max_header_ + max_body_;
  }

  std::string_view name() const noexcept override {
    return "HTTP";
  }

private:
  static std::pair<status, std::string> parse_failure(const beast::error_code& ec) {
    if (ec == beast::http::error::body_limit)
      return {status::payload_too_large, "the body exceeds max_message_size"};
    if (ec == beast::http::error::header_limit)
      return {status::request_header_fields_too_large, "the header exceeds max_header_size"};
    return {status::bad_request, "bad request: " + ec.message()};
  }

  /// The answer of the next request, and the last: the connection closes
  /// once it is out.
  void answer_and_stop(const strong_actor_ptr& self, response resp,
                       std::vector<net::detail::delivery>& out) {
    auto seq = next_seq_.load(std::memory_order_relaxed);
    close_seq_.store(seq, std::memory_order_release);
    stopped_ = true;
    parser_.reset();
    answer(self, seq, std::move(resp), out);
  }

  void answer(const strong_actor_ptr& self, uint64_t seq, response resp,
              std::vector<net::detail::delivery>& out) {
    next_seq_.store(seq + 1, std::memory_order_release);
    out.push_back({self, message_id::make_request(seq).response_id(),
                   make_message(std::move(resp))});
  }

  void on_request(beast::http::request<beast::http::string_body> msg, const strong_actor_ptr& self,
                  std::vector<net::detail::delivery>& out) {
    auto seq = next_seq_.load(std::memory_order_relaxed);
    if (msg.method() == beast::http::verb::head) {
      // Its answer has the headers of a GET's and no body.
      std::lock_guard guard{heads_mtx_};
      heads_.insert(seq);
    }
    if (!msg.keep_alive()) {
      close_seq_.store(seq, std::memory_order_release);
      stopped_ = true;
    }
    auto m = from_beast(msg.method());
    if (!m) {
      answer(self, seq, plain(status::not_implemented, "unsupported method\n"), out);
      return;
    }
    request req;
    req.method = *m;
    auto target = std::string_view{msg.target().data(), msg.target().size()};
    auto q = target.find('?');
    req.path = std::string{target.substr(0, q)};
    if (q != std::string_view::npos)
      req.query = std::string{target.substr(q + 1)};
    for (auto& field : msg)
      req.headers.emplace_back(std::string{field.name_string()}, std::string{field.value()});
    req.body = std::move(msg.body());
    if (req.path.empty() || req.path.front() != '/') {
      answer_and_stop(self, plain(status::bad_request, "bad request: the target is no path\n"),
                      out);
      return;
    }
    std::string allowed;
    for (auto& route : *routes_) {
      if (!route.pattern.match(req.path, req.params))
        continue;
      // HEAD is a GET without the body, wherever GET is served.
      bool head_of_get = req.method == method::head && route.method == method::get;
      if (route.method != req.method && !head_of_get) {
        if (!allowed.empty())
          allowed += ", ";
        allowed += to_string(route.method);
        continue;
      }
      if (route.target) {
        next_seq_.store(seq + 1, std::memory_order_release);
        out.push_back({strong_actor_ptr{route.target.ctrl()}, message_id::make_request(seq),
                       make_message(std::move(req))});
        return;
      }
      response resp;
      try {
        resp = route.fn(req);
      } catch (const std::exception& ex) {
        TROUPE_LOG_WARNING("net", "HTTP route {} threw: {}", route.pattern.text(), ex.what());
        resp = plain(status::internal_server_error, "the route failed\n");
      } catch (...) {
        TROUPE_LOG_WARNING("net", "HTTP route {} threw", route.pattern.text());
        resp = plain(status::internal_server_error, "the route failed\n");
      }
      answer(self, seq, std::move(resp), out);
      return;
    }
    req.params.clear();
    if (!allowed.empty()) {
      auto resp = plain(status::method_not_allowed, "method not allowed\n");
      resp.headers.emplace_back("Allow", allowed);
      answer(self, seq, std::move(resp), out);
      return;
    }
    answer(self, seq, plain(status::not_found, "not found\n"), out);
  }

  static byte_buffer serialize(const response& resp, bool last) {
    beast::http::response<beast::http::string_body> msg{
      static_cast<beast::http::status>(static_cast<unsigned>(resp.code)), 11};
    for (auto& [key, value] : resp.headers)
      msg.insert(key, value);
    msg.body() = resp.body;
    msg.keep_alive(!last);
    msg.prepare_payload();
    return serialize_message(msg);
  }

  std::shared_ptr<const std::vector<detail::route_entry>> routes_;
  size_t max_body_;
  size_t max_header_;

  // The I/O thread.
  std::optional<parser_type> parser_;
  bool stopped_ = false;

  // Written by the I/O thread, read under the connection's lock.
  std::atomic<uint64_t> next_seq_{0};
  std::atomic<uint64_t> close_seq_{UINT64_MAX};

  // Under the connection's lock.
  uint64_t next_out_ = 0;
  std::map<uint64_t, byte_buffer> waiting_;

  // The requests that were HEAD: the I/O thread adds, encode() takes.
  std::mutex heads_mtx_;
  std::set<uint64_t> heads_;
};


/// The client side: each http::request sent to the connection as a
/// request is written; each response read answers the oldest request
/// still waiting (HTTP/1.1 answers in order).
class http_client_protocol final : public net::detail::protocol {
public:
  using parser_type = beast::http::response_parser<beast::http::string_body>;

  http_client_protocol(std::string host, size_t max_body, size_t max_header)
    : host_(std::move(host)), max_body_(max_body), max_header_(max_header) {}

  expected<size_t> consume(std::span<const std::byte> data, const strong_actor_ptr&,
                           std::vector<net::detail::delivery>& out) override {
    size_t pos = 0;
    while (pos < data.size()) {
      std::unique_lock guard{mtx_};
      if (waiting_.empty())
        return make_error(errc::malformed_input, "the server sent a response nobody asked for");
      auto head = waiting_.front().head;
      guard.unlock();
      if (!parser_) {
        parser_.emplace();
        parser_->body_limit(max_body_);
        parser_->header_limit(static_cast<uint32_t>(std::min<size_t>(max_header_, UINT32_MAX)));
        parser_->eager(true);
        // A response to HEAD has a length but no body.
        parser_->skip(head);
      }
      beast::error_code ec;
      pos += parser_->put(boost::asio::buffer(data.data() + pos, data.size() - pos), ec);
      if (ec == beast::http::error::need_more)
        break;
      if (ec)
        return make_error(errc::malformed_input, "a bad response: " + ec.message());
      if (!parser_->is_done())
        continue;
      auto msg = parser_->release();
      parser_.reset();
      if (msg.result_int() >= 100 && msg.result_int() < 200 && msg.result_int() != 101)
        continue; // an interim answer: the final one follows
      deliver(std::move(msg), out);
    }
    return pos;
  }

  error finish(std::span<const std::byte>, std::vector<net::detail::delivery>& out) override {
    // A body that runs to the end of the connection ends here; requests
    // still waiting hear of the end in on_close().
    if (!parser_ || !parser_->is_header_done())
      return {};
    beast::error_code ec;
    parser_->put_eof(ec);
    if (ec || !parser_->is_done())
      return {};
    deliver_response(out);
    return {};
  }

  error encode(const mailbox_element& elem, byte_buffer& out, bool&) override {
    if (!elem.mid.is_request() || !elem.sender || !elem.payload.match_elements<request>())
      return make_error(errc::unexpected_message,
                        "an HTTP client connection takes an http::request as a request, not "
                          + to_string(elem.payload));
    auto& req = elem.payload.get_as<request>(0);
    auto target = req.path.empty() ? std::string{"/"} : req.path;
    if (!req.query.empty())
      target += "?" + req.query;
    beast::http::request<beast::http::string_body> msg{to_beast(req.method), target, 11};
    bool has_host = false;
    for (auto& [key, value] : req.headers) {
      msg.insert(key, value);
      has_host = has_host || iequals(key, "Host");
    }
    if (!has_host)
      msg.set(beast::http::field::host, host_);
    msg.body() = req.body;
    msg.prepare_payload();
    auto bytes = serialize_message(msg);
    out.insert(out.end(), bytes.begin(), bytes.end());
    std::lock_guard guard{mtx_};
    waiting_.push_back({elem.sender, elem.mid, req.method == method::head});
    return {};
  }

  bool needs_handler() const noexcept override {
    return false;
  }

  /// The response the parser finished answers the oldest request.
  void deliver_response(std::vector<net::detail::delivery>& out) {
    auto msg = parser_->release();
    parser_.reset();
    deliver(std::move(msg), out);
  }

  void deliver(beast::http::response<beast::http::string_body> msg,
               std::vector<net::detail::delivery>& out) {
    response resp;
    resp.code = static_cast<status>(msg.result_int());
    for (auto& field : msg)
      resp.headers.emplace_back(std::string{field.name_string()}, std::string{field.value()});
    resp.body = std::move(msg.body());
    std::unique_lock guard{mtx_};
    if (waiting_.empty())
      return;
    auto next = std::move(waiting_.front());
    waiting_.pop_front();
    guard.unlock();
    out.push_back({std::move(next.requester), next.mid.response_id(),
                   make_message(std::move(resp))});
  }

  bool answers_requests() const noexcept override {
    return true;
  }

  void on_close(const error& reason, std::vector<net::detail::delivery>& out) override {
    std::lock_guard guard{mtx_};
    for (auto& x : waiting_)
      out.push_back({std::move(x.requester), x.mid.response_id(), make_message(reason)});
    waiting_.clear();
  }

  size_t max_unit_size() const noexcept override {
    return max_header_ + max_body_;
  }

  std::string_view name() const noexcept override {
    return "HTTP client";
  }

private:
  struct waiter {
    strong_actor_ptr requester;
    message_id mid;
    bool head;
  };

  std::string host_;
  size_t max_body_;
  size_t max_header_;

  // The I/O thread.
  std::optional<parser_type> parser_;

  // Requests written and not answered yet, oldest first.
  std::mutex mtx_;
  std::deque<waiter> waiting_;
};

} // namespace

builder::builder(actor_system& sys)
  : service_builder<builder>(sys), routes_(std::make_shared<std::vector<detail::route_entry>>()) {
  // An idle keep-alive connection does not stay forever.
  opts_.idle_timeout = std::chrono::seconds{60};
}

void builder::add(std::string_view pattern, http::method m, route_function fn, actor target) {
  auto parsed = net::detail::route_pattern::parse(pattern);
  if (!parsed)
    throw std::invalid_argument{parsed.error().context()};
  // Copied: a builder's routes do not change a server already started.
  auto routes = std::make_shared<std::vector<detail::route_entry>>(*routes_);
  routes->push_back({std::move(*parsed), m, std::move(fn), std::move(target)});
  routes_ = std::move(routes);
}

builder& builder::route(std::string_view pattern, http::method m, route_function fn) {
  add(pattern, m, std::move(fn), actor{});
  return *this;
}

builder& builder::route(std::string_view pattern, http::method m, actor target) {
  add(pattern, m, nullptr, std::move(target));
  return *this;
}

net::detail::protocol_factory builder::make_protocol() const {
  std::shared_ptr<const std::vector<detail::route_entry>> routes = routes_;
  auto max_header = max_header_size_;
  return [routes, max_header](const service_options& opts)
           -> std::unique_ptr<net::detail::protocol> {
    if (!opts.host.empty())
      return std::make_unique<http_client_protocol>(opts.host, opts.max_message_size, max_header);
    return std::make_unique<http_protocol>(routes, opts.max_message_size, max_header);
  };
}

} // namespace troupe::net::http
