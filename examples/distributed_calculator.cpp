// Actors on two nodes: a calculator published on a TCP port, and a client
// that reads "add 1 2" lines, asks the remote calculator and prints the
// answer. When the server goes away, the client says so and connects again
// at the next line, so a restarted server is found without restarting the
// client.
//
//   distributed_calculator --server-mode --port=4242
//   distributed_calculator --host=127.0.0.1 --port=4242
//
// (-s, -p and -H for short, as CAF's example; every troupe.* option works
// too, e.g. the troupe.net.tls.* files.) Without a port it runs both in
// one process as a demo: the server stops and starts again between two
// requests.

#include <troupe/all.hpp>
#include <troupe/net/middleman.hpp>

#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

using namespace troupe;
using namespace std::chrono_literals;

using calculator = typed_actor<result<int32_t>(add_atom, int32_t, int32_t),
                               result<int32_t>(sub_atom, int32_t, int32_t)>;

calculator::behavior_type calculator_impl() {
  return {
    [](add_atom, int32_t x, int32_t y) { return x + y; },
    [](sub_atom, int32_t x, int32_t y) { return x - y; },
  };
}

struct calculator_config : actor_system_config {
  calculator_config() {
    opt_group{custom_options_, "global"}
      .add(server_mode, "server-mode,s", "publish a calculator instead of asking one")
      .add(host, "host,H", "the server's host")
      .add(port, "port,p", "the server's port (0: the demo)");
    load<net::middleman>();
  }

  bool server_mode = false;
  std::string host = "127.0.0.1";
  uint16_t port = 0;
};

/// A node serving a calculator on `port` until it is destroyed.
class calculator_server {
public:
  explicit calculator_server(uint16_t port) : calculator_server(default_config(), port) {}

  calculator_server(const actor_system_config& cfg, uint16_t port) {
    sys_ = std::make_unique<actor_system>(cfg);
    calc_ = sys_->spawn(calculator_impl);
    auto published = sys_->middleman().publish(calc_, port);
    if (!published)
      throw std::runtime_error(to_string(published.error()));
    port_ = *published;
  }

  ~calculator_server() {
    anon_send_exit(calc_, exit_reason::user_shutdown);
  }

  uint16_t port() const {
    return port_;
  }

private:
  static const actor_system_config& default_config() {
    static calculator_config cfg;
    return cfg;
  }

  std::unique_ptr<actor_system> sys_;
  calculator calc_;
  uint16_t port_ = 0;
};

/// Evaluates one line at a time against the remote calculator, connecting
/// (again) whenever it has no server.
class calculator_client {
public:
  calculator_client(actor_system& sys, std::string host, uint16_t port)
    : sys_(sys), host_(std::move(host)), port_(port) {}

  std::string eval(const std::string& line) {
    std::istringstream in{line};
    std::string op;
    int32_t x = 0;
    int32_t y = 0;
    if (!(in >> op >> x >> y) || (op != "add" && op != "sub"))
      return "usage: add <x> <y> | sub <x> <y>";
    if (!server_) {
      auto hdl = sys_.middleman().remote_actor<calculator>(host_, port_);
      if (!hdl)
        return "no server: " + to_string(hdl.error());
      server_ = *hdl;
    }
    scoped_actor self{sys_};
    std::string answer;
    auto on_result = [&](int32_t z) { answer = line + " = " + std::to_string(z); };
    auto on_error = [&](const error& err) {
      // The node is gone (or the request timed out): connect again next time.
      server_.reset();
      answer = line + ": " + to_string(err);
    };
    if (op == "add")
      self->request(*server_, 2s, add_atom_v, x, y).receive(on_result, on_error);
    else
      self->request(*server_, 2s, sub_atom_v, x, y).receive(on_result, on_error);
    return answer;
  }

private:
  actor_system& sys_;
  std::string host_;
  uint16_t port_;
  std::optional<calculator> server_;
};

int run_server(const calculator_config& cfg) {
  calculator_server server{cfg, cfg.port};
  std::cout << "calculator published on port " << server.port() << "; 'quit' stops it"
            << std::endl;
  for (std::string line; std::getline(std::cin, line) && line != "quit";) {
  }
  return 0;
}

int run_client(const calculator_config& cfg) {
  actor_system sys{cfg};
  calculator_client client{sys, cfg.host, cfg.port};
  for (std::string line; std::getline(std::cin, line) && line != "quit";)
    std::cout << client.eval(line) << std::endl;
  return 0;
}

int run_demo() {
  auto server = std::make_unique<calculator_server>(0);
  auto port = server->port();
  actor_system_config cfg;
  cfg.load<net::middleman>();
  actor_system sys{cfg};
  calculator_client client{sys, "127.0.0.1", port};
  std::cout << client.eval("add 3 4") << '\n';
  std::cout << client.eval("sub 10 4") << '\n';
  std::cout << "-- the server stops\n";
  server.reset();
  std::cout << client.eval("add 1 1") << '\n';
  std::cout << "-- the server starts again on port " << port << '\n';
  server = std::make_unique<calculator_server>(port);
  auto answer = client.eval("add 20 22");
  std::cout << answer << '\n';
  return answer == "add 20 22 = 42" ? 0 : 1;
}

int main(int argc, char** argv) {
  calculator_config cfg;
  if (auto err = cfg.parse(argc, argv)) {
    std::cerr << to_string(err) << '\n';
    return 1;
  }
  if (cfg.helptext_requested()) {
    std::cout << cfg.helptext();
    return 0;
  }
  try {
    if (cfg.server_mode)
      return run_server(cfg);
    if (cfg.port != 0)
      return run_client(cfg);
    return run_demo();
  } catch (const std::exception& e) {
    std::cerr << e.what() << '\n';
    return 1;
  }
}
