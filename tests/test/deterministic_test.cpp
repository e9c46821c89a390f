// The deterministic fixture: actors run one message at a time when the test
// says so, and time moves only when the test moves it.

#include "troupe/test/fixture/deterministic.hpp"

#include "troupe/anon_mail.hpp"
#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;

namespace {

class deterministic_fixture : public troupe::test::fixture::deterministic {
public:
  /// Runs `f`, which must fail an expectation with a message containing
  /// `text`, and stop there.
  template <class F>
  void expect_failure(F f, const std::string& text) {
    bool stopped = false;
    EXPECT_NONFATAL_FAILURE(
      {
        try {
          f();
        } catch (const troupe::test::expectation_failed&) {
          stopped = true;
        }
      },
      text);
    EXPECT_TRUE(stopped) << "the failed expectation did not stop the test";
  }
};

behavior doubler() {
  return {[](int32_t x) { return 2 * x; }};
}

/// Forwards what it gets to `next`, then answers with what `next` said.
behavior relay(event_based_actor* self, actor next) {
  return {[self, next](int32_t x) {
    auto promise = self->make_response_promise();
    self->request(next, 1s, x).then([promise](int32_t y) mutable { promise.deliver(y); });
    return promise;
  }};
}

/// Takes requests and never answers.
behavior forgetful() {
  return {[](int32_t) { return delegated<int32_t>{}; }};
}

using fixture = deterministic_fixture;

// -- expect ---------------------------------------------------------------------------

TEST_F(fixture, expect_steps_through_a_request_and_its_response) {
  auto d = sys.spawn(doubler);
  std::vector<int32_t> results;
  auto client = sys.spawn([d, &results](event_based_actor* self) {
    self->request(d, infinite, int32_t{21}).then([&results](int32_t y) { results.push_back(y); });
  });
  // The client has started: its request waits in the doubler's mailbox.
  EXPECT_EQ(mail_count(d), 1u);
  expect<int32_t>().with(21).from(client).to(d);
  EXPECT_TRUE(results.empty());
  expect<int32_t>().with(42).from(d).to(client);
  EXPECT_EQ(results, std::vector<int32_t>{42});
  EXPECT_EQ(mail_count(), 0u);
  EXPECT_TRUE(terminated(client)); // no behavior and nothing pending
}

TEST_F(fixture, with_takes_predicates_ignore_and_captures) {
  auto d = sys.spawn(doubler);
  auto r = sys.spawn(relay, d);
  inject().with(int32_t{5}).to(r);
  expect<int32_t>().with([](int32_t x) { return x > 4; }).from(r).to(d);
  int32_t seen = 0;
  expect<int32_t>().with(std::ref(seen)).from(d).to(r);
  EXPECT_EQ(seen, 10);
  // The answer to the anonymous inject went nowhere.
  EXPECT_EQ(mail_count(), 0u);
  inject().with(int32_t{1}).to(r);
  expect<int32_t>().with(std::ignore).to(d);
  dispatch_messages();
}

TEST_F(fixture, a_missing_message_fails_with_the_expected_and_the_actual_one) {
  auto d = sys.spawn(doubler);
  anon_mail(std::string{"hello"}).send(d);
  expect_failure([&] { expect<int32_t>().to(d); },
                 "expect<(int32_t)>().to(actor#" + std::to_string(d.id())
                   + "): its next message is message(\"hello\") from an anonymous sender");
  // Nothing ran: the message still waits.
  EXPECT_EQ(mail_count(d), 1u);
}

TEST_F(fixture, an_empty_mailbox_fails_expect_but_not_allow) {
  auto d = sys.spawn(doubler);
  expect_failure([&] { expect<int32_t>().to(d); }, "its mailbox is empty");
  EXPECT_FALSE(allow<int32_t>().to(d));
}

TEST_F(fixture, a_wrong_sender_fails_expect) {
  auto d = sys.spawn(doubler);
  auto other = sys.spawn(doubler);
  anon_mail(int32_t{1}).send(d);
  expect_failure([&] { expect<int32_t>().from(other).to(d); },
                 "from(actor#" + std::to_string(other.id()) + ")");
  expect<int32_t>().from(nullptr).to(d);
}

TEST_F(fixture, allow_runs_a_match_and_leaves_the_rest) {
  auto d = sys.spawn(doubler);
  anon_mail(std::string{"x"}).send(d);
  EXPECT_FALSE(allow<int32_t>().to(d));
  EXPECT_EQ(mail_count(d), 1u);
  EXPECT_TRUE(allow<std::string>().to(d));
  EXPECT_EQ(mail_count(d), 0u);
}

TEST_F(fixture, disallow_fails_only_if_the_next_message_matches) {
  auto d = sys.spawn(doubler);
  anon_mail(int32_t{3}).send(d);
  EXPECT_TRUE(disallow<std::string>().to(d));
  EXPECT_TRUE(disallow<int32_t>().with(4).to(d));
  expect_failure([&] { disallow<int32_t>().with(3).to(d); }, "its next message is message(3)");
}

TEST_F(fixture, expecting_a_message_of_a_thread_bound_actor_fails_clearly) {
  scoped_actor self{sys};
  expect_failure([&] { expect<int32_t>().to(self); }, "runs on a thread of its own");
}

// -- ordering ---------------------------------------------------------------------------

TEST_F(fixture, prepone_moves_a_later_message_to_the_front) {
  std::vector<int32_t> seen;
  auto a = sys.spawn([&seen] { return behavior{[&seen](int32_t x) { seen.push_back(x); }}; });
  for (int32_t i = 1; i <= 3; ++i)
    anon_mail(i).send(a);
  EXPECT_TRUE(prepone<int32_t>().with(3).to(a));
  EXPECT_FALSE(prepone<int32_t>().with(4).to(a));
  std::vector<int32_t> order;
  for_each_message(a, [&order](const mailbox_element& x) {
    order.push_back(x.payload.get_as<int32_t>(0));
  });
  EXPECT_EQ(order, (std::vector<int32_t>{3, 1, 2}));
  prepone_and_expect<int32_t>().with(2).to(a);
  dispatch_messages();
  EXPECT_EQ(seen, (std::vector<int32_t>{2, 3, 1}));
}

TEST_F(fixture, messages_of_one_sender_arrive_in_order_and_urgent_ones_first) {
  auto a = sys.spawn([] { return behavior{[](int32_t) {}, [](const std::string&) {}}; });
  anon_mail(int32_t{1}).send(a);
  anon_mail(int32_t{2}).send(a);
  anon_mail(std::string{"now"}).urgent().send(a);
  expect<std::string>().to(a);
  expect<int32_t>().with(1).to(a);
  expect<int32_t>().with(2).to(a);
}

TEST_F(fixture, dispatch_messages_runs_until_no_actor_has_mail) {
  auto d = sys.spawn(doubler);
  auto r1 = sys.spawn(relay, d);
  auto r2 = sys.spawn(relay, r1);
  inject().with(int32_t{2}).to(r2);
  // r2 -> r1 -> d and the two answers back: four messages.
  EXPECT_EQ(dispatch_messages(), 4u);
  EXPECT_FALSE(dispatch_message());
}

TEST_F(fixture, inject_exit_stops_an_actor_at_once) {
  auto d = sys.spawn(doubler);
  anon_mail(int32_t{1}).send(d);
  inject_exit(d, exit_reason::kill);
  EXPECT_TRUE(terminated(d));
}

TEST_F(fixture, a_detached_actor_runs_here_too) {
  auto d = sys.spawn<detached>(doubler);
  inject().with(int32_t{4}).to(d);
  EXPECT_FALSE(terminated(d));
}

// -- time -----------------------------------------------------------------------------

TEST_F(fixture, a_request_times_out_when_the_test_moves_time_past_it) {
  auto f = sys.spawn(forgetful);
  std::vector<error> errors;
  auto client = sys.spawn([f, &errors](event_based_actor* self) {
    self->request(f, 10s, int32_t{1})
      .then([](int32_t) {}, [&errors](error& err) { errors.push_back(err); });
  });
  expect<int32_t>().from(client).to(f);
  EXPECT_EQ(num_timeouts(), 1u);
  EXPECT_EQ(advance_time(9s), 0u);
  EXPECT_EQ(dispatch_messages(), 0u);
  EXPECT_EQ(advance_time(1s), 1u);
  EXPECT_EQ(dispatch_messages(), 1u);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], errc::request_timeout);
}

TEST_F(fixture, a_response_cancels_the_timeout) {
  auto d = sys.spawn(doubler);
  auto client = sys.spawn([d](event_based_actor* self) {
    self->request(d, 1s, int32_t{1}).then([](int32_t) {});
  });
  EXPECT_EQ(num_timeouts(), 1u);
  dispatch_messages();
  EXPECT_EQ(num_timeouts(), 0u);
  EXPECT_TRUE(terminated(client));
}

TEST_F(fixture, a_delayed_message_arrives_once_its_delay_has_passed) {
  auto a = sys.spawn([] { return behavior{[](int32_t) {}}; });
  auto start = now();
  anon_mail(int32_t{7}).delay(5s).send(a);
  EXPECT_EQ(next_timeout(), start + 5s);
  advance_time(4999ms);
  EXPECT_EQ(mail_count(a), 0u);
  advance_time(1ms);
  EXPECT_EQ(now(), start + 5s);
  expect<int32_t>().with(7).to(a);
}

TEST_F(fixture, a_disposed_delayed_message_never_arrives) {
  auto a = sys.spawn([] { return behavior{[](int32_t) {}}; });
  auto pending = anon_mail(int32_t{7}).delay(5s).send(a);
  pending.dispose();
  trigger_all_timeouts();
  EXPECT_EQ(mail_count(a), 0u);
  EXPECT_EQ(sys.dead_letters(), 0u);
}

TEST_F(fixture, delayed_messages_with_one_deadline_arrive_in_send_order) {
  auto a = sys.spawn([] { return behavior{[](int32_t) {}}; });
  anon_mail(int32_t{2}).delay(2s).send(a);
  anon_mail(int32_t{1}).delay(1s).send(a);
  anon_mail(int32_t{3}).delay(2s).send(a);
  EXPECT_EQ(trigger_all_timeouts(), 3u);
  expect<int32_t>().with(1).to(a);
  expect<int32_t>().with(2).to(a);
  expect<int32_t>().with(3).to(a);
}

TEST_F(fixture, an_idle_handler_runs_after_a_quiet_delay_of_virtual_time) {
  int idle_runs = 0;
  auto a = sys.spawn([&idle_runs](event_based_actor* self) {
    self->set_idle_handler(10s, strong_ref, repeat, [&idle_runs] { ++idle_runs; });
    return behavior{[](int32_t) {}};
  });
  advance_time(6s);
  inject().with(int32_t{1}).to(a); // activity at 6s: quiet until 16s
  advance_time(4s);                // the timer of 10s fires early
  dispatch_messages();
  EXPECT_EQ(idle_runs, 0);
  advance_time(6s); // 16s
  dispatch_messages();
  EXPECT_EQ(idle_runs, 1);
  advance_time(10s);
  dispatch_messages();
  EXPECT_EQ(idle_runs, 2);
}

// -- bounded mailboxes ------------------------------------------------------------------

TEST_F(fixture, a_sender_muted_by_a_full_mailbox_waits_until_it_drains) {
  auto sink = sys.spawn(mailbox_limit{2, mailbox_overflow::mute},
                        [] { return behavior{[](int32_t) {}}; });
  auto source = sys.spawn([sink] {
    return behavior{[sink](const std::string&) {
      for (int32_t i = 0; i < 4; ++i)
        anon_mail(i).send(sink);
    }};
  });
  anon_mail(std::string{"go"}).send(source);
  anon_mail(std::string{"again"}).send(source);
  expect<std::string>().to(source);
  EXPECT_EQ(mail_count(sink), 4u);
  // The source is muted: its next message waits until the sink drains.
  expect_failure([&] { expect<std::string>().to(source); }, "muted");
  EXPECT_EQ(dispatch_messages(), 9u);
}

} // namespace
