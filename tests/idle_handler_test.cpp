// set_idle_handler: a handler that runs once an actor has handled no message
// for a delay, as in CAF 1.x. When it runs is checked in virtual time (the
// deterministic fixture), to the tick; who keeps the actor alive on real
// threads, under every scheduler policy.

#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"

#include "troupe/test/fixture/deterministic.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;

using troupe::test::patience;

namespace {

// -- when the handler runs: in virtual time ----------------------------------------

class idle_handlers_in_virtual_time : public troupe::test::fixture::deterministic {
public:
  /// Virtual time since the test began.
  timespan elapsed() {
    return std::chrono::duration_cast<timespan>(now() - start_);
  }

  /// Moves time by `d` and runs what that delivered.
  void wait(timespan d) {
    advance_time(d);
    dispatch_messages();
  }

  /// Moves time to the next timer and runs what it delivered.
  void step() {
    ASSERT_TRUE(trigger_timeout());
    dispatch_messages();
  }

private:
  actor_clock::time_point start_ = now();
};

using idle_in_virtual_time = idle_handlers_in_virtual_time;

TEST_F(idle_in_virtual_time, a_once_handler_runs_once_exactly_after_the_delay) {
  std::vector<timespan> runs;
  sys.spawn([this, &runs](event_based_actor* self) {
    self->set_idle_handler(30ms, strong_ref, once, [this, &runs] { runs.push_back(elapsed()); });
    return behavior{[](int) {}};
  });
  wait(29ms);
  EXPECT_TRUE(runs.empty());
  wait(1ms);
  EXPECT_EQ(runs, std::vector<timespan>{30ms});
  wait(1h);
  EXPECT_EQ(runs.size(), 1u);
  EXPECT_EQ(num_timeouts(), 0u);
}

TEST_F(idle_in_virtual_time, a_repeat_handler_runs_after_every_quiet_delay_until_the_actor_quits) {
  std::vector<timespan> runs;
  auto a = sys.spawn([this, &runs](event_based_actor* self) {
    self->set_idle_handler(10ms, strong_ref, repeat, [this, self, &runs] {
      runs.push_back(elapsed());
      if (runs.size() == 3)
        self->quit();
    });
    return behavior{[](int) {}};
  });
  wait(25ms);
  // Each run re-arms the timer for a full delay from then.
  step();
  step();
  EXPECT_EQ(runs, (std::vector<timespan>{25ms, 35ms, 45ms}));
  EXPECT_TRUE(terminated(a));
  EXPECT_EQ(num_timeouts(), 0u);
}

TEST_F(idle_in_virtual_time, every_message_postpones_the_handler_by_a_full_delay) {
  std::vector<timespan> runs;
  auto a = sys.spawn([this, &runs](event_based_actor* self) {
    self->set_idle_handler(40ms, strong_ref, once, [this, &runs] { runs.push_back(elapsed()); });
    return behavior{[](int) {}};
  });
  for (int i = 0; i < 10; ++i) {
    inject().with(i).to(a);
    wait(10ms);
  }
  // The last message came at 90ms.
  EXPECT_TRUE(runs.empty());
  wait(29ms);
  EXPECT_TRUE(runs.empty());
  wait(1ms);
  EXPECT_EQ(runs, std::vector<timespan>{130ms});
}

TEST_F(idle_in_virtual_time, a_new_handler_replaces_the_old_one) {
  std::vector<std::string> runs;
  sys.spawn([&runs](event_based_actor* self) {
    self->set_idle_handler(10ms, strong_ref, once, [&runs] { runs.push_back("old"); });
    self->set_idle_handler(30ms, strong_ref, once, [&runs] { runs.push_back("new"); });
    return behavior{[](int) {}};
  });
  wait(29ms);
  EXPECT_TRUE(runs.empty());
  wait(1h);
  EXPECT_EQ(runs, std::vector<std::string>{"new"});
}

TEST_F(idle_in_virtual_time, a_handler_may_set_its_successor) {
  std::vector<timespan> first;
  std::vector<timespan> second;
  sys.spawn([this, &first, &second](event_based_actor* self) {
    self->set_idle_handler(10ms, strong_ref, repeat, [this, self, &first, &second] {
      first.push_back(elapsed());
      self->set_idle_handler(15ms, strong_ref, once,
                             [this, &second] { second.push_back(elapsed()); });
    });
    return behavior{[](int) {}};
  });
  step();
  step();
  EXPECT_EQ(first, std::vector<timespan>{10ms});
  EXPECT_EQ(second, std::vector<timespan>{25ms});
  EXPECT_EQ(num_timeouts(), 0u);
}

TEST_F(idle_in_virtual_time, an_actor_awaiting_a_response_is_not_idle) {
  // Answers 100ms after a request, much later than the idle delay.
  auto slow = sys.spawn([](event_based_actor* self) {
    return behavior{
      [self](get_atom) {
        auto rp = self->make_response_promise();
        self->mail(ok_atom_v).delay(100ms).send(self);
        self->become(keep_behavior, [self, rp](ok_atom) mutable {
          rp.deliver(42);
          self->unbecome();
        });
        return rp;
      },
    };
  });
  std::vector<timespan> runs;
  bool answered = false;
  sys.spawn([this, slow, &runs, &answered](event_based_actor* self) {
    self->set_idle_handler(20ms, strong_ref, once, [this, &runs] { runs.push_back(elapsed()); });
    self->mail(get_atom_v).request(slow, infinite).await([&answered](int) { answered = true; });
    return behavior{[](int) {}};
  });
  dispatch_messages(); // the request reaches `slow` at 0ms
  wait(99ms);           // the idle timer fires at 20ms, but the actor awaits
  EXPECT_TRUE(runs.empty());
  EXPECT_FALSE(answered);
  wait(1ms);
  EXPECT_TRUE(answered);
  // Re-armed at 99ms while it waited, the timer fires at 119ms and finds
  // the actor quiet only since the response at 100ms.
  step();
  EXPECT_TRUE(runs.empty());
  step();
  EXPECT_EQ(runs, std::vector<timespan>{120ms});
}

// -- who keeps the actor alive: on real threads ------------------------------------------

class idle_handlers : public troupe::test::actor_fixture {};

TEST_P(idle_handlers, a_strong_handler_keeps_an_actor_without_handles_alive_until_it_ran) {
  auto a = sys.spawn([r = reporter](event_based_actor* self) {
    self->set_idle_handler(50ms, strong_ref, once, [self, r] { self->mail(idle_atom_v).send(r); });
    return behavior{[](int) {}};
  });
  self->monitor(a);
  a = nullptr;
  next<idle_atom>();
  // The timer held the last reference: the actor is gone now.
  EXPECT_EQ(next<down_msg>().reason, exit_reason::unreachable);
}

TEST_P(idle_handlers, a_weak_handler_does_not_keep_an_actor_alive) {
  auto a = sys.spawn([r = reporter](event_based_actor* self) {
    self->set_idle_handler(10s, weak_ref, once, [self, r] { self->mail(idle_atom_v).send(r); });
    return behavior{[](int) {}};
  });
  self->monitor(a);
  a = nullptr;
  EXPECT_EQ(next<down_msg>().reason, exit_reason::unreachable);
  EXPECT_FALSE(has_queued<idle_atom>());
}

TEST_P(idle_handlers, a_delay_that_is_not_positive_or_is_infinite_is_an_error) {
  auto a = sys.spawn([r = reporter](event_based_actor* self) {
    auto rejects = [self](timespan delay) {
      try {
        self->set_idle_handler(delay, weak_ref, once, [] {});
      } catch (const std::invalid_argument&) {
        return true;
      }
      return false;
    };
    self->mail(rejects(0ms), rejects(-1ms), rejects(infinite), rejects(1ms)).send(r);
    return behavior{[](int) {}};
  });
  self->receive(
    [&](bool zero, bool negative, bool inf, bool positive) {
      EXPECT_TRUE(zero);
      EXPECT_TRUE(negative);
      EXPECT_TRUE(inf);
      EXPECT_FALSE(positive);
    },
    after(patience) >> [] { ADD_FAILURE() << "no report in time"; });
  self->send_exit(a, exit_reason::user_shutdown);
}

} // namespace

TROUPE_TEST_EVERY_POLICY(idle_handlers);
