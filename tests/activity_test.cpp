// actor_system::activity: what inside the system can still make an actor
// run, which the destructor waits for. Checked step by step on the
// deterministic fixture, where nothing runs and no time passes unless the
// test says so.

#include "troupe/test/fixture/deterministic.hpp"

#include "troupe/anon_mail.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/idle_handler.hpp"
#include "troupe/stateful_actor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;

namespace {

class activity : public troupe::test::fixture::deterministic {
protected:
  /// activity() as one string, a line each.
  std::string text() {
    std::string out;
    for (auto& x : sys.activity())
      out += x + "\n";
    return out;
  }

  bool quiescent() {
    return sys.activity().empty();
  }
};

behavior echo() {
  return {[](int32_t x) { return x; }};
}

/// Takes requests and never answers.
behavior forgetful() {
  return {[](int32_t) { return delegated<int32_t>{}; }};
}

struct peer_state {
  actor peer;
};

} // namespace

TEST_F(activity, an_idle_actor_leaves_the_system_quiescent) {
  auto a = sys.spawn(echo);
  EXPECT_FALSE(quiescent()) << "not started yet";
  dispatch_messages();
  EXPECT_TRUE(quiescent()) << text();
}

TEST_F(activity, a_queued_message_is_activity_until_it_is_handled) {
  auto a = sys.spawn(echo);
  dispatch_messages();
  anon_mail(int32_t{1}).send(a);
  auto what = text();
  EXPECT_NE(what.find("actor#" + std::to_string(a.id())), std::string::npos) << what;
  EXPECT_NE(what.find("1 queued messages"), std::string::npos) << what;
  expect<int32_t>().with(1).to(a);
  EXPECT_TRUE(quiescent()) << text();
}

TEST_F(activity, a_delayed_message_is_activity_until_it_is_handled) {
  auto a = sys.spawn(echo);
  dispatch_messages();
  anon_mail(int32_t{1}).delay(10s).send(a);
  EXPECT_NE(text().find("1 pending timers"), std::string::npos) << text();
  advance_time(10s);
  EXPECT_EQ(text().find("pending timers"), std::string::npos) << text();
  EXPECT_FALSE(quiescent()) << "delivered, not handled";
  expect<int32_t>().with(1).to(a);
  EXPECT_TRUE(quiescent()) << text();
}

TEST_F(activity, a_disposed_delayed_message_is_no_activity) {
  auto a = sys.spawn(echo);
  dispatch_messages();
  auto pending = anon_mail(int32_t{1}).delay(1h).send(a);
  EXPECT_EQ(num_timeouts(), 1u);
  pending.dispose();
  EXPECT_EQ(num_timeouts(), 0u);
  EXPECT_TRUE(quiescent()) << text();
  EXPECT_EQ(sys.dead_letters(), 0u) << "disposed, not dropped";
}

TEST_F(activity, a_request_with_a_timeout_is_activity_until_it_times_out) {
  auto server = sys.spawn(forgetful);
  error seen;
  auto client = sys.spawn([server, &seen](event_based_actor* self) {
    self->request(server, 5s, int32_t{1}).then([](int32_t) {}, [&seen](error& err) {
      seen = err;
    });
    return behavior{[](int32_t) {}};
  });
  dispatch_messages();
  EXPECT_NE(text().find("1 pending timers"), std::string::npos) << text();
  advance_time(5s);
  dispatch_messages();
  EXPECT_EQ(seen, errc::request_timeout);
  EXPECT_TRUE(quiescent()) << text();
}

TEST_F(activity, an_answered_request_leaves_no_timer_behind) {
  auto server = sys.spawn(echo);
  int32_t answer = 0;
  auto client = sys.spawn([server, &answer](event_based_actor* self) {
    self->request(server, 1h, int32_t{7}).then([&answer](int32_t x) { answer = x; });
    return behavior{[](int32_t) {}};
  });
  dispatch_messages();
  EXPECT_EQ(answer, 7);
  EXPECT_EQ(num_timeouts(), 0u);
  EXPECT_TRUE(quiescent()) << text();
}

TEST_F(activity, a_request_without_a_timeout_that_nobody_answers_is_quiescent) {
  auto server = sys.spawn(forgetful);
  auto client = sys.spawn([server](event_based_actor* self) {
    self->request(server, infinite, int32_t{1}).then([](int32_t) {});
    return behavior{[](int32_t) {}};
  });
  dispatch_messages();
  // Only a message from outside can make either run: the server holds the
  // request, and nothing will make it answer.
  EXPECT_TRUE(quiescent()) << text();
}

TEST_F(activity, two_actors_holding_each_other_are_quiescent) {
  auto make = [this] {
    return sys.spawn([](stateful_actor<peer_state>* self) {
      return behavior{[self](actor other) { self->state.peer = std::move(other); }};
    });
  };
  auto a = make();
  auto b = make();
  anon_mail(b).send(a);
  anon_mail(a).send(b);
  dispatch_messages();
  EXPECT_TRUE(quiescent()) << text();
}

TEST_F(activity, an_actor_sending_itself_messages_stays_active_and_is_named) {
  auto a = sys.spawn([](event_based_actor* self) {
    self->mail(int32_t{0}).send(self);
    return behavior{[self](int32_t n) { self->mail(n + 1).send(self); }};
  });
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(dispatch_message());
    auto what = text();
    EXPECT_NE(what.find("actor#" + std::to_string(a.id())), std::string::npos) << what;
  }
  EXPECT_NE(text().find("sent itself"), std::string::npos) << text();
}

TEST_F(activity, a_repeating_idle_handler_is_activity_and_a_once_handler_ends) {
  int runs = 0;
  auto a = sys.spawn([&runs](event_based_actor* self) {
    self->set_idle_handler(1s, strong_ref, once, [&runs] { ++runs; });
    return behavior{[](int32_t) {}};
  });
  dispatch_messages();
  EXPECT_FALSE(quiescent()) << "the idle handler is due in 1 s";
  advance_time(1s);
  dispatch_messages();
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(quiescent()) << text();
  auto b = sys.spawn([](event_based_actor* self) {
    self->set_idle_handler(1s, strong_ref, repeat, [] {});
    return behavior{[](int32_t) {}};
  });
  for (int i = 0; i < 3; ++i) {
    dispatch_messages();
    EXPECT_FALSE(quiescent());
    advance_time(1s);
  }
}

TEST_F(activity, shutdown_with_a_grace_period_stops_every_actor_once_it_passed) {
  auto a = sys.spawn([](event_based_actor* self) {
    self->mail(int32_t{0}).send(self);
    return behavior{[self](int32_t n) { self->mail(n + 1).send(self); }};
  });
  auto b = sys.spawn(echo);
  dispatch_message();
  sys.shutdown(2s);
  EXPECT_NE(text().find("pending timers"), std::string::npos) << text();
  for (int i = 0; i < 10; ++i)
    dispatch_message();
  EXPECT_FALSE(terminated(a));
  EXPECT_FALSE(sys.shutting_down());
  advance_time(2s);
  EXPECT_TRUE(sys.shutting_down());
  dispatch_messages();
  EXPECT_TRUE(terminated(a));
  EXPECT_TRUE(terminated(b));
  EXPECT_TRUE(quiescent()) << text();
}

TEST_F(activity, shutdown_without_a_finite_grace_period_is_refused) {
  EXPECT_THROW(sys.shutdown(infinite), std::invalid_argument);
  EXPECT_THROW(sys.shutdown(-1s), std::invalid_argument);
  EXPECT_FALSE(sys.shutting_down());
}
