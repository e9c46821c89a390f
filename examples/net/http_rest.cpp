// A REST API over a key-value store, as CAF's http/rest: the store is an
// actor that knows nothing of HTTP; an API actor answers each HTTP request
// by asking the store, so its response comes later, through a promise.
//
//   GET    /api/<key>     200 and the value, or 404
//   POST   /api/<key>     the body becomes the value: 204
//   DELETE /api/<key>     204, or 404
//   GET    /status        204
//
//   http_rest --port=8080
//   curl -X POST -d 'hello' http://localhost:8080/api/greeting
//   curl http://localhost:8080/api/greeting
//
// It prints "*** listening on port N" once it serves (port 0 picks one) and
// runs until SIGINT or SIGTERM. --max-body bounds a request's body (413
// beyond it).

#include <troupe/all.hpp>
#include <troupe/net/http.hpp>
#include <troupe/net/middleman.hpp>

#include <string>
#include <unordered_map>

using namespace troupe;
using namespace std::chrono_literals;
namespace http = troupe::net::http;

struct rest_config : actor_system_config {
  rest_config() {
    opt_group{custom_options_, "global"}
      .add(port, "port,p", "port to listen on (0: one the system picks)")
      .add(max_body, "max-body", "the largest request body in bytes");
  }

  uint16_t port = 8080;
  size_t max_body = 1024 * 1024;
};

/// The store: knows keys and values, not HTTP.
behavior kvs(event_based_actor*) {
  auto data = std::make_shared<std::unordered_map<std::string, std::string>>();
  return {
    [data](get_atom, const std::string& key) -> result<std::string> {
      if (auto i = data->find(key); i != data->end())
        return i->second;
      return make_error(errc::runtime_error, "no such key: " + key);
    },
    [data](put_atom, const std::string& key, std::string value) {
      (*data)[key] = std::move(value);
    },
    [data](delete_atom, const std::string& key) -> result<void> {
      if (data->erase(key) == 0)
        return make_error(errc::runtime_error, "no such key: " + key);
      return {};
    },
  };
}

/// Answers HTTP requests to /api/<key> by asking the store.
behavior api(event_based_actor* self, actor store) {
  return {
    [self, store](const http::request& req) -> result<http::response> {
      auto key = std::string{req.param("key")};
      auto promise = self->make_response_promise<http::response>();
      auto not_found = [promise](const error& err) mutable {
        promise.deliver(http::response{http::status::not_found, "text/plain", err.context() + "\n"});
      };
      auto no_content = [promise]() mutable {
        promise.deliver(http::response{http::status::no_content, "text/plain", ""});
      };
      switch (req.method) {
        case http::method::get:
          self->mail(get_atom_v, key).request(store, 5s).then(
            [promise](const std::string& value) mutable {
              promise.deliver(http::response::text(value));
            },
            not_found);
          break;
        case http::method::post:
          self->mail(put_atom_v, key, req.body).request(store, 5s).then(no_content, not_found);
          break;
        default:
          self->mail(delete_atom_v, key).request(store, 5s).then(no_content, not_found);
      }
      return promise;
    },
  };
}

int caf_main(actor_system& sys, const rest_config& cfg) {
  auto store = sys.spawn(kvs);
  auto rest = sys.spawn(api, store);
  auto server = http::with(sys)
                  .max_message_size(cfg.max_body)
                  .accept(cfg.port)
                  .route("/api/<key>", http::method::get, rest)
                  .route("/api/<key>", http::method::post, rest)
                  .route("/api/<key>", http::method::del, rest)
                  .route("/status", http::method::get,
                         [](const http::request&) {
                           return http::response{http::status::no_content, "text/plain", ""};
                         })
                  .start();
  if (!server) {
    sys.println("*** unable to listen on port {}: {}", cfg.port, to_string(server.error()));
    anon_send_exit(rest, exit_reason::user_shutdown);
    anon_send_exit(store, exit_reason::user_shutdown);
    return EXIT_FAILURE;
  }
  sys.println("*** listening on port {}", server->port());
  return EXIT_SUCCESS;
}

TROUPE_MAIN(net::middleman)
