// The client of chat_server (as CAF's length_prefix_framing/chat-client):
// sends each line it reads from stdin as "name: line" and prints every
// frame the server passes on.
//
//   chat_client --host=localhost --port=7788 --name=alice [--tls.ca=ca.pem]
//
// It ends when stdin does (after what it sent is out), or, with
// --expect=N, once it printed N frames.

#include <troupe/all.hpp>
#include <troupe/net/lp.hpp>
#include <troupe/net/middleman.hpp>

#include <iostream>
#include <string>

using namespace troupe;

struct client_config : actor_system_config {
  client_config() {
    opt_group{custom_options_, "global"}
      .add(host, "host,H", "the server's host")
      .add(port, "port,p", "the server's port")
      .add(name, "name,n", "the name shown before each line")
      .add(expect, "expect", "end after printing this many frames (0: when stdin ends)");
    opt_group{custom_options_, "tls"}.add(ca, "ca", "the CA that signed the server (PEM)");
  }

  std::string host = "localhost";
  uint16_t port = 7788;
  std::string name = "anonymous";
  size_t expect = 0;
  std::string ca;
};

int caf_main(actor_system& sys, const client_config& cfg) {
  auto builder = net::lp::with(sys);
  if (!cfg.ca.empty())
    builder.tls({.ca = cfg.ca});
  auto expect = cfg.expect;
  auto client = builder.connect(cfg.host, cfg.port)
                  .start([expect](event_based_actor* self, actor conn) -> behavior {
                    auto printed = std::make_shared<size_t>(0);
                    return {
                      // A line from stdin.
                      [self, conn](const std::string& line) { self->mail(line).send(conn); },
                      // Stdin ended: the connection closes once the lines are out.
                      [self](close_atom) { self->quit(); },
                      // A frame from the server.
                      [self, printed, expect](const byte_buffer& frame) {
                        self->println("{}", std::string{reinterpret_cast<const char*>(frame.data()),
                                                        frame.size()});
                        if (++*printed == expect)
                          self->quit();
                      },
                    };
                  });
  if (!client) {
    sys.println("*** cannot connect to {}:{}: {}", cfg.host, cfg.port,
                to_string(client.error()));
    return EXIT_FAILURE;
  }
  if (expect > 0)
    return EXIT_SUCCESS;
  for (std::string line; std::getline(std::cin, line);)
    anon_mail(cfg.name + ": " + line).send(*client);
  // After the lines, in order: ending the handler closes the connection
  // once what it holds is out.
  anon_mail(close_atom_v).send(*client);
  return EXIT_SUCCESS;
}

TROUPE_MAIN(net::middleman)
