// Sends one HTTP request and prints the response, as CAF's http/client.
// The client is an actor: it takes an http::request as a request and
// answers with the http::response.
//
//   http_client --host=localhost --port=8080 --path=/api/greeting
//   http_client --port=8080 --method=post --path=/api/greeting --payload=hello
//   http_client --host=localhost --port=8443 --path=/ --tls.ca=ca.pem   (HTTPS)
//
// It exits with 0 for a 2xx status, 1 otherwise.

#include <troupe/all.hpp>
#include <troupe/net/http.hpp>
#include <troupe/net/middleman.hpp>

#include <string>

using namespace troupe;
using namespace std::chrono_literals;
namespace http = troupe::net::http;

struct client_config : actor_system_config {
  client_config() {
    opt_group{custom_options_, "global"}
      .add(host, "host,H", "the server's host")
      .add(port, "port,p", "the server's port")
      .add(path, "path", "the path (and query) to ask for")
      .add(method, "method,m", "get, head, post, put, delete, patch or options")
      .add(payload, "payload", "the request's body");
    opt_group{custom_options_, "tls"}.add(ca, "ca", "the CA that signed the server (PEM): HTTPS");
  }

  std::string host = "localhost";
  uint16_t port = 8080;
  std::string path = "/";
  std::string method = "get";
  std::string payload;
  std::string ca;
};

int caf_main(actor_system& sys, const client_config& cfg) {
  http::request req;
  static constexpr http::method methods[] = {http::method::get,  http::method::head,
                                             http::method::post, http::method::put,
                                             http::method::del,  http::method::patch,
                                             http::method::options};
  bool known = false;
  for (auto m : methods) {
    auto name = std::string{to_string(m)};
    for (auto& c : name)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name == cfg.method) {
      req.method = m;
      known = true;
    }
  }
  if (!known) {
    sys.println("*** unknown method: {}", cfg.method);
    return EXIT_FAILURE;
  }
  auto q = cfg.path.find('?');
  req.path = cfg.path.substr(0, q);
  if (q != std::string::npos)
    req.query = cfg.path.substr(q + 1);
  req.body = cfg.payload;
  auto builder = http::with(sys);
  if (!cfg.ca.empty())
    builder.tls({.ca = cfg.ca});
  auto client = builder.connect(cfg.host, cfg.port).start();
  if (!client) {
    sys.println("*** cannot connect to {}:{}: {}", cfg.host, cfg.port, to_string(client.error()));
    return EXIT_FAILURE;
  }
  int rc = EXIT_FAILURE;
  scoped_actor self{sys};
  self->mail(req).request(*client, 10s).receive(
    [&](const http::response& res) {
      auto code = static_cast<int>(res.code);
      sys.println("Server responded with HTTP {}", code);
      for (auto& [key, value] : res.headers)
        sys.println("- {}: {}", key, value);
      if (!res.body.empty())
        sys.println("Payload: {}", res.body);
      rc = code >= 200 && code < 300 ? EXIT_SUCCESS : EXIT_FAILURE;
    },
    [&](const error& err) { sys.println("*** HTTP request failed: {}", to_string(err)); });
  anon_mail(close_atom_v).send(*client);
  return rc;
}

TROUPE_MAIN(net::middleman)
