// A key-value store that reads JSON commands, one per line, from TCP
// connections, as CAF's octet_stream/key-value-store:
//
//   {"type":"put","key":"a","value":"1"}   ->  {"ok":""}      (the old value)
//   {"type":"get","key":"a"}               ->  {"ok":"1"}
//   {"type":"del","key":"a"}               ->  {"ok":"1"}
//   {"type":"get","key":"a"}               ->  {"error":"no such key: a"}
//
//   key_value_store --port=7789            (then: nc localhost 7789)
//   key_value_store --demo                 (a server and a client in one process)
//
// The store is one actor; each connection's handler asks it and writes the
// answers back in order. A line that is not a command gets an error line
// and the connection stays.

#include <troupe/all.hpp>
#include <troupe/json_reader.hpp>
#include <troupe/json_writer.hpp>
#include <troupe/net/middleman.hpp>
#include <troupe/net/octet_stream.hpp>

#include <optional>
#include <string>
#include <unordered_map>

using namespace troupe;

struct command {
  std::string type;
  std::string key;
  std::optional<std::string> value;
};

template <class Inspector>
bool inspect(Inspector& f, command& x) {
  return f.object(x).fields(f.field("type", x.type), f.field("key", x.key),
                            f.field("value", x.value));
}

struct answer {
  std::optional<std::string> ok;
  std::optional<std::string> error;
};

template <class Inspector>
bool inspect(Inspector& f, answer& x) {
  return f.object(x).fields(f.field("ok", x.ok), f.field("error", x.error));
}

TROUPE_BEGIN_TYPE_ID_BLOCK(key_value_store, first_custom_type_id)
  TROUPE_ADD_TYPE_ID(key_value_store, (command))
  TROUPE_ADD_TYPE_ID(key_value_store, (answer))
TROUPE_END_TYPE_ID_BLOCK(key_value_store)

struct kvs_config : actor_system_config {
  kvs_config() {
    opt_group{custom_options_, "global"}
      .add(port, "port,p", "port to listen on (0: one the system picks)")
      .add(demo, "demo", "serve on a free port and run a client against it, then stop");
  }

  uint16_t port = 7789;
  bool demo = false;
};

struct kvs_state {
  std::unordered_map<std::string, std::string> store;

  answer run(const command& cmd) {
    if (cmd.type == "get") {
      auto i = store.find(cmd.key);
      if (i == store.end())
        return {std::nullopt, "no such key: " + cmd.key};
      return {i->second, std::nullopt};
    }
    if (cmd.type == "put" && cmd.value) {
      auto& entry = store[cmd.key];
      auto old = std::exchange(entry, *cmd.value);
      return {std::move(old), std::nullopt};
    }
    if (cmd.type == "del") {
      auto i = store.find(cmd.key);
      if (i == store.end())
        return {std::nullopt, "no such key: " + cmd.key};
      auto old = std::move(i->second);
      store.erase(i);
      return {std::move(old), std::nullopt};
    }
    return {std::nullopt, "invalid command"};
  }

  behavior make_behavior() {
    return {[this](const command& cmd) { return run(cmd); }};
  }
};

/// One connection: each line is a command for the store; the answers go
/// back as lines, in order.
behavior session(event_based_actor* self, actor conn, actor store) {
  auto write = [self, conn](const answer& x) {
    if (auto text = to_json(x))
      self->mail(*text).send(conn);
  };
  return {
    [self, store, write](const std::string& line) {
      auto cmd = from_json<command>(line);
      if (!cmd) {
        write({std::nullopt, "invalid command: " + cmd.error().context()});
        return;
      }
      // Answers are awaited in order, so they leave in the order asked.
      self->mail(*cmd).request(store, std::chrono::seconds{5}).await(write, [write](const error& err) {
        write({std::nullopt, to_string(err)});
      });
    },
  };
}

/// The demo's client: sends `lines`, prints each answer, ends after the
/// last.
behavior demo_client(event_based_actor* self, actor conn, std::vector<std::string> lines) {
  auto left = std::make_shared<size_t>(lines.size());
  for (auto& line : lines) {
    self->println("> {}", line);
    self->mail(line).send(conn);
  }
  return {[self, left](const std::string& line) {
    self->println("< {}", line);
    if (--*left == 0)
      self->quit();
  }};
}

int caf_main(actor_system& sys, const kvs_config& cfg) {
  auto store = sys.spawn(actor_from_state<kvs_state>);
  auto server = net::octet_stream::with(sys)
                  .lines()
                  .accept(cfg.demo ? 0 : cfg.port)
                  .start([store](event_based_actor* self, actor conn) {
                    return session(self, std::move(conn), store);
                  });
  if (!server) {
    sys.println("*** unable to listen: {}", to_string(server.error()));
    anon_send_exit(store, exit_reason::user_shutdown);
    return EXIT_FAILURE;
  }
  sys.println("*** listening on port {}", server->port());
  if (!cfg.demo)
    return EXIT_SUCCESS; // serves until SIGINT or SIGTERM
  std::vector<std::string> lines{
    R"({"type":"put","key":"a","value":"1"})", R"({"type":"get","key":"a"})",
    R"({"type":"del","key":"a"})",             R"({"type":"get","key":"a"})",
    R"(not json)",
  };
  auto client = net::octet_stream::with(sys).lines().connect("127.0.0.1", server->port())
                  .start([lines](event_based_actor* self, actor conn) {
                    return demo_client(self, std::move(conn), lines);
                  });
  if (!client) {
    sys.println("*** the demo client cannot connect: {}", to_string(client.error()));
    return EXIT_FAILURE;
  }
  // Once the client is done, the server stops and the store with it.
  scoped_actor self{sys};
  self->wait_for(*client);
  server->dispose();
  anon_send_exit(store, exit_reason::user_shutdown);
  return EXIT_SUCCESS;
}

TROUPE_MAIN(id_block::key_value_store, net::middleman)
