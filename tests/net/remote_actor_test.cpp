// Remote actors between two actor systems of one process, over TCP on
// 127.0.0.1: publish and remote_actor, typed handles, send and request,
// handles in messages, monitors and links, and a node that leaves.

#include "troupe/actor_factory.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/net/middleman.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/binary_serializer.hpp"
#include "troupe/typed_actor.hpp"

#include "interop_types.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;

using interop::order;

TROUPE_BEGIN_TYPE_ID_BLOCK(remote_actor_test, 2100)
  TROUPE_ADD_TYPE_ID(remote_actor_test, (interop::order))
  TROUPE_ADD_ATOM(remote_actor_test, stop_atom)
TROUPE_END_TYPE_ID_BLOCK(remote_actor_test)

namespace {

using calculator = typed_actor<result<int32_t>(add_atom, int32_t, int32_t),
                               result<int32_t>(sub_atom, int32_t, int32_t)>;

calculator::behavior_type calculator_impl() {
  return {
    [](add_atom, int32_t x, int32_t y) { return x + y; },
    [](sub_atom, int32_t x, int32_t y) { return x - y; },
  };
}

/// One node: a config that loads the network layer, and its system.
struct node {
  explicit node(std::chrono::milliseconds heartbeat = 100ms,
                bool inline_receivers = defaults::net::inline_receivers) {
    cfg.load<net::middleman>();
    cfg.net.inline_receivers = inline_receivers;
    cfg.net.heartbeat_interval = heartbeat;
    cfg.net.heartbeat_timeout = 8 * heartbeat;
    cfg.shutdown.grace_period = 200ms;
    sys = std::make_unique<actor_system>(cfg);
  }

  net::middleman& mm() {
    return sys->middleman();
  }

  actor_system_config cfg;
  std::unique_ptr<actor_system> sys;
};

/// Every test runs with the receivers of network messages on the workers
/// and on the I/O thread (troupe.net.inline-receivers).
class remote_actor_test : public ::testing::TestWithParam<bool> {
protected:
  node a{100ms, GetParam()};
  node b{100ms, GetParam()};

  /// Publishes `hdl` on b, returns a's handle to it.
  template <class Handle = actor, class Published>
  Handle connect(const Published& hdl) {
    auto port = b.mm().publish(hdl, 0);
    EXPECT_TRUE(port) << to_string(port.error());
    auto remote = a.mm().template remote_actor<Handle>("127.0.0.1", *port);
    EXPECT_TRUE(remote) << to_string(remote.error());
    return remote ? *remote : Handle{};
  }
};

} // namespace

TEST_P(remote_actor_test, a_request_to_a_remote_actor_gets_its_response) {
  auto doubler = b.sys->spawn([] { return behavior{[](int32_t x) { return 2 * x; }}; });
  auto remote = connect(doubler);
  ASSERT_TRUE(remote);
  EXPECT_NE(remote, doubler);
  scoped_actor self{*a.sys};
  int32_t result = 0;
  self->request(remote, 5s, int32_t{21})
    .receive([&](int32_t y) { result = y; },
             [](const error& err) { FAIL() << to_string(err); });
  EXPECT_EQ(result, 42);
  EXPECT_EQ(a.mm().connected_nodes(), 1u);
  anon_send_exit(doubler, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, a_typed_handle_calls_a_remote_typed_actor) {
  auto calc = b.sys->spawn(calculator_impl);
  auto remote = connect<calculator>(calc);
  ASSERT_TRUE(remote);
  scoped_actor self{*a.sys};
  int32_t sum = 0;
  int32_t diff = 0;
  self->request(remote, 5s, add_atom_v, 3, 4).receive([&](int32_t x) { sum = x; },
                                                      [](const error&) {});
  self->request(remote, 5s, sub_atom_v, 3, 4).receive([&](int32_t x) { diff = x; },
                                                      [](const error&) {});
  EXPECT_EQ(sum, 7);
  EXPECT_EQ(diff, -1);
  anon_send_exit(calc, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, a_typed_handle_that_does_not_match_names_both_interfaces) {
  using other = typed_actor<result<std::string>(get_atom)>;
  auto calc = b.sys->spawn(calculator_impl);
  auto port = b.mm().publish(calc, 0);
  ASSERT_TRUE(port);
  auto remote = a.mm().remote_actor<other>("127.0.0.1", *port);
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error(), errc::unexpected_actor_messaging_interface);
  auto text = to_string(remote.error());
  EXPECT_NE(text.find("(troupe::get_atom) -> (std::string)"), std::string::npos) << text;
  EXPECT_NE(text.find("(troupe::add_atom, int32_t, int32_t) -> (int32_t)"), std::string::npos) << text;
  anon_send_exit(calc, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, a_typed_handle_to_a_dynamically_typed_actor_is_refused) {
  auto dyn = b.sys->spawn([] { return behavior{[](int32_t x) { return x; }}; });
  auto port = b.mm().publish(dyn, 0);
  ASSERT_TRUE(port);
  auto remote = a.mm().remote_actor<calculator>("127.0.0.1", *port);
  ASSERT_FALSE(remote);
  EXPECT_NE(to_string(remote.error()).find("dynamically typed"), std::string::npos);
  anon_send_exit(dyn, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, connecting_to_a_port_nobody_listens_on_fails_with_an_error) {
  auto calc = b.sys->spawn(calculator_impl);
  auto port = b.mm().publish(calc, 0);
  ASSERT_TRUE(port);
  ASSERT_TRUE(b.mm().unpublish(*port));
  auto remote = a.mm().remote_actor("127.0.0.1", *port);
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error(), errc::cannot_connect_to_node);
  EXPECT_FALSE(b.mm().unpublish(*port));
  anon_send_exit(calc, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, publishing_an_invalid_handle_or_beyond_loopback_is_an_error) {
  EXPECT_EQ(b.mm().publish(actor{}, 0).error(), errc::cannot_publish_invalid_actor);
  auto calc = b.sys->spawn(calculator_impl);
  EXPECT_EQ(b.mm().publish(calc, 0, "0.0.0.0").error(), errc::invalid_argument);
  EXPECT_EQ(b.mm().publish(calc, 0, "no address").error(), errc::invalid_argument);
  anon_send_exit(calc, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, remote_actor_on_the_own_node_returns_the_actor_itself) {
  auto calc = b.sys->spawn(calculator_impl);
  auto port = b.mm().publish(calc, 0);
  ASSERT_TRUE(port);
  auto same = b.mm().remote_actor<calculator>("127.0.0.1", *port);
  ASSERT_TRUE(same) << to_string(same.error());
  EXPECT_EQ(*same, calc);
  anon_send_exit(calc, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, a_second_remote_actor_to_the_node_reuses_its_connection) {
  auto calc = b.sys->spawn(calculator_impl);
  auto port = b.mm().publish(calc, 0);
  ASSERT_TRUE(port);
  auto first = a.mm().remote_actor<calculator>("127.0.0.1", *port);
  auto second = a.mm().remote_actor<calculator>("127.0.0.1", *port);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(a.mm().connected_nodes(), 1u);
  anon_send_exit(calc, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, messages_of_one_sender_arrive_in_the_order_sent) {
  constexpr int32_t n = 20000;
  auto received = std::make_shared<std::vector<int32_t>>();
  auto sink = b.sys->spawn([received](event_based_actor* self) {
    return behavior{[self, received](int32_t x) {
      received->push_back(x);
      if (x == n - 1)
        self->quit();
    }};
  });
  auto remote = connect(sink);
  a.sys->spawn([remote](event_based_actor* self) {
    for (int32_t i = 0; i < n; ++i)
      self->send(remote, i);
    self->quit();
  });
  scoped_actor waiter{*b.sys};
  waiter->monitor(sink);
  waiter->receive([](const down_msg&) {}, after(30s) >> [] { FAIL() << "no down_msg"; });
  ASSERT_EQ(received->size(), static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i)
    ASSERT_EQ((*received)[i], i);
}

TEST_P(remote_actor_test, user_types_and_actor_handles_cross_the_network) {
  // b's shop answers an order by sending a receipt to the handle in it.
  auto shop = b.sys->spawn([](event_based_actor* self) {
    return behavior{[self](const order& o, const actor& customer) {
      self->send(customer, o.id, "receipt for " + o.item);
    }};
  });
  auto remote = connect(shop);
  scoped_actor self{*a.sys};
  self->send(remote, order{7, "tea"}, actor{self->ctrl()->get() ? strong_actor_ptr{self->ctrl()} : nullptr});
  std::string text;
  self->receive([&](int32_t id, const std::string& str) {
    EXPECT_EQ(id, 7);
    text = str;
  }, after(5s) >> [] { FAIL() << "no receipt"; });
  EXPECT_EQ(text, "receipt for tea");
  anon_send_exit(shop, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, current_sender_is_a_handle_the_remote_actor_can_reply_to) {
  auto echo = b.sys->spawn([](event_based_actor* self) {
    return behavior{[self](const std::string& str) {
      // Not a response: a plain send back to whoever sent it.
      self->send(actor{self->current_sender()}, str + " back");
    }};
  });
  auto remote = connect(echo);
  scoped_actor self{*a.sys};
  self->send(remote, std::string{"hello"});
  std::string text;
  self->receive([&](const std::string& str) { text = str; },
                after(5s) >> [] { FAIL() << "no reply"; });
  EXPECT_EQ(text, "hello back");
  anon_send_exit(echo, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, a_remote_request_can_be_delegated_and_answered_by_a_promise) {
  auto worker = b.sys->spawn([] { return behavior{[](int32_t x) { return x + 1; }}; });
  auto front = b.sys->spawn([worker](event_based_actor* self) {
    return behavior{
      [self, worker](int32_t x) { return self->delegate(worker, x); },
      [self](const std::string& str) {
        auto rp = self->make_response_promise();
        rp.deliver(str + "!");
        return rp;
      },
    };
  });
  auto remote = connect(front);
  scoped_actor self{*a.sys};
  int32_t y = 0;
  self->request(remote, 5s, int32_t{41}).receive([&](int32_t v) { y = v; },
                                                 [](const error& e) { FAIL() << to_string(e); });
  EXPECT_EQ(y, 42);
  std::string text;
  self->request(remote, 5s, std::string{"hi"}).receive([&](const std::string& v) { text = v; },
                                                       [](const error& e) { FAIL() << to_string(e); });
  EXPECT_EQ(text, "hi!");
  anon_send_exit(front, exit_reason::user_shutdown);
  anon_send_exit(worker, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, monitoring_a_remote_actor_reports_its_exit_reason) {
  auto target = b.sys->spawn([](event_based_actor* self) {
    return behavior{[self](stop_atom) { self->quit(exit_reason::user_shutdown); }};
  });
  auto remote = connect(target);
  scoped_actor self{*a.sys};
  self->monitor(remote);
  self->send(remote, stop_atom_v);
  error reason;
  self->receive([&](const down_msg& msg) {
    EXPECT_EQ(msg.source, remote);
    reason = msg.reason;
  }, after(5s) >> [] { FAIL() << "no down_msg"; });
  EXPECT_EQ(reason, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, a_link_to_a_remote_actor_carries_exits_both_ways) {
  auto target = b.sys->spawn([](event_based_actor* self) {
    self->set_exit_handler([self](exit_msg& msg) { self->quit(msg.reason); });
    return behavior{[self](stop_atom) { self->quit(exit_reason::kill); }};
  });
  auto remote = connect(target);
  // A local actor linked to the remote one dies with it.
  auto watcher = a.sys->spawn([remote](event_based_actor* self) {
    self->link_to(remote);
    return behavior{[](int32_t) {}};
  });
  scoped_actor self{*a.sys};
  self->monitor(watcher);
  self->send(remote, stop_atom_v);
  error reason;
  self->receive([&](const down_msg& msg) { reason = msg.reason; },
                after(5s) >> [] { FAIL() << "the linked actor stayed alive"; });
  EXPECT_EQ(reason, exit_reason::kill);
  // The other way: a local actor's exit reaches the remote actor it linked.
  auto target2 = b.sys->spawn([](event_based_actor* self) {
    self->set_exit_handler([self](exit_msg& msg) { self->quit(msg.reason); });
    return behavior{[](int32_t) {}};
  });
  auto remote2 = connect(target2);
  scoped_actor observer{*b.sys};
  observer->monitor(target2);
  auto local = a.sys->spawn([remote2](event_based_actor* self) {
    self->link_to(remote2);
    return behavior{[self](stop_atom) { self->quit(exit_reason::user_shutdown); }};
  });
  // The link is made when the actor starts; a request round trip to the
  // remote actor's node is not needed, as the exit goes the same way.
  anon_send(local, stop_atom_v);
  error reason2;
  observer->receive([&](const down_msg& msg) { reason2 = msg.reason; },
                    after(5s) >> [] { FAIL() << "the remote linked actor stayed alive"; });
  EXPECT_EQ(reason2, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, a_node_that_stops_takes_its_proxies_and_waiting_requests_with_it) {
  // b's actor never answers: the request waits until b is gone.
  auto mute = b.sys->spawn([](event_based_actor* self) {
    return behavior{[self](int32_t) { return self->make_response_promise(); }};
  });
  auto remote = connect(mute);
  scoped_actor self{*a.sys};
  self->monitor(remote);
  self->send(remote, int32_t{0});
  auto started = std::chrono::steady_clock::now();
  auto req = self->request(remote, 60s, int32_t{1});
  // Stop node b from another thread while the request waits.
  std::thread stopper{[&] {
    std::this_thread::sleep_for(100ms);
    anon_send_exit(mute, exit_reason::kill);
    b.sys.reset();
  }};
  error err;
  req.receive([](int32_t) { FAIL() << "an answer from nobody"; },
              [&](const error& e) { err = e; });
  stopper.join();
  EXPECT_TRUE(err) << "the request should fail";
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
  error reason;
  self->receive([&](const down_msg& msg) { reason = msg.reason; },
                after(10s) >> [] { FAIL() << "no down_msg"; });
  EXPECT_TRUE(reason == exit_reason::kill || reason == exit_reason::remote_link_unreachable)
    << to_string(reason);
}

TEST_P(remote_actor_test, a_graceful_shutdown_delivers_everything_sent_before_it) {
  constexpr int32_t n = 50000;
  auto count = std::make_shared<std::atomic<int32_t>>(0);
  auto sink = b.sys->spawn([count](event_based_actor*) {
    return behavior{[count](int32_t) { count->fetch_add(1); }};
  });
  auto port = b.mm().publish(sink, 0);
  ASSERT_TRUE(port);
  {
    node sender;
    auto remote = sender.mm().remote_actor("127.0.0.1", *port);
    ASSERT_TRUE(remote);
    sender.sys->spawn([r = *remote](event_based_actor* self) {
      for (int32_t i = 0; i < n; ++i)
        self->send(r, i);
      self->quit();
    });
    // The sender's system ends here: its destructor waits for the actor,
    // then the network layer flushes and says goodbye.
  }
  for (int i = 0; i < 1000 && count->load() < n; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(count->load(), n);
  anon_send_exit(sink, exit_reason::user_shutdown);
}

namespace {

/// actor_system::activity as one string, a line each.
std::string activity_of(actor_system& sys) {
  std::string out;
  for (auto& x : sys.activity())
    out += x + "\n";
  return out;
}

} // namespace

TEST_P(remote_actor_test, a_port_listening_for_a_live_published_actor_keeps_the_system) {
  auto doubler = b.sys->spawn([] { return behavior{[](int32_t x) { return 2 * x; }}; });
  auto port = b.mm().publish(doubler, 0);
  ASSERT_TRUE(port) << to_string(port.error());
  auto what = activity_of(*b.sys);
  EXPECT_NE(what.find("troupe.net.middleman: listening on port " + std::to_string(*port)
                      + " for actor#" + std::to_string(doubler.id())),
            std::string::npos)
    << what;
  // A dead actor can't be reached through the port any more.
  anon_send_exit(doubler, exit_reason::user_shutdown);
  for (int i = 0; i < 1000 && activity_of(*b.sys).find("listening") != std::string::npos; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(activity_of(*b.sys).find("listening"), std::string::npos) << activity_of(*b.sys);
}

TEST_P(remote_actor_test, a_connection_alone_does_not_keep_the_system) {
  auto doubler = b.sys->spawn([] { return behavior{[](int32_t x) { return 2 * x; }}; });
  auto remote = connect(doubler);
  ASSERT_TRUE(remote);
  scoped_actor self{*a.sys};
  self->request(remote, 5s, int32_t{1}).receive([](int32_t) {}, [](const error& err) {
    FAIL() << to_string(err);
  });
  // The peer is a handle from outside: a's system waits a grace period for
  // it, not for ever. Bytes in flight count until the kernel took them.
  auto net_lines = [&] {
    auto what = activity_of(*a.sys);
    return what.find("troupe.net.middleman") != std::string::npos;
  };
  for (int i = 0; i < 1000 && net_lines(); ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_FALSE(net_lines()) << activity_of(*a.sys);
  anon_send_exit(doubler, exit_reason::user_shutdown);
}

TEST_P(remote_actor_test, a_client_waiting_for_a_slow_remote_answer_keeps_its_system) {
  // Answers after three of a's grace periods.
  auto slow = b.sys->spawn([] {
    return behavior{[](int32_t x) {
      std::this_thread::sleep_for(600ms);
      return 2 * x;
    }};
  });
  auto remote = connect(slow);
  ASSERT_TRUE(remote);
  auto answer = std::make_shared<std::atomic<int32_t>>(0);
  a.sys->spawn([remote, answer](event_based_actor* self) {
    self->request(remote, infinite, int32_t{21}).then([self, answer](int32_t y) {
      *answer = y;
      self->quit();
    });
    return behavior{[](const std::string&) {}};
  });
  // Nothing runs on a meanwhile, but its request is out on the network.
  a.sys.reset();
  EXPECT_EQ(answer->load(), 42);
  anon_send_exit(slow, exit_reason::user_shutdown);
}

INSTANTIATE_TEST_SUITE_P(receivers, remote_actor_test, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "on_the_io_thread" : "on_workers";
                         });

namespace {

/// Node b of the third-node tests: a directory actor, published, that
/// hands out the handle it was last given.
struct directory_node {
  directory_node() {
    hdl = n.sys->spawn([] {
      auto kept = std::make_shared<actor>();
      return behavior{
        [kept](get_atom) { return *kept; },
        [kept](put_atom, const actor& x) { *kept = x; },
      };
    });
    auto p = n.mm().publish(hdl, 0);
    EXPECT_TRUE(p);
    port = p ? *p : 0;
  }

  ~directory_node() {
    anon_send_exit(hdl, exit_reason::user_shutdown);
  }

  /// What the directory hands to node `x`.
  actor ask_from(node& x) {
    auto remote = x.mm().remote_actor("127.0.0.1", port);
    EXPECT_TRUE(remote) << to_string(remote.error());
    actor got;
    scoped_actor self{*x.sys};
    self->request(*remote, 10s, get_atom_v)
      .receive([&](const actor& y) { got = y; },
               [](const error& err) { FAIL() << to_string(err); });
    return got;
  }

  node n;
  actor hdl;
  uint16_t port = 0;
};

/// `hdl`'s answer to 41 (an increment), or the error.
expected<int32_t> ask_41(node& from, const actor& hdl) {
  scoped_actor self{*from.sys};
  expected<int32_t> result{int32_t{0}};
  self->request(hdl, 10s, int32_t{41})
    .receive([&](int32_t x) { result = x; }, [&](const error& err) { result = err; });
  return result;
}

/// Node c publishes `echo`; b's directory hands out b's handle of it.
class remote_actor_third_node : public ::testing::Test {
protected:
  void SetUp() override {
    echo = c.sys->spawn([] { return behavior{[](int32_t x) { return x + 1; }}; });
    auto port = c.mm().publish(echo, 0);
    ASSERT_TRUE(port);
    echo_port = *port;
    auto b_handle = b.n.mm().remote_actor("127.0.0.1", echo_port);
    ASSERT_TRUE(b_handle);
    anon_send(b.hdl, put_atom_v, *b_handle);
  }

  void TearDown() override {
    anon_send_exit(echo, exit_reason::user_shutdown);
  }

  node c;
  actor echo;
  uint16_t echo_port = 0;
  directory_node b;
};

} // namespace

TEST_F(remote_actor_third_node, a_handle_of_a_third_node_reaches_it_directly) {
  // a talks to c as well: the handle is a's own handle of c's actor.
  node a;
  auto a_to_echo = a.mm().remote_actor("127.0.0.1", echo_port);
  ASSERT_TRUE(a_to_echo);
  auto via_b = b.ask_from(a);
  EXPECT_EQ(via_b, *a_to_echo);
  EXPECT_EQ(ask_41(a, via_b), int32_t{42});
  // d knows only b: it connects to c itself, and what it sends meanwhile
  // waits for the connection.
  node d;
  auto d_handle = b.ask_from(d);
  ASSERT_TRUE(d_handle);
  EXPECT_EQ(ask_41(d, d_handle), int32_t{42});
  EXPECT_EQ(d.mm().connected_nodes(), 2u);
  // c's own actor, handed back to c, is the actor itself.
  EXPECT_EQ(b.ask_from(c), echo);
}

TEST_F(remote_actor_third_node, a_third_node_that_cannot_be_reached_fails_what_was_sent_to_it) {
  // c stops listening: the port b knows it by refuses a.
  ASSERT_TRUE(c.mm().unpublish(echo_port));
  node a;
  auto via_b = b.ask_from(a);
  ASSERT_TRUE(via_b);
  auto answer = ask_41(a, via_b);
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error(), errc::cannot_connect_to_node) << to_string(answer.error());
  // A node that listens nowhere: its actors' handles arrive invalid.
  node e;
  auto e_actor = e.sys->spawn([] { return behavior{[](int32_t x) { return x; }}; });
  {
    auto dir = e.mm().remote_actor("127.0.0.1", b.port);
    ASSERT_TRUE(dir);
    scoped_actor self{*e.sys};
    self->request(*dir, 10s, put_atom_v, e_actor).receive([] {}, [](const error&) {});
  }
  node f;
  EXPECT_FALSE(b.ask_from(f));
  anon_send_exit(e_actor, exit_reason::user_shutdown);
}

TEST(remote_actor_io, a_handler_that_blocks_on_the_io_thread_does_not_hold_up_the_connections) {
  // b's I/O thread runs `blocker` inline, and it blocks for longer than
  // the heartbeat timeout: b's standby I/O thread must take over, answer
  // the request to `echo` and keep the heartbeats going.
  node a{100ms, true};
  node b{100ms, true};
  auto started = std::make_shared<std::promise<void>>();
  auto release = std::make_shared<std::promise<void>>();
  auto blocker = b.sys->spawn([started, release] {
    return behavior{[started, release](int32_t) {
      started->set_value();
      release->get_future().wait();
    }};
  });
  auto echo = b.sys->spawn([] { return behavior{[](int32_t x) { return x; }}; });
  auto blocker_port = b.mm().publish(blocker, 0);
  auto echo_port = b.mm().publish(echo, 0);
  ASSERT_TRUE(blocker_port && echo_port);
  auto remote_blocker = a.mm().remote_actor("127.0.0.1", *blocker_port);
  auto remote_echo = a.mm().remote_actor("127.0.0.1", *echo_port);
  ASSERT_TRUE(remote_blocker && remote_echo);
  scoped_actor self{*a.sys};
  self->monitor(*remote_echo);
  self->send(*remote_blocker, int32_t{0});
  ASSERT_EQ(started->get_future().wait_for(10s), std::future_status::ready);
  int32_t answer = 0;
  self->request(*remote_echo, 10s, int32_t{7})
    .receive([&](int32_t x) { answer = x; }, [](const error& err) { FAIL() << to_string(err); });
  EXPECT_EQ(answer, 7);
  // Still blocked, beyond the heartbeat timeout (800 ms): the node lives.
  bool down = false;
  self->receive([&](const down_msg&) { down = true; }, after(2s) >> [] {});
  EXPECT_FALSE(down) << "node b counted as lost while one of its actors blocked";
  EXPECT_EQ(a.mm().connected_nodes(), 1u);
  release->set_value();
  anon_send_exit(blocker, exit_reason::user_shutdown);
  anon_send_exit(echo, exit_reason::user_shutdown);
}

TEST(remote_actor_io, a_handler_on_the_io_thread_may_call_the_network_layer_and_wait) {
  // `connector` runs on b's I/O thread and waits there for a connection
  // that only an I/O thread can make: the standby takes over and makes it.
  node a{100ms, true};
  node b{100ms, true};
  node c{100ms, true};
  auto echo = c.sys->spawn([] { return behavior{[](int32_t x) { return x; }}; });
  auto echo_port = c.mm().publish(echo, 0);
  ASSERT_TRUE(echo_port);
  auto connector = b.sys->spawn([port = *echo_port](event_based_actor* self) {
    return behavior{[self, port](int32_t) -> std::string {
      auto remote = self->system().middleman().remote_actor("127.0.0.1", port);
      return remote ? "connected" : to_string(remote.error());
    }};
  });
  auto connector_port = b.mm().publish(connector, 0);
  ASSERT_TRUE(connector_port);
  auto remote = a.mm().remote_actor("127.0.0.1", *connector_port);
  ASSERT_TRUE(remote);
  scoped_actor self{*a.sys};
  std::string answer;
  self->request(*remote, 30s, int32_t{1})
    .receive([&](const std::string& x) { answer = x; },
             [&](const error& err) { answer = to_string(err); });
  EXPECT_EQ(answer, "connected");
  anon_send_exit(connector, exit_reason::user_shutdown);
  anon_send_exit(echo, exit_reason::user_shutdown);
}

TEST(remote_actor, sys_middleman_without_the_module_loaded_throws) {
  actor_system_config cfg;
  actor_system sys{cfg};
  EXPECT_THROW(sys.middleman(), std::logic_error);
}

TEST(remote_actor_flow, a_fast_sender_to_a_slow_remote_receiver_keeps_both_buffers_bounded) {
  // b's receiver is slow and its mailbox bounded; a's connection holds at
  // most 256 KiB before its sender is muted.
  constexpr int rounds = 200;
  constexpr int per_round = 100;
  actor_system_config b_cfg;
  b_cfg.load<net::middleman>();
  b_cfg.shutdown.grace_period = 200ms;
  actor_system b{b_cfg};
  auto received = std::make_shared<std::atomic<int>>(0);
  auto most_queued = std::make_shared<std::atomic<size_t>>(0);
  auto slow = b.spawn(mailbox_limit{500}, [received, most_queued](event_based_actor* self) {
    return behavior{[self, received, most_queued](int32_t, const std::string&) {
      auto queued = self->mailbox_size();
      if (queued > most_queued->load())
        most_queued->store(queued);
      std::this_thread::sleep_for(20us);
      received->fetch_add(1);
    }};
  });
  auto port = b.middleman().publish(slow, 0);
  ASSERT_TRUE(port);
  actor_system_config a_cfg;
  a_cfg.load<net::middleman>();
  a_cfg.net.send_buffer = 256 * 1024;
  a_cfg.shutdown.grace_period = 200ms;
  actor_system a{a_cfg};
  auto remote = a.middleman().remote_actor("127.0.0.1", *port);
  ASSERT_TRUE(remote);
  auto most_buffered = std::make_shared<std::atomic<size_t>>(0);
  auto& mm = a.middleman();
  a.spawn([r = *remote, most_buffered, &mm](event_based_actor* self) {
    auto round = std::make_shared<int>(0);
    self->send(self, ok_atom_v);
    return behavior{[self, r, round, most_buffered, &mm](ok_atom) {
      auto buffered = mm.buffered_bytes();
      if (buffered > most_buffered->load())
        most_buffered->store(buffered);
      std::string pad(1024, 'x');
      for (int i = 0; i < per_round; ++i)
        self->send(r, int32_t{i}, pad);
      if (++*round < rounds)
        self->send(self, ok_atom_v);
      else
        self->quit();
    }};
  });
  for (int i = 0; i < 3000 && received->load() < rounds * per_round; ++i)
    std::this_thread::sleep_for(10ms);
  EXPECT_EQ(received->load(), rounds * per_round);
  // One round (about 110 KB) may go over the bound before the sender pauses.
  EXPECT_LT(most_buffered->load(), 256u * 1024 + 2 * per_round * 1100);
  // The reading pauses while the receiver's mailbox is full: it holds at
  // most its bound plus one read's frames.
  EXPECT_LT(most_queued->load(), 500u + 70);
  anon_send_exit(slow, exit_reason::user_shutdown);
}

namespace {

/// Two nodes where b has a named actor and a spawnable actor type.
struct registry_nodes {
  registry_nodes() {
    b_cfg.load<net::middleman>();
    b_cfg.add_actor_type("calculator", calculator_impl);
    b_cfg.add_actor_type("adder", [](int32_t base) {
      return behavior{[base](int32_t x) { return base + x; }};
    });
    b_cfg.shutdown.grace_period = 200ms;
    b = std::make_unique<actor_system>(b_cfg);
    a_cfg.load<net::middleman>();
    a_cfg.shutdown.grace_period = 200ms;
    a = std::make_unique<actor_system>(a_cfg);
  }

  actor_system_config b_cfg;
  actor_system_config a_cfg;
  std::unique_ptr<actor_system> b;
  std::unique_ptr<actor_system> a;
};

} // namespace

TEST(remote_registry, a_named_actor_is_found_from_another_node) {
  registry_nodes n;
  auto calc = n.b->spawn(calculator_impl);
  n.b->registry().put("calc", calc);
  EXPECT_EQ(n.b->registry().get<calculator>("calc"), calc);
  auto port = n.b->middleman().open(0);
  ASSERT_TRUE(port) << to_string(port.error());
  auto node = n.a->middleman().connect("127.0.0.1", *port);
  ASSERT_TRUE(node) << to_string(node.error());
  EXPECT_EQ(*node, n.b->middleman().this_node());
  auto found = n.a->middleman().remote_lookup<calculator>("calc", *node);
  ASSERT_TRUE(found) << to_string(found.error());
  scoped_actor self{*n.a};
  int32_t sum = 0;
  self->request(*found, 5s, add_atom_v, 20, 22).receive([&](int32_t x) { sum = x; },
                                                        [](const error&) {});
  EXPECT_EQ(sum, 42);
  auto missing = n.a->middleman().remote_lookup("nobody", *node);
  ASSERT_FALSE(missing);
  EXPECT_NE(to_string(missing.error()).find("nobody"), std::string::npos);
  using other = typed_actor<result<std::string>(get_atom)>;
  auto wrong = n.a->middleman().remote_lookup<other>("calc", *node);
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.error(), errc::unexpected_actor_messaging_interface);
  anon_send_exit(calc, exit_reason::user_shutdown);
}

TEST(remote_registry, an_actor_type_is_spawned_on_another_node_by_name) {
  registry_nodes n;
  auto port = n.b->middleman().open(0);
  ASSERT_TRUE(port);
  auto node = n.a->middleman().connect("127.0.0.1", *port);
  ASSERT_TRUE(node);
  auto calc = n.a->middleman().remote_spawn<calculator>(*node, "calculator");
  ASSERT_TRUE(calc) << to_string(calc.error());
  auto adder = n.a->middleman().remote_spawn(*node, "adder", int32_t{40});
  ASSERT_TRUE(adder) << to_string(adder.error());
  scoped_actor self{*n.a};
  int32_t x = 0;
  int32_t y = 0;
  self->request(*calc, 5s, sub_atom_v, 50, 8).receive([&](int32_t v) { x = v; },
                                                      [](const error&) {});
  self->request(*adder, 5s, int32_t{2}).receive([&](int32_t v) { y = v; },
                                                [](const error&) {});
  EXPECT_EQ(x, 42);
  EXPECT_EQ(y, 42);
  auto unknown = n.a->middleman().remote_spawn(*node, "no-such-type");
  ASSERT_FALSE(unknown);
  EXPECT_NE(to_string(unknown.error()).find("no-such-type"), std::string::npos);
  auto bad_args = n.a->middleman().remote_spawn(*node, "adder", std::string{"forty"});
  ASSERT_FALSE(bad_args);
  EXPECT_EQ(bad_args.error(), errc::invalid_argument);
  EXPECT_NE(to_string(bad_args.error()).find("takes (int32_t)"), std::string::npos)
    << to_string(bad_args.error());
  anon_send_exit(*calc, exit_reason::user_shutdown);
  anon_send_exit(*adder, exit_reason::user_shutdown);
}

TEST(remote_registry, lookups_need_a_connection_first) {
  registry_nodes n;
  auto stranger = net::node_id::make();
  auto found = n.a->middleman().remote_lookup("calc", stranger);
  ASSERT_FALSE(found);
  EXPECT_EQ(found.error(), errc::cannot_connect_to_node);
}
