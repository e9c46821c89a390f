// CAF 1.x's mail API and predefined atoms: `self->mail(xs...)` followed by
// send, delay, request, delegate or urgent does what the call it names does.

#include "troupe/anon_mail.hpp"
#include "troupe/mail.hpp"

#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/typed_actor.hpp"

#include "troupe/test/fixture/deterministic.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::holds;
using troupe::test::patience;

namespace {

class mails : public troupe::test::actor_fixture {};

behavior adder(event_based_actor*) {
  return {
    [](add_atom, int x, int y) { return x + y; },
    [](get_atom, const std::string& key) { return "value of " + key; },
  };
}

TEST_P(mails, send_delivers_the_message_and_the_result_comes_back) {
  auto a = sys.spawn(adder);
  self->mail(add_atom_v, 1, 2).send(a);
  EXPECT_EQ(next<int>(), 3);
}

TEST_P(mails, a_string_literal_becomes_a_std_string) {
  auto a = sys.spawn(adder);
  self->mail(get_atom_v, "x").send(a);
  EXPECT_EQ(next<std::string>(), "value of x");
}

TEST_P(mails, request_from_a_blocking_actor_receives_the_response) {
  auto a = sys.spawn(adder);
  int sum = 0;
  self->mail(add_atom_v, 20, 22)
    .request(a, patience)
    .receive([&](int x) { sum = x; }, [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(sum, 42);
}

TEST_P(mails, request_from_an_event_based_actor_runs_then) {
  auto a = sys.spawn(adder);
  auto client = sys.spawn([a, r = reporter](event_based_actor* self) {
    self->mail(add_atom_v, 2, 3).request(a, patience).then([self, r](int x) {
      self->mail(ok_atom_v, x).send(r);
    });
    return behavior{[](int) {}};
  });
  int x = 0;
  self->receive([&](ok_atom, int y) { x = y; },
                after(patience) >> [] { ADD_FAILURE() << "no result in time"; });
  EXPECT_EQ(x, 5);
  self->send_exit(client, exit_reason::user_shutdown);
}

TEST_P(mails, a_delayed_mail_to_no_actor_refers_to_nothing) {
  auto none = self->mail(1).delay(1ms).send(actor{});
  EXPECT_FALSE(none.valid());
  EXPECT_TRUE(none.disposed());
  auto anon = anon_mail(1).delay(1ms).send(actor{});
  EXPECT_FALSE(anon.valid());
  disposable empty;
  empty.dispose();
  EXPECT_TRUE(empty.disposed());
}

TEST_P(mails, urgent_messages_overtake_queued_normal_ones) {
  // Both land in the scoped actor's mailbox before it reads either.
  self->mail(1).send(self);
  self->mail(2).urgent().send(self);
  EXPECT_EQ(next<int>(), 2);
  EXPECT_EQ(next<int>(), 1);
}

TEST_P(mails, delegate_lets_the_delegate_answer_the_requester) {
  auto a = sys.spawn(adder);
  auto front = sys.spawn([a](event_based_actor* self) {
    return behavior{[self, a](add_atom, int x, int y) {
      return self->mail(add_atom_v, x * 10, y * 10).delegate(a);
    }};
  });
  EXPECT_TRUE(holds(ask<int>(front, add_atom_v, 1, 2), 30));
}

TEST_P(mails, anon_mail_has_no_sender) {
  auto probe = sys.spawn([r = reporter](event_based_actor* self) {
    return behavior{[self, r](int x) {
      self->mail(x, self->current_sender() == nullptr).send(r);
    }};
  });
  auto expect_anonymous = [&](int expected) {
    self->receive(
      [&](int x, bool anonymous) {
        EXPECT_EQ(x, expected);
        EXPECT_TRUE(anonymous);
      },
      after(patience) >> [] { ADD_FAILURE() << "no report in time"; });
  };
  anon_mail(7).send(probe);
  expect_anonymous(7);
  anon_mail(8).delay(10ms).send(probe);
  expect_anonymous(8);
}

TEST_P(mails, a_typed_handle_takes_mail_that_matches_its_signatures) {
  using calc = typed_actor<result<int>(add_atom, int, int)>;
  auto c = sys.spawn([]() -> calc::behavior_type {
    return {[](add_atom, int x, int y) { return x + y; }};
  });
  int sum = 0;
  self->mail(add_atom_v, 4, 5).request(c, patience).receive([&](int x) { sum = x; },
                                                            [](const error&) {});
  EXPECT_EQ(sum, 9);
}

TEST_P(mails, current_sender_names_the_responder_inside_a_blocking_response_handler) {
  auto a = sys.spawn(adder);
  bool from_a = false;
  self->mail(add_atom_v, 1, 1)
    .request(a, patience)
    .receive([&](int) { from_a = self->current_sender() && self->current_sender()->id() == a.id(); },
             [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_TRUE(from_a);
}

TEST_P(mails, fan_out_request_select_all_collects_every_answer) {
  std::vector<actor> workers;
  for (int i = 1; i <= 4; ++i)
    workers.push_back(sys.spawn([i](event_based_actor*) {
      return behavior{[i](get_atom) { return i * 10; }};
    }));
  auto boss = sys.spawn([workers, r = reporter](event_based_actor* self) {
    self->mail(get_atom_v)
      .fan_out_request(workers, patience, policy::select_all_tag)
      .then(
        [self, r](std::vector<int> xs) {
          int sum = 0;
          for (auto x : xs)
            sum += x;
          self->mail(ok_atom_v, static_cast<int>(xs.size()), sum).send(r);
        },
        [](error& err) { ADD_FAILURE() << to_string(err); });
    return behavior{[](int) {}};
  });
  int count = 0;
  int sum = 0;
  self->receive([&](ok_atom, int n, int s) { count = n; sum = s; },
                after(patience) >> [] { ADD_FAILURE() << "no result in time"; });
  EXPECT_EQ(count, 4);
  EXPECT_EQ(sum, 100);
  self->send_exit(boss, exit_reason::user_shutdown);
}

TEST_P(mails, fan_out_request_select_all_reports_the_first_error_once) {
  std::vector<actor> workers{
    sys.spawn([] { return behavior{[](get_atom) { return 1; }}; }),
    sys.spawn([] {
      return behavior{[](get_atom) -> result<int> { return make_error(errc::runtime_error); }};
    }),
    sys.spawn([] {
      return behavior{[](get_atom) -> result<int> { return make_error(errc::runtime_error); }};
    }),
  };
  auto boss = sys.spawn([workers, r = reporter](event_based_actor* self) {
    self->mail(get_atom_v)
      .fan_out_request(workers, patience, policy::select_all_tag)
      .then([self, r](std::vector<int>) { self->mail(ok_atom_v).send(r); },
            [self, r](error& err) { self->mail(err).send(r); });
    return behavior{[](int) {}};
  });
  error seen;
  self->receive([&](error& err) { seen = err; },
                after(patience) >> [] { ADD_FAILURE() << "no error in time"; });
  EXPECT_EQ(seen, errc::runtime_error);
  EXPECT_FALSE(has_queued<error>());
  EXPECT_FALSE(has_queued<ok_atom>());
  self->send_exit(boss, exit_reason::user_shutdown);
}

TEST_P(mails, fan_out_request_select_any_takes_the_first_answer) {
  std::vector<actor> workers{
    sys.spawn([] {
      return behavior{[](get_atom) -> result<int> { return make_error(errc::runtime_error); }};
    }),
    sys.spawn([] { return behavior{[](get_atom) { return 7; }}; }),
  };
  auto boss = sys.spawn([workers, r = reporter](event_based_actor* self) {
    self->mail(get_atom_v)
      .fan_out_request(workers, patience, policy::select_any_tag)
      .then([self, r](int x) { self->mail(ok_atom_v, x).send(r); },
            [](error& err) { ADD_FAILURE() << to_string(err); });
    return behavior{[](int) {}};
  });
  int x = 0;
  self->receive([&](ok_atom, int y) { x = y; },
                after(patience) >> [] { ADD_FAILURE() << "no result in time"; });
  EXPECT_EQ(x, 7);
  self->send_exit(boss, exit_reason::user_shutdown);
}

TEST(predefined_atoms, print_by_name_and_have_ids_below_the_custom_range) {
  EXPECT_EQ(to_string(make_message(get_atom_v, 1)), "message(get_atom, 1)");
  EXPECT_LT(type_id<put_atom>::value, first_custom_type_id);
  EXPECT_NE(type_id<put_atom>::value, type_id<get_atom>::value);
}

TROUPE_TEST_EVERY_POLICY(mails);


// -- delayed mail, in virtual time -----------------------------------------------------

class mails_in_virtual_time : public troupe::test::fixture::deterministic {};

TEST_F(mails_in_virtual_time, delay_sends_exactly_after_the_delay) {
  auto a = sys.spawn([] { return behavior{[](tick_atom) {}, [](int) {}}; });
  auto start = now();
  anon_mail(tick_atom_v).delay(30ms).send(a);
  auto b = sys.spawn([a](event_based_actor* self) { self->mail(1).delay(40ms).send(a); });
  advance_time(29ms);
  EXPECT_EQ(mail_count(a), 0u);
  advance_time(1ms);
  expect<tick_atom>().from(nullptr).to(a);
  advance_time(10ms);
  expect<int>().from(b).to(a);
  EXPECT_EQ(now(), start + 40ms);
}

TEST_F(mails_in_virtual_time, a_disposed_delayed_mail_never_arrives_and_is_no_dead_letter) {
  disposable first;
  disposable anon;
  auto a = sys.spawn([&first, &anon](event_based_actor* self) {
    first = self->mail(1).delay(20ms).send(self);
    anon = anon_mail(2).delay(20ms).send(self);
    self->mail(3).delay(60ms).send(self);
    return behavior{[](int) {}};
  });
  EXPECT_EQ(num_timeouts(), 3u);
  EXPECT_TRUE(first.valid());
  EXPECT_FALSE(first.disposed());
  first.dispose();
  EXPECT_TRUE(first.disposed());
  first.dispose(); // twice is harmless
  anon.dispose();
  trigger_all_timeouts();
  expect<int>().with(3).to(a);
  EXPECT_EQ(mail_count(a), 0u);
  EXPECT_EQ(sys.dead_letters(), 0u);
}

TEST_F(mails_in_virtual_time, a_delayed_mail_counts_as_disposed_once_it_was_sent) {
  auto a = sys.spawn([] { return behavior{[](tick_atom) {}}; });
  auto tick = anon_mail(tick_atom_v).delay(1ms).send(a);
  EXPECT_FALSE(tick.disposed());
  advance_time(1ms);
  EXPECT_TRUE(tick.disposed());
  tick.dispose(); // too late: changes nothing
  expect<tick_atom>().to(a);
}

} // namespace
