// How the messages of timers that came due reach their actors
// (actor_system::deliver_due): through the workers for actors they run, in
// deadline order, at once for the others, and never lost at shutdown.

#include "troupe/actor_system.hpp"

#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include "support/policies.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::eventually;
using troupe::test::patience;
using troupe::test::policy_config;
using troupe::test::spin_until;

namespace {

class due_delivery : public troupe::test::policy_test {
protected:
  policy_config cfg{GetParam()};
};

/// What an actor received, readable from the test's thread.
struct received {
  std::mutex mtx;
  std::vector<std::string> texts;
  std::vector<int> numbers;

  size_t size() {
    std::lock_guard guard{mtx};
    return texts.size() + numbers.size();
  }
};

behavior recorder(std::shared_ptr<received> log) {
  return {
    [log](const std::string& x) {
      std::lock_guard guard{log->mtx};
      log->texts.push_back(x);
    },
    [log](int x) {
      std::lock_guard guard{log->mtx};
      log->numbers.push_back(x);
    },
  };
}

TEST_P(due_delivery, a_due_message_waits_outside_its_actor_while_the_workers_are_busy) {
  // One worker, kept busy by the sender until its timer came due: the
  // message the sender then sends itself reaches the receiver first, since
  // the due one waits for the worker, outside the receiver's mailbox. (On
  // the timer thread it would have been enqueued first.)
  cfg.scheduler.max_threads = 1;
  actor_system sys{cfg};
  auto log = std::make_shared<received>();
  auto receiver = sys.spawn([log] { return recorder(log); });
  auto sender = sys.spawn([&sys, receiver](event_based_actor* self) -> behavior {
    return {[&sys, self, receiver](int) {
      self->delayed_send(receiver, 1ms, "due"s);
      EXPECT_TRUE(spin_until([&] { return sys.clock().pending() == 0; }));
      // Time for the timer thread to hand it over.
      std::this_thread::sleep_for(20ms);
      self->send(receiver, "sent"s);
    }};
  });
  anon_send(sender, 0);
  ASSERT_TRUE(eventually([&] { return log->size() == 2; }));
  std::lock_guard guard{log->mtx};
  EXPECT_EQ(log->texts, (std::vector{"sent"s, "due"s}));
}

TEST_P(due_delivery, due_messages_reach_one_actor_in_deadline_order) {
  // Many timers come due together and the workers deliver them
  // concurrently: still in deadline order, equal deadlines in the order
  // they were set.
  actor_system sys{cfg};
  auto log = std::make_shared<received>();
  auto receiver = sys.spawn([log] { return recorder(log); });
  constexpr int n = 5000;
  for (int i = 0; i < n; ++i)
    delayed_anon_send(receiver, std::chrono::microseconds{2000 + (i / 100) * 50}, i);
  ASSERT_TRUE(eventually([&] { return log->size() == n; }));
  std::lock_guard guard{log->mtx};
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(log->numbers[i], i) << "out of order at " << i;
}

TEST_P(due_delivery, a_blocking_actor_gets_its_due_message_while_every_worker_is_busy) {
  actor_system sys{cfg};
  std::atomic<bool> released{false};
  std::atomic<int> busy{0};
  std::vector<actor> hogs;
  for (size_t i = 0; i < sys.scheduler().num_workers(); ++i) {
    hogs.push_back(sys.spawn([&] {
      return behavior{[&](int) {
        busy.fetch_add(1);
        EXPECT_TRUE(spin_until([&] { return released.load(); }));
      }};
    }));
    anon_send(hogs.back(), 0);
  }
  ASSERT_TRUE(eventually([&] { return busy.load() == static_cast<int>(hogs.size()); }));
  scoped_actor self{sys};
  self->delayed_send(self->self_handle(), 1ms, "due"s);
  bool got = false;
  self->receive([&](const std::string& x) { got = x == "due"; },
                after(patience) >> [] { ADD_FAILURE() << "the due message did not come"; });
  released = true;
  EXPECT_TRUE(got);
}

TEST_P(due_delivery, a_detached_actor_gets_its_due_message_while_every_worker_is_busy) {
  cfg.scheduler.max_threads = 1;
  actor_system sys{cfg};
  std::atomic<bool> released{false};
  std::atomic<bool> busy{false};
  auto hog = sys.spawn([&] {
    return behavior{[&](int) {
      busy = true;
      EXPECT_TRUE(spin_until([&] { return released.load(); }));
    }};
  });
  anon_send(hog, 0);
  ASSERT_TRUE(eventually([&] { return busy.load(); }));
  sys.spawn<detached>([&](event_based_actor* self) -> behavior {
    self->delayed_send(self->self_handle(), 1ms, "due"s);
    return {[&, self](const std::string&) {
      released = true;
      self->quit();
    }};
  });
  EXPECT_TRUE(eventually([&] { return released.load(); }));
  released = true;
}

TEST_P(due_delivery, due_messages_in_flight_at_shutdown_are_delivered_or_dead_letters) {
  // The only worker is busy while every timer comes due, so all their
  // messages wait for it when the system shuts down: each one is then
  // either received or counted as a dead letter, none lost.
  cfg.scheduler.max_threads = 1;
  actor_system sys{cfg};
  auto log = std::make_shared<received>();
  auto receiver = sys.spawn([log] { return recorder(log); });
  constexpr int n = 1000;
  std::atomic<bool> handed_over{false};
  std::atomic<bool> released{false};
  auto hog = sys.spawn([&](event_based_actor* self) -> behavior {
    return {[&, self](int) {
      for (int i = 0; i < n; ++i)
        self->delayed_send(receiver, 1ms, i);
      EXPECT_TRUE(spin_until([&] { return sys.clock().pending() == 0; }));
      handed_over = true;
      EXPECT_TRUE(spin_until([&] { return released.load(); }));
    }};
  });
  auto dead_before = sys.dead_letters();
  anon_send(hog, 0);
  ASSERT_TRUE(eventually([&] { return handed_over.load(); }));
  sys.shutdown();
  released = true;
  EXPECT_TRUE(eventually(
    [&] { return log->size() + (sys.dead_letters() - dead_before) == n; }))
    << log->size() << " received, " << sys.dead_letters() - dead_before << " dead letters";
}

TROUPE_TEST_EVERY_POLICY(due_delivery);

} // namespace
