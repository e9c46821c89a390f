// An HTTP server that answers GET / with the current time, as CAF's
// http/time-server.
//
//   http_time_server --port=8080 [--tls.certificate=server.pem --tls.private-key=server.key]
//   curl http://localhost:8080/
//
// It prints "*** listening on port N" once it serves (port 0 picks one) and
// runs until SIGINT or SIGTERM.

#include <troupe/all.hpp>
#include <troupe/chrono.hpp>
#include <troupe/net/http.hpp>
#include <troupe/net/middleman.hpp>

#include <chrono>
#include <string>

using namespace troupe;
namespace http = troupe::net::http;

struct time_config : actor_system_config {
  time_config() {
    opt_group{custom_options_, "global"}
      .add(port, "port,p", "port to listen on (0: one the system picks)")
      .add(max_connections, "max-connections,m", "limit for concurrent clients");
    opt_group{custom_options_, "tls"}
      .add(certificate, "certificate", "the server's certificate (PEM), for HTTPS")
      .add(private_key, "private-key", "its private key (PEM)");
  }

  uint16_t port = 8080;
  size_t max_connections = 128;
  std::string certificate;
  std::string private_key;
};

int caf_main(actor_system& sys, const time_config& cfg) {
  if (cfg.certificate.empty() != cfg.private_key.empty()) {
    sys.println("*** inconsistent TLS config: give both files or neither");
    return EXIT_FAILURE;
  }
  auto builder = http::with(sys);
  if (!cfg.certificate.empty())
    builder.tls({.certificate = cfg.certificate, .private_key = cfg.private_key});
  auto server = builder.accept(cfg.port)
                  .max_connections(cfg.max_connections)
                  .route("/", http::method::get,
                         [](const http::request&) {
                           return http::response::text(
                             chrono::to_string(std::chrono::system_clock::now()) + "\n");
                         })
                  .start();
  if (!server) {
    sys.println("*** unable to listen on port {}: {}", cfg.port, to_string(server.error()));
    return EXIT_FAILURE;
  }
  sys.println("*** listening on port {}", server->port());
  return EXIT_SUCCESS;
}

TROUPE_MAIN(net::middleman)
