#include "troupe/blocking_actor.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(blocking_actor_test, 1600)
  TROUPE_ADD_TYPE_ID_WITH_NAME(blocking_actor_test, (std::thread::id), "std::thread::id")
TROUPE_END_TYPE_ID_BLOCK(blocking_actor_test)

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::holds;
using troupe::test::patience;

namespace {

/// Takes int requests and never answers them.
behavior never_answers() {
  return {[](int) { return delegated<int>{}; }};
}

class blocking_actors : public troupe::test::actor_fixture {
protected:
  /// True if nothing of type T is queued (consumes one if there is).
  template <class T>
  bool none_queued() {
    return !has_queued<T>();
  }
};

// -- receive ----------------------------------------------------------------------------

TEST_P(blocking_actors, receive_runs_the_matching_handler_and_its_result_answers_a_request) {
  auto b = sys.spawn([](blocking_actor* b) {
    b->receive([](const std::string&) { return -1; }, [](int x) { return x * 3; });
  });
  EXPECT_TRUE(holds(ask<int>(b, 2), 6));
}

TEST_P(blocking_actors, receive_skips_other_messages_and_later_receives_get_them_in_order) {
  self->send(reporter, "a"s);
  self->send(reporter, 1);
  self->send(reporter, "b"s);
  self->send(reporter, 2);
  EXPECT_EQ(next<int>(), 1);
  EXPECT_EQ(next<int>(), 2);
  EXPECT_EQ(next<std::string>(), "a");
  EXPECT_EQ(next<std::string>(), "b");
  EXPECT_TRUE(none_queued<std::string>());
}

TEST_P(blocking_actors, after_runs_when_nothing_matching_arrives) {
  self->send(reporter, "not an int"s);
  bool timed_out = false;
  self->receive([](int) { ADD_FAILURE() << "no int was sent"; },
                after(20ms) >> [&] { timed_out = true; });
  EXPECT_TRUE(timed_out);
  EXPECT_EQ(next<std::string>(), "not an int");
}

TEST_P(blocking_actors, after_does_not_run_when_a_message_arrives_during_the_wait) {
  auto sender = sys.spawn([](event_based_actor* a) {
    return behavior{[a](const actor& dest) { a->delayed_send(dest, 20ms, 7); }};
  });
  self->send(sender, reporter);
  int value = 0;
  self->receive([&](int x) { value = x; },
                after(patience) >> [] { ADD_FAILURE() << "the wait was not woken"; });
  EXPECT_EQ(value, 7);
}

TEST_P(blocking_actors, receive_with_a_zero_timeout_takes_what_is_already_queued) {
  self->send(reporter, 3);
  int value = 0;
  self->receive([&](int x) { value = x; }, after(0s) >> [] { ADD_FAILURE(); });
  EXPECT_EQ(value, 3);
}

// -- requests ----------------------------------------------------------------------------

TEST_P(blocking_actors, a_request_receives_the_value) {
  auto server = sys.spawn([] { return behavior{[](int x) { return x + 1; }}; });
  EXPECT_TRUE(holds(ask<int>(server, 41), 42));
}

TEST_P(blocking_actors, a_request_nobody_answers_gets_request_timeout) {
  auto server = sys.spawn(never_answers);
  EXPECT_EQ(ask_within<int>(50ms, server, 1).error(), errc::request_timeout);
}

TEST_P(blocking_actors, a_request_to_a_dead_actor_gets_actor_down) {
  auto server = sys.spawn([](event_based_actor* s) {
    return behavior{[s](const std::string&) { s->quit(); }};
  });
  self->monitor(server);
  self->send(server, "quit"s);
  ASSERT_EQ(next<down_msg>().reason, exit_reason::normal);
  EXPECT_EQ(ask<int>(server, 1).error(), errc::actor_down);
}

TEST_P(blocking_actors, a_request_the_receiver_has_no_handler_for_gets_unexpected_message) {
  auto server = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  EXPECT_EQ(ask<int>(server, "no handler"s).error(), errc::unexpected_message);
}

TEST_P(blocking_actors, a_response_the_handler_does_not_take_gives_unexpected_response) {
  auto server = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  EXPECT_EQ(ask<std::string>(server, 1).error(), errc::unexpected_response);
}

TEST_P(blocking_actors, a_request_to_an_invalid_handle_gets_invalid_argument) {
  EXPECT_EQ(ask<int>(actor{}, 1).error(), errc::invalid_argument);
}

TEST_P(blocking_actors, messages_arriving_while_waiting_for_a_response_stay_queued_in_order) {
  // Sends the requester two strings before it answers.
  auto server = sys.spawn([](event_based_actor* s) {
    return behavior{[s](int x) {
      actor requester{s->current_sender()};
      s->send(requester, "first"s);
      s->send(requester, "second"s);
      return x;
    }};
  });
  EXPECT_TRUE(holds(ask<int>(server, 5), 5));
  EXPECT_EQ(next<std::string>(), "first");
  EXPECT_EQ(next<std::string>(), "second");
}

TEST_P(blocking_actors, each_response_goes_to_its_own_request) {
  auto server = sys.spawn([] { return behavior{[](int x) { return x * 10; }}; });
  auto first = self->request(server, patience, 1);
  auto second = self->request(server, patience, 2);
  int b = 0;
  int a = 0;
  // Waiting for the second response first keeps the first one for later.
  second.receive([&](int x) { b = x; }, [](const error& err) { ADD_FAILURE() << to_string(err); });
  first.receive([&](int x) { a = x; }, [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(a, 10);
  EXPECT_EQ(b, 20);
}

// -- blocking actors with a thread of their own -------------------------------------------

class multiplier : public blocking_actor {
public:
  multiplier(actor_config& cfg, int factor) : blocking_actor(cfg), factor_(factor) {}

  void act() override {
    receive([this](int x) { return x * factor_; });
  }

private:
  int factor_;
};

TEST_P(blocking_actors, a_function_based_blocking_actor_runs_on_its_own_thread_until_it_returns) {
  auto b = sys.spawn([r = reporter](blocking_actor* b) {
    b->send(r, std::this_thread::get_id());
    b->receive([&](int x) { b->send(r, x); });
  });
  self->monitor(b);
  EXPECT_NE(next<std::thread::id>(), std::this_thread::get_id());
  self->send(b, 5);
  EXPECT_EQ(next<int>(), 5);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::normal);
}

TEST_P(blocking_actors, a_class_based_blocking_actor_runs_act_with_its_arguments) {
  auto b = sys.spawn<multiplier>(3);
  self->monitor(b);
  EXPECT_TRUE(holds(ask<int>(b, 5), 15));
  EXPECT_EQ(next<down_msg>().reason, exit_reason::normal);
}

TEST_P(blocking_actors, blocking_actors_do_not_take_scheduler_workers) {
  // More blocked actors than workers; event-based actors still run.
  std::vector<actor> blocked;
  for (int i = 0; i < 4; ++i)
    blocked.push_back(sys.spawn([](blocking_actor* b) { b->receive([](int) {}); }));
  auto server = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  EXPECT_TRUE(holds(ask<int>(server, 1), 1));
  for (auto& b : blocked)
    self->send(b, 0);
}

TEST_P(blocking_actors, a_blocking_actor_answers_later_through_a_response_promise) {
  auto b = sys.spawn([](blocking_actor* b) {
    response_promise promise;
    int value = 0;
    b->receive([&](int x) {
      promise = b->make_response_promise();
      value = x;
    });
    b->receive([&](const std::string&) { promise.deliver(value * 2); });
  });
  auto pending = self->request(b, patience, 21);
  self->send(b, "now"s);
  int value = 0;
  pending.receive([&](int x) { value = x; },
                  [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(value, 42);
}

TEST_P(blocking_actors, quit_in_a_blocking_actor_sets_its_exit_reason) {
  auto b = sys.spawn([](blocking_actor* b) { b->quit(exit_reason::user_shutdown); });
  self->monitor(b);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
}

TEST_P(blocking_actors, an_exception_out_of_the_function_terminates_with_unhandled_exception) {
  auto b = sys.spawn([](blocking_actor*) { throw std::runtime_error("boom"); });
  self->monitor(b);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::unhandled_exception);
}

TEST_P(blocking_actors, an_exit_msg_terminates_a_blocking_actor_waiting_in_receive) {
  auto b = sys.spawn([](blocking_actor* b) { b->receive([](int) {}); });
  self->monitor(b);
  anon_send_exit(b, exit_reason::user_shutdown);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
}

TEST_P(blocking_actors, a_blocking_actor_that_traps_exits_receives_the_exit_msg) {
  auto b = sys.spawn([r = reporter](blocking_actor* b) {
    b->trap_exit(true);
    b->receive([&](exit_msg& x) { b->send(r, x.reason); });
  });
  self->monitor(b);
  self->send_exit(b, exit_reason::user_shutdown);
  EXPECT_EQ(next<error>(), exit_reason::user_shutdown);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::normal);
}

TEST_P(blocking_actors, kill_terminates_a_blocking_actor_that_traps_exits) {
  auto b = sys.spawn([r = reporter](blocking_actor* b) {
    b->trap_exit(true);
    b->receive([&](exit_msg& x) { b->send(r, x.reason); });
  });
  self->monitor(b);
  anon_send_exit(b, exit_reason::kill);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::kill);
  EXPECT_TRUE(none_queued<error>());
}

TEST_P(blocking_actors, messages_left_in_a_finished_blocking_actor_are_bounced) {
  // Returns after the string; the request it skipped stays queued.
  auto b = sys.spawn([](blocking_actor* b) {
    b->receive([](const std::string&) {});
  });
  auto pending = self->request(b, patience, 1);
  self->send(b, "done"s);
  error err;
  pending.receive([](int) { ADD_FAILURE() << "answered"; }, [&](const error& x) { err = x; });
  EXPECT_EQ(err, errc::actor_down);
}

// -- detached event-based actors ---------------------------------------------------------

TEST_P(blocking_actors, a_detached_actor_runs_on_a_thread_of_its_own_and_answers_requests) {
  auto d = sys.spawn<detached>([](event_based_actor*) {
    return behavior{[](int) { return std::this_thread::get_id(); }};
  });
  auto pooled = sys.spawn([] {
    return behavior{[](int) { return std::this_thread::get_id(); }};
  });
  auto first = ask<std::thread::id>(d, 1);
  ASSERT_TRUE(first) << to_string(first.error());
  EXPECT_NE(*first, std::this_thread::get_id());
  for (int i = 0; i < 10; ++i) {
    EXPECT_TRUE(holds(ask<std::thread::id>(d, i), *first)) << "always the same thread";
    auto worker = ask<std::thread::id>(pooled, i);
    ASSERT_TRUE(worker);
    EXPECT_NE(*worker, *first) << "a scheduler worker ran the detached actor";
  }
}

TEST_P(blocking_actors, a_detached_actor_terminates_when_it_quits) {
  auto d = sys.spawn<detached>([](event_based_actor* d) {
    return behavior{[d](int x) {
      d->quit(exit_reason::user_shutdown);
      return x;
    }};
  });
  self->monitor(d);
  EXPECT_TRUE(holds(ask<int>(d, 1), 1));
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
}

TEST_P(blocking_actors, a_detached_actor_without_handles_terminates_as_unreachable) {
  auto d = sys.spawn<detached>([] { return behavior{[](int x) { return x; }}; });
  self->monitor(d);
  auto addr = d.address();
  d = nullptr;
  auto down = next<down_msg>();
  EXPECT_EQ(down.reason, exit_reason::unreachable);
  if (!down.source)
    if (auto leaked = addr.lock())
      anon_send_exit(leaked, exit_reason::kill); // let the system shut down
}

} // namespace

TROUPE_TEST_EVERY_POLICY(blocking_actors);
