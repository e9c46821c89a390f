// set_idle_handler: a handler that runs once an actor has handled no message
// for a delay, as in CAF 1.x. Tests assert only what no scheduling delay can
// change: that the handler never runs before the delay, how often it runs,
// and who keeps the actor alive.

#include "troupe/atoms.hpp"
#include "troupe/event_based_actor.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

using namespace std::chrono_literals;
using namespace troupe;

using troupe::test::patience;

namespace {

using clock_type = std::chrono::steady_clock;

class idle_handlers : public troupe::test::actor_fixture {};

TEST_P(idle_handlers, a_once_handler_runs_once_after_the_delay) {
  auto start = clock_type::now();
  auto a = sys.spawn([r = reporter](event_based_actor* self) {
    self->set_idle_handler(30ms, strong_ref, once, [self, r] { self->mail(idle_atom_v).send(r); });
    return behavior{[](int) {}};
  });
  next<idle_atom>();
  EXPECT_GE(clock_type::now() - start, 30ms);
  // Three more delays of quiet: a once handler stays silent.
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(has_queued<idle_atom>());
  self->send_exit(a, exit_reason::user_shutdown);
}

TEST_P(idle_handlers, a_repeat_handler_runs_after_every_quiet_delay_until_the_actor_quits) {
  auto a = sys.spawn([r = reporter](event_based_actor* self) {
    auto count = std::make_shared<int>(0);
    self->set_idle_handler(10ms, strong_ref, repeat, [self, r, count] {
      self->mail(idle_atom_v, ++*count).send(r);
      if (*count == 3)
        self->quit();
    });
    return behavior{[](int) {}};
  });
  self->monitor(a);
  for (int i = 1; i <= 3; ++i)
    self->receive([&](idle_atom, int n) { EXPECT_EQ(n, i); },
                  after(patience) >> [] { ADD_FAILURE() << "no idle report in time"; });
  EXPECT_EQ(next<down_msg>().reason, exit_reason::normal);
  EXPECT_FALSE(has_queued<idle_atom>());
}

TEST_P(idle_handlers, every_message_postpones_the_handler_by_a_full_delay) {
  auto a = sys.spawn([r = reporter](event_based_actor* self) {
    auto last = std::make_shared<clock_type::time_point>(clock_type::now());
    self->set_idle_handler(40ms, strong_ref, once, [self, r, last] {
      auto quiet = std::chrono::duration_cast<timespan>(clock_type::now() - *last);
      self->mail(idle_atom_v, quiet).send(r);
    });
    return behavior{[last](int) { *last = clock_type::now(); }};
  });
  for (int i = 0; i < 10; ++i) {
    self->mail(i).send(a);
    std::this_thread::sleep_for(10ms);
  }
  self->receive([&](idle_atom, timespan quiet) { EXPECT_GE(quiet, 40ms); },
                after(patience) >> [] { ADD_FAILURE() << "no idle report in time"; });
  self->send_exit(a, exit_reason::user_shutdown);
}

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

TEST_P(idle_handlers, a_new_handler_replaces_the_old_one) {
  auto a = sys.spawn([r = reporter](event_based_actor* self) {
    self->set_idle_handler(10ms, strong_ref, once,
                           [self, r] { self->mail(idle_atom_v, std::string{"old"}).send(r); });
    self->set_idle_handler(30ms, strong_ref, once,
                           [self, r] { self->mail(idle_atom_v, std::string{"new"}).send(r); });
    return behavior{[](int) {}};
  });
  self->receive([&](idle_atom, const std::string& which) { EXPECT_EQ(which, "new"); },
                after(patience) >> [] { ADD_FAILURE() << "no idle report in time"; });
  std::this_thread::sleep_for(60ms);
  EXPECT_FALSE(has_queued<idle_atom>());
  self->send_exit(a, exit_reason::user_shutdown);
}

TEST_P(idle_handlers, a_handler_may_set_its_successor) {
  auto a = sys.spawn([r = reporter](event_based_actor* self) {
    self->set_idle_handler(10ms, strong_ref, repeat, [self, r] {
      self->mail(idle_atom_v, 1).send(r);
      self->set_idle_handler(10ms, strong_ref, once, [self, r] {
        self->mail(idle_atom_v, 2).send(r);
      });
    });
    return behavior{[](int) {}};
  });
  self->receive([&](idle_atom, int n) { EXPECT_EQ(n, 1); },
                after(patience) >> [] { ADD_FAILURE() << "no first report in time"; });
  self->receive([&](idle_atom, int n) { EXPECT_EQ(n, 2); },
                after(patience) >> [] { ADD_FAILURE() << "no second report in time"; });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(has_queued<idle_atom>());
  self->send_exit(a, exit_reason::user_shutdown);
}

TEST_P(idle_handlers, an_actor_awaiting_a_response_is_not_idle) {
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
  auto a = sys.spawn([r = reporter, slow](event_based_actor* self) {
    auto answered = std::make_shared<bool>(false);
    self->set_idle_handler(20ms, strong_ref, once,
                           [self, r, answered] { self->mail(idle_atom_v, *answered).send(r); });
    self->mail(get_atom_v).request(slow, patience).await([answered](int) { *answered = true; });
    return behavior{[](int) {}};
  });
  self->receive([&](idle_atom, bool answered) { EXPECT_TRUE(answered); },
                after(patience) >> [] { ADD_FAILURE() << "no idle report in time"; });
  self->send_exit(a, exit_reason::user_shutdown);
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
