#include "troupe/scoped_actor.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::patience;
using troupe::test::scaled;

namespace {

class scoped_actors : public troupe::test::actor_fixture {};

TEST_P(scoped_actors, a_scoped_actor_is_a_valid_handle_distinct_from_others) {
  scoped_actor other{sys};
  EXPECT_TRUE(static_cast<bool>(self.handle()));
  EXPECT_NE(self.handle().id(), other.handle().id());
  EXPECT_EQ(self.ctrl(), self.handle().ctrl());
  EXPECT_EQ(self.ptr(), self.operator->());
}

TEST_P(scoped_actors, a_request_from_a_scoped_actor_receives_the_response) {
  auto doubler = sys.spawn([] { return behavior{[](int x) { return 2 * x; }}; });
  int value = 0;
  self->request(doubler, patience, 21)
    .receive([&](int x) { value = x; }, [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(value, 42);
}

TEST_P(scoped_actors, actors_reach_a_scoped_actor_through_the_sender_of_a_message) {
  auto echo = sys.spawn([](event_based_actor* a) {
    return behavior{[a](int x) { a->send(actor{a->current_sender()}, x + 1); }};
  });
  self->send(echo, 1);
  EXPECT_EQ(next<int>(), 2);
}

TEST_P(scoped_actors, two_scoped_actors_on_one_thread_exchange_messages) {
  scoped_actor other{sys};
  other->send(self.handle(), "hello"s);
  bool from_other = false;
  std::string text;
  self->receive(
    [&](const std::string& x) {
      text = x;
      from_other = self->current_sender() == other.handle().ptr();
    },
    after(patience) >> [] { ADD_FAILURE() << "no message"; });
  EXPECT_EQ(text, "hello");
  EXPECT_TRUE(from_other);
}

TEST_P(scoped_actors, a_scoped_actor_is_hidden_from_running_actors_and_await_all_actors_done) {
  auto before = sys.running_actors();
  {
    scoped_actor other{sys};
    EXPECT_EQ(sys.running_actors(), before);
    // Returns although `self` and `other` are alive.
    sys.await_all_actors_done();
  }
  EXPECT_EQ(sys.running_actors(), before);
}

TEST_P(scoped_actors, a_scoped_actor_terminates_normally_when_it_goes_out_of_scope) {
  actor inner_handle;
  {
    scoped_actor inner{sys};
    inner_handle = inner.handle();
    self->monitor(inner_handle);
    EXPECT_FALSE(actor_cast_raw(inner_handle)->terminated());
  }
  auto down = next<down_msg>();
  EXPECT_TRUE(down.source == inner_handle.address());
  EXPECT_EQ(down.reason, exit_reason::normal);
  EXPECT_TRUE(actor_cast_raw(inner_handle)->terminated());
}

TEST_P(scoped_actors, requests_a_scoped_actor_never_received_get_actor_down_when_it_goes) {
  std::optional<scoped_actor> inner{std::in_place, sys};
  actor target = inner->handle();
  // Reports to us once its request to `target` is queued there, and then
  // what became of that request.
  auto client = sys.spawn(
    [r = reporter](event_based_actor* c, actor target) {
      c->request(target, infinite, 1)
        .then([=](int) { c->send(r, "answered"s); }, [=](error& err) { c->send(r, err); });
      c->send(r, "sent"s);
    },
    target);
  ASSERT_EQ(next<std::string>(), "sent");
  inner.reset();
  EXPECT_EQ(next<error>(), errc::actor_down);
}

TEST_P(scoped_actors, a_message_to_a_scoped_actor_that_is_gone_is_a_dead_letter) {
  actor gone;
  {
    scoped_actor inner{sys};
    gone = inner.handle();
  }
  auto before = sys.dead_letters();
  self->send(gone, 1);
  EXPECT_EQ(sys.dead_letters(), before + 1);
}

TEST_P(scoped_actors, messages_from_many_senders_all_arrive_each_sender_in_order) {
  constexpr int senders = 4;
  constexpr int per_sender = scaled(5000, 500);
  std::vector<actor> workers;
  for (int s = 0; s < senders; ++s)
    workers.push_back(sys.spawn(
      [r = reporter, s](event_based_actor* w) {
        for (int i = 0; i < per_sender; ++i)
          w->send(r, s, i);
      }));
  std::vector<int> next_seq(senders, 0);
  for (int n = 0; n < senders * per_sender; ++n) {
    bool got = false;
    self->receive(
      [&](int s, int i) {
        got = true;
        ASSERT_TRUE(s >= 0 && s < senders);
        EXPECT_EQ(i, next_seq[s]) << "sender " << s << " out of order";
        next_seq[s] = i + 1;
      },
      after(patience) >> [] {});
    ASSERT_TRUE(got) << "only " << n << " messages arrived";
  }
  for (int s = 0; s < senders; ++s)
    EXPECT_EQ(next_seq[s], per_sender);
}

} // namespace

TROUPE_TEST_EVERY_POLICY(scoped_actors);
