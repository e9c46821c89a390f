// The distributed study's CAF program (0.17 and 1.x from one source): CAF's
// own remoting, the io module's middleman. The server publishes one actor
// on 127.0.0.1 (`publish`), the client reaches it with `remote_actor` and
// talks to it from one event-based actor, as a CAF user would:
//
//   ping_pong         request(int) answered with the same int, one at a time
//   throughput_small  N plain messages (an int); the N-th is answered with
//                     (finished, N) as a message to the sender
//   throughput_1k     the same with a std::string of --payload bytes
//   requests          request(int) answered with the same int, --window at once
//   node_loss         --requests requests the server keeps unanswered, then
//                     SIGKILL of the server: the time to the down message of
//                     a monitor and to the failure of the last request

#include "common/caf_compat.hpp"
#include "distributed/common/peer.hpp"

#include <caf/io/all.hpp>

#include <algorithm>
#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(distributed, caf::first_custom_type_id)
  CAF_ADD_ATOM(distributed, finished_atom)
CAF_END_TYPE_ID_BLOCK(distributed)
#else
using finished_atom = caf::atom_constant<caf::atom("finished")>;
constexpr finished_atom finished_atom_v{};
#endif

namespace {

// -- server ------------------------------------------------------------------------

caf::behavior echo_server(caf::event_based_actor*, dist::server_side* side, uint64_t ops) {
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
void count_one(caf::event_based_actor* self, dist::server_side* side, uint64_t ops,
               uint64_t& count) {
  side->begin();
  if (++count == ops) {
    caf_compat::tell(self, caf::actor_cast<caf::actor>(self->current_sender()),
                     finished_atom_v, static_cast<int64_t>(count));
    side->done();
  }
}

caf::behavior small_sink(caf::event_based_actor* self, dist::server_side* side,
                         uint64_t ops) {
  auto count = std::make_shared<uint64_t>(0);
  return {
    [=](int32_t) { count_one(self, side, ops, *count); },
  };
}

caf::behavior payload_sink(caf::event_based_actor* self, dist::server_side* side,
                           uint64_t ops, uint64_t payload) {
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
caf::behavior loss_server(caf::event_based_actor* self) {
  auto kept = std::make_shared<std::vector<caf::response_promise>>();
  return {
    [](int32_t value) { return value; },
    [self, kept](const std::string&) {
      kept->push_back(self->make_response_promise());
      return kept->back();
    },
  };
}

int serve(const dist::config& cfg, caf::actor_system& sys) {
  dist::server_side side{cfg};
  caf::actor server;
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

class ping_pong_client : public caf::event_based_actor {
public:
  ping_pong_client(caf::actor_config& cfg, caf::actor server, const dist::config* c,
                   results* res)
    : caf::event_based_actor(cfg), server_(std::move(server)), cfg_(c), res_(res),
      warm_left_(c->warmup) {
  }

  // No behavior: the actor lives as long as it awaits a response.
  caf::behavior make_behavior() override {
    res_->out->rtt_ns.reserve(cfg_->ops);
    next();
    return {};
  }

private:
  void next() {
    if (warm_left_ > 0) {
      auto value = -static_cast<int32_t>(warm_left_--);
      caf_compat::ask(this, server_, value).then([this](int32_t) { next(); });
      return;
    }
    if (sent_ == 0)
      watch_.start();
    if (sent_ == cfg_->ops) {
      watch_.stop(*res_->out);
      quit();
      return;
    }
    t0_ = dist::steady::now();
    caf_compat::ask(this, server_, static_cast<int32_t>(++sent_))
      .then([this](int32_t value) {
        res_->out->rtt_ns.push_back(dist::nanos_between(t0_, dist::steady::now()));
        res_->checksum += static_cast<uint64_t>(value);
        next();
      });
  }

  caf::actor server_;
  const dist::config* cfg_;
  results* res_;
  uint64_t warm_left_;
  uint64_t sent_ = 0;
  dist::stopwatch watch_;
  dist::steady::time_point t0_{};
};

class stream_client : public caf::event_based_actor {
public:
  stream_client(caf::actor_config& cfg, caf::actor server, const dist::config* c,
                results* res)
    : caf::event_based_actor(cfg), server_(std::move(server)), cfg_(c), res_(res) {
  }

  caf::behavior make_behavior() override {
    watch_.start();
    if (cfg_->what == dist::kind::throughput_1k) {
      std::string payload(cfg_->payload, 'x');
      for (uint64_t i = 1; i <= cfg_->ops; ++i)
        caf_compat::tell(this, server_, payload);
    } else {
      for (uint64_t i = 1; i <= cfg_->ops; ++i)
        caf_compat::tell(this, server_, static_cast<int32_t>(i));
    }
    return {
      [this](finished_atom, int64_t received) {
        watch_.stop(*res_->out);
        res_->checksum = static_cast<uint64_t>(received);
        quit();
      },
    };
  }

private:
  caf::actor server_;
  const dist::config* cfg_;
  results* res_;
  dist::stopwatch watch_;
};

class requests_client : public caf::event_based_actor {
public:
  requests_client(caf::actor_config& cfg, caf::actor server, const dist::config* c,
                  results* res)
    : caf::event_based_actor(cfg), server_(std::move(server)), cfg_(c), res_(res) {
  }

  caf::behavior make_behavior() override {
    watch_.start();
    while (sent_ < cfg_->ops && sent_ < cfg_->window)
      request_next();
    return {};
  }

private:
  void request_next() {
    caf_compat::ask(this, server_, static_cast<int32_t>(++sent_))
      .then([this](int32_t value) {
        res_->checksum += static_cast<uint64_t>(value);
        if (++answered_ == cfg_->ops) {
          watch_.stop(*res_->out);
          quit();
        } else if (sent_ < cfg_->ops) {
          request_next();
        }
      });
  }

  caf::actor server_;
  const dist::config* cfg_;
  results* res_;
  uint64_t sent_ = 0;
  uint64_t answered_ = 0;
  dist::stopwatch watch_;
};

void node_loss_client(caf::event_based_actor* self, caf::actor server, const dist::config* cfg,
                      dist::loss_record* st) {
  auto left = std::make_shared<int>(2); // the down message and the last failure
  auto one_done = [self, left] {
    if (--*left == 0)
      self->quit();
  };
#if CAF_MAJOR_VERSION >= 1
  self->monitor(server, [st, one_done](const caf::error&) {
    st->down();
    one_done();
  });
#else
  self->monitor(server);
  self->set_down_handler([st, one_done](caf::down_msg&) {
    st->down();
    one_done();
  });
#endif
  auto timeout = std::chrono::milliseconds{cfg->request_timeout_ms};
  for (uint64_t i = 0; i < cfg->ops; ++i) {
#if CAF_MAJOR_VERSION >= 1
    auto req = self->mail(std::string{"wait"}).request(server, timeout);
#else
    auto req = self->request(server, timeout, std::string{"wait"});
#endif
    std::move(req).then([](const std::string&) { dist::die("client: an answer from the server"); },
             [st, cfg, one_done](const caf::error&) {
               if (st->request_failed(cfg->ops))
                 one_done();
             });
  }
  // Its answer says every request above has reached the server.
  caf_compat::ask(self, server, int32_t{1}).then([st](int32_t) { st->ready.set_value(); });
}

int run_node_loss(const dist::config& cfg, dist::client_side& peer, caf::actor_system& sys,
                  const caf::actor& server) {
  dist::outcome out;
  dist::loss_record st;
  auto ready = st.ready.get_future();
  sys.spawn(node_loss_client, server, &cfg, &st);
  ready.wait();
  auto killed = peer.kill_server();
  caf_compat::await_running_actors(sys, 0);
  st.report(killed, out);
  return peer.finish(out, st.failed.load());
}

int run_client(const dist::config& cfg, dist::client_side& peer, caf::actor_system& sys) {
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
        sys.spawn<ping_pong_client>(*server, &cfg, &res);
        break;
      case dist::kind::throughput_small:
      case dist::kind::throughput_1k:
        sys.spawn<stream_client>(*server, &cfg, &res);
        break;
      case dist::kind::requests:
        sys.spawn<requests_client>(*server, &cfg, &res);
        break;
    }
  }
  caf_compat::await_running_actors(sys, 0);
  return peer.finish(out, res.checksum);
}

} // namespace

int main(int argc, char** argv) {
  auto cfg = dist::parse(argc, argv, true);
  BENCH_CAF_INIT_META_OBJECTS(distributed);
#if CAF_MAJOR_VERSION >= 1
  caf::io::middleman::init_global_meta_objects();
#endif
  if (cfg.server) {
    caf::actor_system_config sys_cfg;
    sys_cfg.load<caf::io::middleman>();
    caf_compat::set_max_threads(sys_cfg, cfg.threads);
    caf::actor_system sys{sys_cfg};
    return serve(cfg, sys);
  }
  // Spawns the server and pins this process before CAF starts its threads.
  dist::client_side peer{cfg};
  caf::actor_system_config sys_cfg;
  sys_cfg.load<caf::io::middleman>();
  caf_compat::set_max_threads(sys_cfg, cfg.threads);
  caf::actor_system sys{sys_cfg};
  return run_client(cfg, peer, sys);
}
