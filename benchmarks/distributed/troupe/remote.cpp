// The distributed study's Troupe program: troupe::net's remote actors. The
// server publishes one actor on 127.0.0.1, the client reaches it with
// remote_actor and talks to it from one event-based actor, as the CAF
// program does:
//
//   ping_pong         request(int) answered with the same int, one at a time
//   throughput_small  N plain messages (an int); the N-th is answered with
//                     (finished, N) as a message to the sender
//   throughput_1k     the same with a std::string of --payload bytes
//   requests          request(int) answered with the same int, --window at once
//   node_loss         --requests requests the server keeps unanswered, then
//                     SIGKILL of the server: the time to the down_msg of a
//                     monitor and to the failure of the last request

#include "distributed/common/peer.hpp"

#include <troupe/all.hpp>
#include <troupe/net/middleman.hpp>
#include <troupe/binary_serializer.hpp>

#include <algorithm>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(distributed, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(distributed, finished_atom)
TROUPE_END_TYPE_ID_BLOCK(distributed)

namespace {

using namespace troupe;

// -- server ------------------------------------------------------------------------

behavior echo_server(event_based_actor*, dist::server_side* side, uint64_t ops) {
  auto count = std::make_shared<uint64_t>(0);
  return {
    [=](int32_t value) {
      if (value >= 0) {
        side->begin();
        if (++*count == ops)
          side->done();
      }
      return value;
    },
  };
}

// The answer to the N-th message goes to its sender as a plain message.
void count_one(event_based_actor* self, dist::server_side* side, uint64_t ops,
               uint64_t& count) {
  side->begin();
  if (++count == ops) {
    self->send(actor{self->current_sender()}, finished_atom_v, static_cast<int64_t>(count));
    side->done();
  }
}

behavior small_sink(event_based_actor* self, dist::server_side* side, uint64_t ops) {
  auto count = std::make_shared<uint64_t>(0);
  return {
    [=](int32_t) { count_one(self, side, ops, *count); },
  };
}

behavior payload_sink(event_based_actor* self, dist::server_side* side, uint64_t ops,
                      uint64_t payload) {
  auto count = std::make_shared<uint64_t>(0);
  return {
    [=](const std::string& text) {
      if (text.size() != payload)
        dist::die("server: a message of the wrong size");
      count_one(self, side, ops, *count);
    },
  };
}

// node_loss: answers ints, keeps every string request unanswered.
behavior loss_server(event_based_actor* self) {
  auto kept = std::make_shared<std::vector<response_promise>>();
  return {
    [](int32_t value) { return value; },
    [self, kept](const std::string&) {
      kept->push_back(self->make_response_promise());
      return kept->back();
    },
  };
}

int serve(const dist::config& cfg, actor_system& sys) {
  dist::server_side side{cfg};
  actor server;
  switch (cfg.what) {
    case dist::kind::node_loss:
      server = sys.spawn(loss_server);
      break;
    case dist::kind::ping_pong:
    case dist::kind::requests:
      server = sys.spawn(echo_server, &side, cfg.ops);
      break;
    case dist::kind::throughput_small:
      server = sys.spawn(small_sink, &side, cfg.ops);
      break;
    case dist::kind::throughput_1k:
      server = sys.spawn(payload_sink, &side, cfg.ops, cfg.payload);
      break;
  }
  auto port = sys.middleman().publish(server, cfg.port, dist::host);
  if (!port) {
    std::fprintf(stderr, "server: publish failed: %s\n", to_string(port.error()).c_str());
    return 1;
  }
  side.ready(*port);
  side.wait_done();
  side.finish();
}

// -- client ------------------------------------------------------------------------

struct results {
  dist::outcome* out;
  uint64_t checksum = 0;
};

struct ping_pong_state {
  actor server;
  const dist::config* cfg;
  results* res;
  uint64_t warm_left;
  uint64_t sent = 0;
  dist::stopwatch watch;
  dist::steady::time_point t0{};
};

void ping_next(event_based_actor* self, std::shared_ptr<ping_pong_state> st) {
  if (st->warm_left > 0) {
    auto value = -static_cast<int32_t>(st->warm_left--);
    self->request(st->server, infinite, value).then([self, st](int32_t) { ping_next(self, st); });
    return;
  }
  if (st->sent == 0)
    st->watch.start();
  if (st->sent == st->cfg->ops) {
    st->watch.stop(*st->res->out);
    self->quit();
    return;
  }
  st->t0 = dist::steady::now();
  self->request(st->server, infinite, static_cast<int32_t>(++st->sent))
    .then([self, st](int32_t value) {
      st->res->out->rtt_ns.push_back(dist::nanos_between(st->t0, dist::steady::now()));
      st->res->checksum += static_cast<uint64_t>(value);
      ping_next(self, st);
    });
}

void ping_pong_client(event_based_actor* self, actor server, const dist::config* cfg,
                      results* res) {
  res->out->rtt_ns.reserve(cfg->ops);
  auto st = std::make_shared<ping_pong_state>(
    ping_pong_state{std::move(server), cfg, res, cfg->warmup, 0, {}, {}});
  ping_next(self, st);
}

behavior stream_client(event_based_actor* self, actor server, const dist::config* cfg,
                       results* res) {
  auto watch = std::make_shared<dist::stopwatch>();
  watch->start();
  if (cfg->what == dist::kind::throughput_1k) {
    std::string payload(cfg->payload, 'x');
    for (uint64_t i = 1; i <= cfg->ops; ++i)
      self->send(server, payload);
  } else {
    for (uint64_t i = 1; i <= cfg->ops; ++i)
      self->send(server, static_cast<int32_t>(i));
  }
  return {
    [self, watch, res](finished_atom, int64_t received) {
      watch->stop(*res->out);
      res->checksum = static_cast<uint64_t>(received);
      self->quit();
    },
  };
}

struct requests_state {
  actor server;
  const dist::config* cfg;
  results* res;
  uint64_t sent = 0;
  uint64_t answered = 0;
  dist::stopwatch watch;
};

void request_next(event_based_actor* self, std::shared_ptr<requests_state> st) {
  self->request(st->server, infinite, static_cast<int32_t>(++st->sent))
    .then([self, st](int32_t value) {
      st->res->checksum += static_cast<uint64_t>(value);
      if (++st->answered == st->cfg->ops) {
        st->watch.stop(*st->res->out);
        self->quit();
      } else if (st->sent < st->cfg->ops) {
        request_next(self, st);
      }
    });
}

void requests_client(event_based_actor* self, actor server, const dist::config* cfg,
                     results* res) {
  auto st = std::make_shared<requests_state>(requests_state{std::move(server), cfg, res, 0, 0, {}});
  st->watch.start();
  while (st->sent < cfg->ops && st->sent < cfg->window)
    request_next(self, st);
}

void node_loss_client(event_based_actor* self, actor server, const dist::config* cfg,
                      dist::loss_record* st) {
  auto left = std::make_shared<int>(2); // the down_msg and the last failure
  auto one_done = [self, left] {
    if (--*left == 0)
      self->quit();
  };
  self->monitor(server);
  self->set_down_handler([st, one_done](down_msg&) {
    st->down();
    one_done();
  });
  auto timeout = std::chrono::milliseconds{cfg->request_timeout_ms};
  for (uint64_t i = 0; i < cfg->ops; ++i)
    self->request(server, timeout, std::string{"wait"})
      .then([](const std::string&) { dist::die("client: an answer from the server"); },
            [st, cfg, one_done](const error&) {
              if (st->request_failed(cfg->ops))
                one_done();
            });
  // Its answer says every request above has reached the server.
  self->request(server, infinite, int32_t{1}).then([st](int32_t) { st->ready.set_value(); });
}

int run_node_loss(const dist::config& cfg, dist::client_side& peer, actor_system& sys,
                  const actor& server) {
  dist::outcome out;
  dist::loss_record st;
  auto ready = st.ready.get_future();
  sys.spawn(node_loss_client, server, &cfg, &st);
  ready.wait();
  auto killed = peer.kill_server();
  sys.await_all_actors_done();
  st.report(killed, out);
  return peer.finish(out, st.failed.load());
}

int run_client(const dist::config& cfg, dist::client_side& peer, actor_system& sys) {
  dist::outcome out;
  results res{&out};
  {
    auto server = sys.middleman().remote_actor(dist::host, peer.port());
    if (!server) {
      std::fprintf(stderr, "client: remote_actor failed: %s\n",
                   to_string(server.error()).c_str());
      return 1;
    }
    switch (cfg.what) {
      case dist::kind::node_loss:
        return run_node_loss(cfg, peer, sys, *server);
      case dist::kind::ping_pong:
        sys.spawn(ping_pong_client, *server, &cfg, &res);
        break;
      case dist::kind::throughput_small:
      case dist::kind::throughput_1k:
        sys.spawn(stream_client, *server, &cfg, &res);
        break;
      case dist::kind::requests:
        sys.spawn(requests_client, *server, &cfg, &res);
        break;
    }
  }
  sys.await_all_actors_done();
  return peer.finish(out, res.checksum);
}

} // namespace

int main(int argc, char** argv) {
  auto cfg = dist::parse(argc, argv, true);
  if (cfg.server) {
    actor_system_config sys_cfg;
    sys_cfg.load<net::middleman>();
    sys_cfg.scheduler.max_threads = cfg.threads;
    sys_cfg.net.inline_receivers = cfg.inline_receivers;
    actor_system sys{sys_cfg};
    return serve(cfg, sys);
  }
  // Spawns the server and pins this process before Troupe starts its threads.
  dist::client_side peer{cfg};
  actor_system_config sys_cfg;
  sys_cfg.load<net::middleman>();
  sys_cfg.scheduler.max_threads = cfg.threads;
  sys_cfg.net.inline_receivers = cfg.inline_receivers;
  actor_system sys{sys_cfg};
  return run_client(cfg, peer, sys);
}
