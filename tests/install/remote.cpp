// Two nodes in one process over 127.0.0.1, using the installed `net`
// component alone.

#include <troupe/all.hpp>
#include <troupe/net/middleman.hpp>

#include <chrono>
#include <iostream>

int main() {
  troupe::actor_system_config server_cfg;
  server_cfg.load<troupe::net::middleman>();
  troupe::actor_system server{server_cfg};
  auto doubler = server.spawn([] { return troupe::behavior{[](int x) { return 2 * x; }}; });
  auto port = server.middleman().publish(doubler, 0);
  troupe::actor_system_config client_cfg;
  client_cfg.load<troupe::net::middleman>();
  troupe::actor_system client{client_cfg};
  auto remote = port ? client.middleman().remote_actor("127.0.0.1", *port)
                     : troupe::expected<troupe::actor>{port.error()};
  int result = 0;
  if (remote) {
    troupe::scoped_actor self{client};
    self->request(*remote, std::chrono::seconds(10), 21)
      .receive([&](int y) { result = y; },
               [](const troupe::error& err) { std::cerr << to_string(err) << '\n'; });
  } else {
    std::cerr << to_string(remote.error()) << '\n';
  }
  troupe::anon_send_exit(doubler, troupe::exit_reason::user_shutdown);
  if (result != 42) {
    std::cerr << "expected 42, got " << result << '\n';
    return 1;
  }
  std::cout << result << '\n';
  return 0;
}
