#include "troupe/scheduled_actor.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/anon_mail.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/stateful_actor.hpp"

#include "troupe/test/fixture/deterministic.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <thread>
#include <utility>
#include <vector>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::holds;
using troupe::test::patience;

namespace {

class scheduled_actors : public troupe::test::actor_fixture {};

// -- spawning ---------------------------------------------------------------------

class adder : public event_based_actor {
public:
  adder(actor_config& cfg, int offset) : event_based_actor(cfg), offset_(offset) {}

protected:
  behavior make_behavior() override {
    return {[this](int x) { return x + offset_; }};
  }

private:
  int offset_;
};

class idle_actor : public event_based_actor {
public:
  using event_based_actor::event_based_actor;
};

TEST_P(scheduled_actors, a_function_based_actor_answers_with_the_behavior_it_returns) {
  auto doubler = sys.spawn([] { return behavior{[](int x) { return 2 * x; }}; });
  auto offset = sys.spawn(
    [](event_based_actor*, int n) { return behavior{[n](int x) { return x + n; }}; }, 100);
  EXPECT_TRUE(holds(ask<int>(doubler, 21), 42));
  EXPECT_TRUE(holds(ask<int>(offset, 1), 101));
}

TEST_P(scheduled_actors, a_class_based_actor_gets_its_constructor_arguments) {
  auto a = sys.spawn<adder>(10);
  EXPECT_TRUE(holds(ask<int>(a, 5), 15));
  EXPECT_TRUE(holds(ask<int>(a, -10), 0));
}

TEST_P(scheduled_actors, an_actor_whose_initial_behavior_is_empty_terminates_normally) {
  auto from_function = sys.spawn([](event_based_actor*) {});
  auto from_class = sys.spawn<idle_actor>();
  self->monitor(from_function);
  self->monitor(from_class);
  for (int i = 0; i < 2; ++i) {
    auto down = next<down_msg>();
    EXPECT_TRUE(down.source == from_function.address() || down.source == from_class.address());
    EXPECT_EQ(down.reason, exit_reason::normal);
  }
}

// -- behaviors ----------------------------------------------------------------------

TEST_P(scheduled_actors, become_replaces_the_current_behavior) {
  auto a = sys.spawn([](event_based_actor* a) {
    return behavior{[a](int x) {
      a->become([](int y) { return -y; });
      return x;
    }};
  });
  EXPECT_TRUE(holds(ask<int>(a, 5), 5));
  EXPECT_TRUE(holds(ask<int>(a, 5), -5));
  EXPECT_TRUE(holds(ask<int>(a, 5), -5));
}

TEST_P(scheduled_actors, become_with_keep_behavior_stacks_and_unbecome_returns) {
  auto a = sys.spawn([](event_based_actor* a) {
    return behavior{[a](int x) {
      a->become(keep_behavior, [a](int y) {
        a->unbecome();
        return -y;
      });
      return x;
    }};
  });
  EXPECT_TRUE(holds(ask<int>(a, 5), 5));
  EXPECT_TRUE(holds(ask<int>(a, 5), -5));
  EXPECT_TRUE(holds(ask<int>(a, 5), 5));
  EXPECT_TRUE(holds(ask<int>(a, 5), -5));
}

TEST_P(scheduled_actors, unbecome_of_the_last_behavior_terminates_the_actor_normally) {
  auto a = sys.spawn([](event_based_actor* a) {
    return behavior{[a](int x) {
      a->unbecome();
      return x;
    }};
  });
  self->monitor(a);
  EXPECT_TRUE(holds(ask<int>(a, 7), 7));
  EXPECT_EQ(next<down_msg>().reason, exit_reason::normal);
}

TEST_P(scheduled_actors, or_else_tries_the_first_behavior_before_the_second) {
  auto a = sys.spawn([] {
    behavior first{[](int x) { return x + 1; }};
    behavior second{[](int x) { return x + 2; },
                    [](const std::string& s) { return static_cast<int>(s.size()); }};
    return first.or_else(second);
  });
  EXPECT_TRUE(holds(ask<int>(a, 1), 2));
  EXPECT_TRUE(holds(ask<int>(a, "abc"), 3));
}

TEST_P(scheduled_actors, the_default_handler_answers_an_unmatched_request_with_unexpected_message) {
  auto a = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  EXPECT_EQ(ask<int>(a, "no handler for this").error(), errc::unexpected_message);
  EXPECT_TRUE(holds(ask<int>(a, 1), 1)) << "print_and_drop keeps the actor alive";
}

TEST_P(scheduled_actors, the_drop_default_handler_also_answers_with_unexpected_message) {
  auto a = sys.spawn([](event_based_actor* a) {
    a->set_default_handler(drop);
    return behavior{[](int x) { return x; }};
  });
  EXPECT_EQ(ask<int>(a, 1.5).error(), errc::unexpected_message);
  EXPECT_TRUE(holds(ask<int>(a, 2), 2));
}

// -- requests from event-based actors -------------------------------------------------

/// Answers int requests only after it got a string; holds them until then.
struct gate_state {
  std::vector<std::pair<response_promise, int>> held;
  bool open = false;
};

behavior gate(stateful_actor<gate_state>* self) {
  return {
    [self](int x) -> result<int> {
      if (self->state.open)
        return x;
      self->state.held.emplace_back(self->make_response_promise(), x);
      return delegated<int>{};
    },
    [self](const std::string&) {
      self->state.open = true;
      for (auto& [promise, x] : self->state.held)
        promise.deliver(x);
      self->state.held.clear();
    },
  };
}

/// Takes int requests and never answers them (without keeping them: a kept
/// request would keep its sender alive).
behavior never_answers() {
  return {[](int) { return delegated<int>{}; }};
}

TEST_P(scheduled_actors, then_gets_the_response_value) {
  auto server = sys.spawn([] { return behavior{[](int x) { return x * 2; }}; });
  sys.spawn([=, r = reporter](event_based_actor* a) {
    a->request(server, patience, 21).then([=](int x) { a->send(r, x); });
  });
  EXPECT_EQ(next<int>(), 42);
}

TEST_P(scheduled_actors, a_request_to_an_invalid_handle_gets_invalid_argument) {
  auto client = sys.spawn([r = reporter](event_based_actor* a) {
    a->request(actor{}, patience, 1).then([=](int) { a->send(r, "a value"s); },
                                          [=](error& err) { a->send(r, err); });
  });
  EXPECT_EQ(next<error>(), errc::invalid_argument);
}

TEST_P(scheduled_actors, responses_arriving_out_of_order_each_reach_their_own_handler) {
  // Holds three requests, then answers them newest first.
  auto server = sys.spawn([](stateful_actor<gate_state>* s) {
    return behavior{[s](int x) {
      auto promise = s->make_response_promise();
      s->state.held.emplace_back(promise, x);
      if (s->state.held.size() == 3) {
        for (auto i = s->state.held.rbegin(); i != s->state.held.rend(); ++i)
          i->first.deliver(i->second * 10);
        s->state.held.clear();
      }
      return promise;
    }};
  });
  sys.spawn([=, r = reporter](event_based_actor* c) {
    for (int i = 1; i <= 3; ++i)
      c->request(server, patience, i).then([=](int x) { c->send(r, i, x); });
  });
  for (int want = 3; want >= 1; --want) {
    int handler = 0;
    int value = 0;
    self->receive(
      [&](int i, int x) {
        handler = i;
        value = x;
      },
      after(patience) >> [] { ADD_FAILURE() << "no response reported"; });
    EXPECT_EQ(handler, want);
    EXPECT_EQ(value, handler * 10);
  }
}

TEST_P(scheduled_actors, handlers_set_out_of_request_order_each_get_their_own_response) {
  // Many requests in flight, handlers attached in reverse, responses in any
  // order, some requests timing out: each handler runs once, with its own.
  auto server = sys.spawn([] { return behavior{[](int x) { return x * 2; }}; });
  constexpr int n = 2'000;
  sys.spawn([=, r = reporter](event_based_actor* c) {
    auto good = std::make_shared<int>(0);
    auto left = std::make_shared<int>(n + 1);
    auto done = [=] {
      if (--*left == 0)
        c->send(r, *good);
    };
    std::vector<decltype(c->request(server, patience, 0))> handles;
    handles.reserve(n);
    for (int i = 0; i < n; ++i)
      handles.push_back(c->request(server, patience, i));
    for (int i = n - 1; i >= 0; --i)
      handles[static_cast<size_t>(i)].then(
          [=](int y) {
            *good += y == 2 * i;
            done();
          },
          [=](error&) { done(); });
    // A request nobody answers in between: it times out alone.
    c->request(actor{}, patience, 0).then([=](int) {}, [=](error&) {
      ++*good;
      done();
    });
  });
  EXPECT_EQ(next<int>(), n + 1);
}

TEST_P(scheduled_actors, a_response_of_the_wrong_type_gives_unexpected_response) {
  auto server = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  sys.spawn([=, r = reporter](event_based_actor* c) {
    c->request(server, patience, 1).then([=](const std::string&) { c->send(r, "a string"s); },
                                         [=](error& err) { c->send(r, err); });
  });
  EXPECT_EQ(next<error>(), errc::unexpected_response);
}

TEST_P(scheduled_actors, an_error_returned_by_a_handler_reaches_the_requesters_error_handler) {
  auto server = sys.spawn([] {
    return behavior{[](int) -> result<int> { return make_error(errc::runtime_error, "no luck"); }};
  });
  sys.spawn([=, r = reporter](event_based_actor* c) {
    c->request(server, patience, 1).then([=](int) { c->send(r, "a value"s); },
                                         [=](error& err) { c->send(r, err); });
  });
  auto err = next<error>();
  EXPECT_EQ(err, errc::runtime_error);
  EXPECT_EQ(err.context(), "no luck");
}

TEST_P(scheduled_actors, a_request_error_without_own_handler_goes_to_the_error_handler) {
  auto server = sys.spawn([] {
    return behavior{[](int) -> result<int> { return make_error(errc::runtime_error); }};
  });
  sys.spawn([=, r = reporter](event_based_actor* c) {
    c->set_error_handler([=](error& err) { c->send(r, err); });
    c->request(server, patience, 1).then([=](int) { c->send(r, "a value"s); });
  });
  EXPECT_EQ(next<error>(), errc::runtime_error);
}

TEST_P(scheduled_actors, a_request_error_nobody_handles_terminates_the_requester_with_it) {
  auto server = sys.spawn([] {
    return behavior{[](int) -> result<int> { return make_error(errc::runtime_error); }};
  });
  auto client = sys.spawn([=](event_based_actor* c) {
    c->request(server, patience, 1).then([](int) {});
    return behavior{[](const std::string&) {}};
  });
  self->monitor(client);
  EXPECT_EQ(next<down_msg>().reason, errc::runtime_error);
}

// -- failures and termination -----------------------------------------------------------

TEST_P(scheduled_actors, an_unhandled_exception_terminates_the_actor_and_fails_the_request) {
  auto thrower = sys.spawn([] {
    return behavior{[](int) -> int { throw std::runtime_error("boom"); }};
  });
  self->monitor(thrower);
  auto res = ask<int>(thrower, 1);
  ASSERT_FALSE(res);
  EXPECT_EQ(res.error(), exit_reason::unhandled_exception);
  auto down = next<down_msg>();
  EXPECT_TRUE(down.source == thrower.address());
  EXPECT_EQ(down.reason, exit_reason::unhandled_exception);
  EXPECT_EQ(ask<int>(thrower, 2).error(), errc::actor_down);
}

TEST_P(scheduled_actors, an_exception_handler_returning_no_error_keeps_the_actor_alive) {
  auto handled = std::make_shared<std::atomic<int>>(0);
  auto a = sys.spawn([handled](event_based_actor* a) {
    a->set_exception_handler([handled](std::exception_ptr&) {
      ++*handled;
      return error{};
    });
    return behavior{[](int x) -> int {
      if (x < 0)
        throw std::runtime_error("negative");
      return x;
    }};
  });
  auto res = ask<int>(a, -1);
  EXPECT_FALSE(res) << "the request that threw gets no value";
  EXPECT_EQ(handled->load(), 1);
  EXPECT_TRUE(holds(ask<int>(a, 3), 3));
}

TEST_P(scheduled_actors, an_exception_handler_returning_an_error_terminates_with_it) {
  auto a = sys.spawn([](event_based_actor* a) {
    a->set_exception_handler(
      [](std::exception_ptr&) { return make_error(exit_reason::user_shutdown, "handled"); });
    return behavior{[](int) -> int { throw std::runtime_error("boom"); }};
  });
  self->monitor(a);
  EXPECT_EQ(ask<int>(a, 1).error(), exit_reason::user_shutdown);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
}

TEST_P(scheduled_actors, an_exception_in_the_initial_function_terminates_the_actor) {
  auto a = sys.spawn([](event_based_actor*) -> behavior { throw std::runtime_error("no start"); });
  self->monitor(a);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::unhandled_exception);
}

TEST_P(scheduled_actors, quit_in_the_initial_function_terminates_with_its_reason) {
  auto a = sys.spawn([](event_based_actor* a) {
    a->quit(exit_reason::user_shutdown);
    return behavior{[](int x) { return x; }};
  });
  self->monitor(a);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
}

TEST_P(scheduled_actors, quit_terminates_with_its_reason_after_the_current_message) {
  auto a = sys.spawn([](event_based_actor* a) {
    return behavior{[a](int x) {
      a->quit(exit_reason::user_shutdown);
      return x + 1;
    }};
  });
  self->monitor(a);
  auto first = self->request(a, patience, 1);
  auto second = self->request(a, patience, 2);
  int value = 0;
  first.receive([&](int x) { value = x; },
                [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(value, 2) << "the message that quits is still answered";
  error err;
  second.receive([](int) { ADD_FAILURE() << "answered after quit"; },
                 [&](const error& x) { err = x; });
  EXPECT_EQ(err, errc::actor_down);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
}

// -- response promises ---------------------------------------------------------------------

TEST_P(scheduled_actors, a_response_promise_delivers_from_a_later_message) {
  auto a = sys.spawn(gate);
  auto pending = self->request(a, patience, 21);
  self->send(a, "open");
  int value = 0;
  pending.receive([&](int x) { value = x; },
                  [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(value, 21);
}

TEST_P(scheduled_actors, a_dropped_response_promise_answers_with_broken_promise) {
  auto a = sys.spawn([](event_based_actor* a) {
    return behavior{[a](int) { auto promise = a->make_response_promise(); }};
  });
  EXPECT_EQ(ask<int>(a, 1).error(), errc::broken_promise);
}

TEST_P(scheduled_actors, a_delivered_promise_kept_in_the_state_does_not_keep_its_actor_alive) {
  struct state {
    response_promise promise;
  };
  auto a = sys.spawn([](stateful_actor<state>* a) {
    return behavior{[a](int x) {
      a->state.promise = a->make_response_promise();
      a->state.promise.deliver(x);
      return a->state.promise;
    }};
  });
  EXPECT_TRUE(holds(ask<int>(a, 3), 3));
  self->monitor(a);
  auto addr = a.address();
  a = nullptr;
  auto down = next<down_msg>();
  EXPECT_EQ(down.reason, exit_reason::unreachable);
  if (!down.source)
    if (auto leaked = addr.lock())
      anon_send_exit(leaked, exit_reason::kill); // let the system shut down
}

TEST_P(scheduled_actors, delegate_makes_the_delegate_answer_the_original_requester) {
  auto worker = sys.spawn([r = reporter](event_based_actor* w) {
    return behavior{[w, r](int x) {
      return std::tuple{x + 1000, w->current_sender() == r.ptr()};
    }};
  });
  auto front = sys.spawn([worker](event_based_actor* f) {
    return behavior{[f, worker](int x) { return f->delegate(worker, x); }};
  });
  int value = 0;
  bool from_requester = false;
  self->request(front, patience, 1)
    .receive(
      [&](int x, bool b) {
        value = x;
        from_requester = b;
      },
      [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(value, 1001);
  EXPECT_TRUE(from_requester) << "the delegate sees the original requester as sender";
}

TEST_P(scheduled_actors, a_handler_may_return_its_response_promise_as_result) {
  struct state {
    typed_response_promise<int> promise;
    int value = 0;
  };
  auto a = sys.spawn([](stateful_actor<state>* a) {
    return behavior{
      [a](int x) -> result<int> {
        a->state.promise = a->make_response_promise<int>();
        a->state.value = x;
        return a->state.promise;
      },
      [a](const std::string&) { a->state.promise.deliver(a->state.value * 3); },
    };
  });
  auto pending = self->request(a, patience, 7);
  self->send(a, "answer");
  int value = 0;
  pending.receive([&](int x) { value = x; },
                  [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(value, 21);
}

TEST_P(scheduled_actors, an_untyped_promise_converts_to_result_too) {
  auto a = sys.spawn([](event_based_actor* a) {
    return behavior{[a](int x) -> result<int> {
      auto promise = a->make_response_promise();
      promise.deliver(x + 1);
      return promise;
    }};
  });
  EXPECT_TRUE(holds(ask<int>(a, 1), 2));
}

// -- results of plain sends -----------------------------------------------------------------

namespace pp {

struct ping {
  int n = 0;
};
struct pong {
  int n = 0;
};


// -- ordering, timeouts and delays: one step at a time, in virtual time ----------------

class actors_in_virtual_time : public troupe::test::fixture::deterministic {
protected:
  /// Sends 0 .. n-1 to `client` at once and runs every message; returns how
  /// many ran, and checks that `seen` got them back in that order.
  size_t run_backlog(const actor& client, int n, const std::vector<int>& seen) {
    dispatch_messages();
    for (int i = 0; i < n; ++i)
      anon_mail(i).send(client);
    auto taken = dispatch_messages();
    std::vector<int> in_order(static_cast<size_t>(n));
    std::iota(in_order.begin(), in_order.end(), 0);
    EXPECT_EQ(seen, in_order);
    return taken;
  }
};

TEST_F(actors_in_virtual_time, skipped_messages_wait_for_a_new_behavior_and_then_run_in_order) {
  std::vector<int> seen;
  auto a = sys.spawn([&seen](event_based_actor* a) {
    a->set_default_handler(skip);
    return behavior{[a, &seen](const std::string&) {
      a->become([&seen](int x) { seen.push_back(x); });
    }};
  });
  for (int i = 1; i <= 3; ++i)
    anon_mail(i).send(a);
  anon_mail("open"s).send(a);
  anon_mail(4).send(a);
  for (int i = 1; i <= 3; ++i)
    expect<int>().with(i).to(a); // skipped: kept for later
  EXPECT_TRUE(seen.empty());
  expect<std::string>().to(a);
  dispatch_messages();
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4}));
}

TEST_F(actors_in_virtual_time, then_lets_messages_queued_before_the_response_run_first) {
  auto server = sys.spawn(gate);
  std::vector<std::string> log;
  auto client = sys.spawn([server, &log](event_based_actor* c) {
    return behavior{
      [c, server, &log](const std::string&) {
        c->request(server, infinite, 1).then([&log](int) { log.push_back("response"); });
      },
      [&log](int x) { log.push_back("message " + std::to_string(x)); },
    };
  });
  inject().with("go"s).to(client);
  anon_mail(7).send(client);
  expect<int>().from(client).to(server);
  inject().with("open"s).to(server);
  // 7 came before the response: it runs first.
  expect<int>().with(7).from(nullptr).to(client);
  expect<int>().with(1).from(server).to(client);
  EXPECT_EQ(log, (std::vector<std::string>{"message 7", "response"}));
}

TEST_F(actors_in_virtual_time, await_handles_the_response_before_messages_queued_earlier) {
  auto server = sys.spawn(gate);
  std::vector<std::string> log;
  auto client = sys.spawn([server, &log](event_based_actor* c) {
    return behavior{
      [c, server, &log](const std::string&) {
        c->request(server, infinite, 1).await([&log](int) { log.push_back("response"); });
      },
      [&log](int x) { log.push_back("message " + std::to_string(x)); },
    };
  });
  inject().with("go"s).to(client);
  anon_mail(7).send(client);
  anon_mail(8).send(client);
  expect<int>().with(7).to(client); // skipped while the await suspends the behavior
  expect<int>().with(8).to(client);
  expect<int>().from(client).to(server);
  inject().with("open"s).to(server);
  dispatch_messages();
  EXPECT_EQ(log, (std::vector<std::string>{"response", "message 7", "message 8"}));
}

TEST_F(actors_in_virtual_time, awaited_responses_are_handled_newest_request_first) {
  auto server = sys.spawn(gate);
  std::vector<int> seen;
  auto client = sys.spawn([server, &seen](event_based_actor* c) {
    return behavior{[c, server, &seen](const std::string&) {
      c->request(server, infinite, 1).await([&seen](int x) { seen.push_back(x); });
      c->request(server, infinite, 2).await([&seen](int x) { seen.push_back(x); });
    }};
  });
  inject().with("go"s).to(client);
  inject().with("open"s).to(server);
  // The server answers 1 before 2 ...
  dispatch_messages();
  // ... but the newest await comes first.
  EXPECT_EQ(seen, (std::vector<int>{2, 1}));
}

TEST_F(actors_in_virtual_time, then_gets_request_timeout_exactly_at_the_timeout) {
  auto silent = sys.spawn(never_answers);
  std::vector<error> errors;
  auto client = sys.spawn([silent, &errors](event_based_actor* a) {
    a->request(silent, 50ms, 1).then([](int) { ADD_FAILURE() << "a value"; },
                                     [&errors](error& err) { errors.push_back(err); });
  });
  expect<int>().from(client).to(silent);
  advance_time(49ms);
  EXPECT_EQ(dispatch_messages(), 0u);
  advance_time(1ms);
  EXPECT_EQ(dispatch_messages(), 1u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], errc::request_timeout);
  EXPECT_TRUE(terminated(client));
}

TEST_F(actors_in_virtual_time, await_gets_request_timeout_and_then_resumes_the_behavior) {
  auto silent = sys.spawn(never_answers);
  std::vector<std::string> log;
  auto client = sys.spawn([silent, &log](event_based_actor* c) {
    return behavior{
      [c, silent, &log](const std::string&) {
        c->request(silent, 50ms, 1).await([&log](int) { log.push_back("value"); },
                                          [&log](error& err) {
                                            if (err == errc::request_timeout)
                                              log.push_back("timeout");
                                          });
      },
      [&log](int x) { log.push_back("message " + std::to_string(x)); },
    };
  });
  inject().with("go"s).to(client);
  anon_mail(7).send(client);
  expect<int>().from(client).to(silent);
  // Suspended by the await, the client keeps 7 for later.
  expect<int>().with(7).to(client);
  EXPECT_TRUE(log.empty());
  advance_time(50ms);
  dispatch_messages();
  EXPECT_EQ(log, (std::vector<std::string>{"timeout", "message 7"}));
}

TEST_F(actors_in_virtual_time, delayed_send_arrives_exactly_after_its_delay) {
  std::vector<timespan> arrivals;
  auto start = now();
  auto a = sys.spawn([this, start, &arrivals](event_based_actor* a) {
    return behavior{
      [a](const std::string&) { a->delayed_send(a->self_handle(), 50ms, 1); },
      [this, start, &arrivals](int) { arrivals.push_back(now() - start); },
    };
  });
  advance_time(10ms);
  inject().with("start"s).to(a);
  advance_time(49ms);
  dispatch_messages();
  EXPECT_TRUE(arrivals.empty());
  advance_time(1ms);
  dispatch_messages();
  EXPECT_EQ(arrivals, std::vector<timespan>{60ms});
}

TEST_F(actors_in_virtual_time, a_then_timeout_waits_while_an_await_suspends_the_behavior) {
  auto silent = sys.spawn(never_answers);
  auto server = sys.spawn(gate);
  std::vector<std::string> log;
  auto client = sys.spawn([silent, server, &log](event_based_actor* c) {
    return behavior{[c, silent, server, &log](const std::string&) {
      c->request(silent, 1ms, 1).then([&log](int) { log.push_back("then value"); },
                                      [&log](error&) { log.push_back("then timeout"); });
      c->request(server, infinite, 2).await([&log](int) { log.push_back("awaited"); });
    }};
  });
  inject().with("go"s).to(client);
  // Long past the first request's timeout, which must wait for the await.
  advance_time(100ms);
  dispatch_messages();
  EXPECT_TRUE(log.empty());
  anon_mail("open"s).send(server);
  dispatch_messages();
  EXPECT_EQ(log, (std::vector<std::string>{"awaited", "then timeout"}));
}


TEST_F(actors_in_virtual_time, a_backlog_behind_awaits_runs_in_order_and_is_not_rescanned) {
  constexpr int n = 200;
  auto server = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  std::vector<int> seen;
  auto client = sys.spawn([server, &seen](event_based_actor* c) {
    return behavior{[c, server, &seen](int x) {
      c->request(server, infinite, x).await([&seen](int y) { seen.push_back(y); });
    }};
  });
  auto taken = run_backlog(client, n, seen);
  // The server takes n requests; the client each message, each response, and
  // the backlog once more after the first await. Skipping the backlog anew at
  // every await would take about n * n / 2.
  EXPECT_LE(taken, size_t{5 * n});
}

TEST_F(actors_in_virtual_time, a_backlog_behind_chained_awaits_is_not_rescanned_either) {
  constexpr int n = 200;
  auto server = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  std::vector<int> seen;
  auto client = sys.spawn([server, &seen](event_based_actor* c) {
    return behavior{[c, server, &seen](int x) {
      c->request(server, infinite, x).await([c, server, &seen](int y) {
        c->request(server, infinite, y).await([&seen](int z) { seen.push_back(z); });
      });
    }};
  });
  auto taken = run_backlog(client, n, seen);
  // 2n requests, n messages, 2n responses and the backlog once more.
  EXPECT_LE(taken, size_t{7 * n});
}

TEST_F(actors_in_virtual_time, messages_skipped_by_an_await_leave_room_in_a_bounded_mailbox) {
  auto server = sys.spawn(gate);
  std::vector<int> seen;
  auto client = sys.spawn(mailbox_limit{4, mailbox_overflow::drop}, [server, &seen](
                                                                       event_based_actor* c) {
    return behavior{
      [c, server, &seen](const std::string&) {
        c->request(server, infinite, 0).await([&seen](int x) { seen.push_back(x); });
      },
      [&seen](int x) { seen.push_back(x); },
    };
  });
  inject().with("go"s).to(client);
  // Skipped while the await lasts, as if stashed: they do not fill the bound.
  for (int batch = 0; batch < 3; ++batch) {
    for (int i = 1; i <= 4; ++i)
      anon_mail(batch * 4 + i).send(client);
    dispatch_messages();
  }
  anon_mail("open"s).send(server);
  dispatch_messages();
  std::vector<int> expected(13);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(seen, expected);
}

TEST_F(actors_in_virtual_time, messages_skipped_by_two_awaits_run_in_order_after_both) {
  auto server = sys.spawn(gate);
  std::vector<int> seen;
  auto client = sys.spawn([server, &seen](event_based_actor* c) {
    return behavior{
      [c, server, &seen](const std::string&) {
        c->request(server, infinite, 1).await([&seen](int x) { seen.push_back(x); });
        c->request(server, infinite, 2).await([&seen](int x) { seen.push_back(x); });
      },
      [&seen](int x) { seen.push_back(100 + x); },
    };
  });
  inject().with("go"s).to(client);
  anon_mail(7).send(client);
  anon_mail(8).send(client);
  dispatch_messages();
  EXPECT_TRUE(seen.empty());
  // 1's response is skipped while 2 is awaited, then found once 2 is in.
  anon_mail("open"s).send(server);
  dispatch_messages();
  EXPECT_EQ(seen, (std::vector<int>{2, 1, 107, 108}));
}

TEST_F(actors_in_virtual_time, the_current_message_names_its_sender_and_id_while_it_runs) {
  std::vector<std::string> seen;
  auto a = sys.spawn([&seen](event_based_actor* self) {
    return behavior{[self, &seen](int) {
      auto* elem = self->current_mailbox_element();
      if (elem == nullptr) {
        seen.push_back("no element");
        return 0;
      }
      auto from = elem->sender ? "actor#" + std::to_string(elem->sender->id()) : "anonymous";
      auto id = self->current_message_id();
      seen.push_back(from + (id.is_request() ? " request" : " send"));
      return 1;
    }};
  });
  auto b = sys.spawn([a](event_based_actor* self) { self->request(a, infinite, 2).then([](int) {}); });
  inject().with(1).to(a);
  expect<int>().from(b).to(a);
  EXPECT_EQ(seen, (std::vector<std::string>{"anonymous send",
                                            "actor#" + std::to_string(b.id()) + " request"}));
}

TEST_F(actors_in_virtual_time, has_behavior_is_false_once_the_last_behavior_is_gone) {
  std::vector<bool> seen;
  auto a = sys.spawn([&seen](event_based_actor* self) {
    seen.push_back(self->has_behavior()); // not yet: the factory returns it
    return behavior{[self, &seen](int) {
      seen.push_back(self->has_behavior());
      self->unbecome();
      seen.push_back(self->has_behavior());
    }};
  });
  inject().with(1).to(a);
  EXPECT_EQ(seen, (std::vector<bool>{false, true, false}));
  EXPECT_TRUE(terminated(a));
}

} // namespace pp

} // namespace

TROUPE_BEGIN_TYPE_ID_BLOCK(scheduled_actor_test, 1800)
  TROUPE_ADD_TYPE_ID(scheduled_actor_test, (pp::ping))
  TROUPE_ADD_TYPE_ID(scheduled_actor_test, (pp::pong))
TROUPE_END_TYPE_ID_BLOCK(scheduled_actor_test)

namespace {

TEST_P(scheduled_actors, a_result_of_a_plain_send_goes_back_to_the_sender) {
  auto doubler = sys.spawn([] { return behavior{[](int x) { return 2 * x; }}; });
  self->send(doubler, 21);
  EXPECT_EQ(next<int>(), 42);
}

TEST_P(scheduled_actors, ping_pong_by_returning_the_next_message_ends_after_n_rounds) {
  // CAF's classic ping-pong: each handler returns the message for the other.
  auto pong_actor = sys.spawn([] {
    return behavior{[](pp::ping x) { return pp::pong{x.n}; }};
  });
  auto ping_actor = sys.spawn([r = reporter](event_based_actor* a, actor partner) {
    a->send(partner, pp::ping{1});
    return behavior{[a, r](pp::pong x) -> result<pp::ping> {
      if (x.n == 100) {
        a->send(r, x.n);
        a->quit();
        return delegated<pp::ping>{};
      }
      return pp::ping{x.n + 1};
    }};
  }, pong_actor);
  EXPECT_EQ(next<int>(), 100);
}

TEST_P(scheduled_actors, an_error_returned_to_a_plain_send_goes_back_as_a_message) {
  auto a = sys.spawn([] {
    return behavior{[](int) -> result<int> { return error{errc::invalid_argument, "no"}; }};
  });
  self->send(a, 1);
  EXPECT_EQ(next<error>(), errc::invalid_argument);
}

TEST_P(scheduled_actors, a_result_of_a_send_without_sender_is_a_dead_letter) {
  auto doubler = sys.spawn([] { return behavior{[](int x) { return 2 * x; }}; });
  auto before = sys.dead_letters();
  anon_send(doubler, 21);
  // The actor answers in order: once this request is answered, the result
  // of the anonymous send has been counted.
  EXPECT_TRUE(holds(ask<int>(doubler, 1), 2));
  EXPECT_EQ(sys.dead_letters(), before + 1);
}

TEST_P(scheduled_actors, a_handler_returning_nothing_sends_nothing_back) {
  auto a = sys.spawn([] { return behavior{[](int) {}, [](const std::string&) { return message{}; }}; });
  self->send(a, 1);
  self->send(a, "x");
  EXPECT_TRUE(holds(ask_within<int>(patience, sys.spawn([] {
                                      return behavior{[](int x) { return x; }};
                                    }),
                                    5),
                    5));
  EXPECT_FALSE(has_queued<message>());
}

TEST_P(scheduled_actors, an_unmatched_plain_send_gets_no_error_back) {
  // The default handler logs it; an error sent back could bounce forever
  // between two actors that both lack a handler.
  auto a = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  self->send(a, 2.5);
  EXPECT_TRUE(holds(ask<int>(a, 3), 3));
  EXPECT_FALSE(has_queued<error>());
}

TEST_P(scheduled_actors, a_promise_made_for_a_plain_send_delivers_an_ordinary_message) {
  auto a = sys.spawn([](event_based_actor* a) {
    return behavior{[a](int x) {
      auto promise = a->make_response_promise();
      promise.deliver(x + 1);
    }};
  });
  self->send(a, 1);
  EXPECT_EQ(next<int>(), 2);
}

TEST_P(scheduled_actors, a_delegated_plain_send_is_answered_by_the_delegate_only) {
  auto worker = sys.spawn([] { return behavior{[](int x) { return x * 10; }}; });
  auto front = sys.spawn([worker](event_based_actor* f) {
    return behavior{[f, worker](int x) { return f->delegate(worker, x); }};
  });
  self->send(front, 4);
  EXPECT_EQ(next<int>(), 40);
  EXPECT_FALSE(has_queued<int>());
}

// -- stateful actors ------------------------------------------------------------------------

struct counted_state {
  std::shared_ptr<std::atomic<int>> destroyed;
  int total = 0;

  ~counted_state() {
    if (destroyed)
      ++*destroyed;
  }
};

TEST_P(scheduled_actors, stateful_actor_state_lives_until_termination_and_no_longer) {
  auto destroyed = std::make_shared<std::atomic<int>>(0);
  auto a = sys.spawn([destroyed](stateful_actor<counted_state>* a) {
    a->state.destroyed = destroyed;
    return behavior{
      [a](int x) { return a->state.total += x; },
      [a](const std::string&) { a->quit(); },
    };
  });
  self->monitor(a);
  EXPECT_TRUE(holds(ask<int>(a, 1), 1));
  EXPECT_TRUE(holds(ask<int>(a, 2), 3));
  EXPECT_EQ(destroyed->load(), 0);
  self->send(a, "stop");
  EXPECT_EQ(next<down_msg>().reason, exit_reason::normal);
  // The handle `a` is still alive: the state went with the termination.
  EXPECT_EQ(destroyed->load(), 1);
}

} // namespace

TROUPE_TEST_EVERY_POLICY(scheduled_actors);
