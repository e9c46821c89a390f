// A chat over length-prefixed frames, as CAF's length_prefix_framing/
// chat-server: every frame a client sends reaches every other client.
//
//   chat_server --port=7788 [--max-connections=128]
//               [--tls.certificate=server.pem --tls.private-key=server.key]
//   chat_client --host=localhost --port=7788 --name=alice
//
// The server prints "*** listening on port N" once it serves (port 0 picks
// one) and runs until SIGINT or SIGTERM. A client that stops reading is
// dropped when it falls send_buffer bytes behind, so one slow client never
// holds the others up.

#include <troupe/all.hpp>
#include <troupe/net/lp.hpp>
#include <troupe/net/middleman.hpp>

#include <algorithm>
#include <string>
#include <vector>

using namespace troupe;

struct chat_config : actor_system_config {
  chat_config() {
    opt_group{custom_options_, "global"}
      .add(port, "port,p", "port to listen on (0: one the system picks)")
      .add(max_connections, "max-connections,m", "limit for concurrent clients");
    opt_group{custom_options_, "tls"}
      .add(certificate, "certificate", "the server's certificate (PEM), for TLS")
      .add(private_key, "private-key", "its private key (PEM)");
  }

  uint16_t port = 7788;
  size_t max_connections = 128;
  std::string certificate;
  std::string private_key;
};

/// Knows every client's connection and passes each frame to the others.
behavior room(event_based_actor* self) {
  auto members = std::make_shared<std::vector<actor>>();
  return {
    [members](join_atom, const actor& conn) { members->push_back(conn); },
    [members](leave_atom, const actor& conn) { std::erase(*members, conn); },
    [self, members](forward_atom, const actor& from, const byte_buffer& frame) {
      for (auto& conn : *members)
        if (conn != from)
          self->mail(frame).send(conn);
    },
  };
}

/// One client's connection: its frames go to the room.
behavior session(event_based_actor* self, actor conn, actor chat_room) {
  self->println("*** accepted a connection");
  self->mail(join_atom_v, conn).send(chat_room);
  self->set_exit_handler([self, conn, chat_room](exit_msg& msg) {
    self->println("*** lost a connection: {}", msg.reason.context());
    self->mail(leave_atom_v, conn).send(chat_room);
    self->quit(msg.reason);
  });
  return {
    [self, conn, chat_room](const byte_buffer& frame) {
      self->mail(forward_atom_v, conn, frame).send(chat_room);
    },
  };
}

int caf_main(actor_system& sys, const chat_config& cfg) {
  if (cfg.certificate.empty() != cfg.private_key.empty()) {
    sys.println("*** inconsistent TLS config: give both files or neither");
    return EXIT_FAILURE;
  }
  auto chat_room = sys.spawn(room);
  auto builder = net::lp::with(sys);
  if (!cfg.certificate.empty())
    builder.tls({.certificate = cfg.certificate, .private_key = cfg.private_key});
  auto server = builder.when_full(net::when_full::disconnect)
                  .accept(cfg.port)
                  .max_connections(cfg.max_connections)
                  .start([chat_room](event_based_actor* self, actor conn) {
                    return session(self, std::move(conn), chat_room);
                  });
  if (!server) {
    sys.println("*** unable to listen on port {}: {}", cfg.port, to_string(server.error()));
    anon_send_exit(chat_room, exit_reason::user_shutdown);
    return EXIT_FAILURE;
  }
  sys.println("*** listening on port {}", server->port());
  // The server keeps the system running until SIGINT or SIGTERM.
  return EXIT_SUCCESS;
}

TROUPE_MAIN(net::middleman)
