#include "troupe/actor_system.hpp"
#include "troupe/defaults.hpp"

#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include "support/policies.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::patience;
using troupe::test::policy_config;
using troupe::test::scaled;

namespace {

/// Quits once a message it sends itself with a delay arrives, after adding
/// one to `*done`.
behavior quit_later(event_based_actor* self, std::shared_ptr<std::atomic<int>> done) {
  self->delayed_send(self->self_handle(), 20ms, "quit"s);
  return {[self, done](const std::string&) {
    done->fetch_add(1);
    self->quit();
  }};
}

class actor_systems : public troupe::test::policy_test {
protected:
  policy_config cfg{GetParam()};
};

TEST_P(actor_systems, the_configured_policy_selects_the_scheduler) {
  actor_system sys{cfg};
  EXPECT_EQ(sys.scheduler().name(), troupe::test::policy_of(GetParam()));
  EXPECT_EQ(sys.scheduler().num_workers(), 2u);
}

TEST_P(actor_systems, scheduler_stats_have_one_entry_per_worker) {
  actor_system sys{cfg};
  auto a = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  scoped_actor self{sys};
  for (int i = 0; i < 10; ++i)
    self->request(a, patience, i).receive([](int) {}, [](const error&) { ADD_FAILURE(); });
  auto stats = sys.scheduler_stats();
  ASSERT_EQ(stats.size(), 2u);
  uint64_t jobs = 0;
  for (auto& x : stats)
    jobs += x.jobs_run;
  // Requests that arrive while the actor still runs share one resume.
  EXPECT_GE(jobs, 1u);
}

/// Waits until every worker of `sys` has blocked at least once since `before`
/// and none has run a job for a while: the system is idle.
bool settles(const actor_system& sys) {
  auto deadline = std::chrono::steady_clock::now() + patience;
  for (;;) {
    auto before = sys.scheduler_stats();
    std::this_thread::sleep_for(50ms);
    auto now = sys.scheduler_stats();
    bool idle = true;
    for (size_t i = 0; i < now.size(); ++i)
      idle = idle && now[i].parks > 0 && now[i].jobs_run == before[i].jobs_run;
    if (idle)
      return true;
    if (std::chrono::steady_clock::now() > deadline)
      return false;
  }
}

TEST_P(actor_systems, a_message_sent_while_every_worker_is_parked_is_handled) {
  actor_system sys{cfg};
  auto a = sys.spawn([] { return behavior{[](int x) { return x + 1; }}; });
  ASSERT_TRUE(settles(sys));
  scoped_actor self{sys};
  for (int i = 0; i < 3; ++i) {
    self->request(a, patience, i).receive([&](int y) { EXPECT_EQ(y, i + 1); },
                                         [](const error& e) { ADD_FAILURE() << to_string(e); });
    ASSERT_TRUE(settles(sys));
  }
}

TEST_P(actor_systems, an_idle_system_with_actors_alive_makes_no_wake_ups_over_a_second) {
  if (!troupe::test::sleeps_until_woken(GetParam()))
    GTEST_SKIP() << "idle workers of this mode wake on a timer (scheduler_test counts them)";
  actor_system sys{cfg};
  std::vector<actor> actors;
  for (int i = 0; i < 100; ++i)
    actors.push_back(sys.spawn([] { return behavior{[](int x) { return x; }}; }));
  ASSERT_TRUE(settles(sys));
  // The promise holds from max_anticipation after the last job on: until
  // then a worker that saw a rhythm may keep warm in timed parks.
  std::this_thread::sleep_for(troupe::defaults::scheduler::max_anticipation);
  auto before = sys.scheduler_stats();
  std::this_thread::sleep_for(1s);
  auto after = sys.scheduler_stats();
  for (size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].wakeups, before[i].wakeups) << "worker " << i;
    EXPECT_EQ(after[i].jobs_run, before[i].jobs_run) << "worker " << i;
    EXPECT_GE(after[i].time_idle - before[i].time_idle, 900ms) << "worker " << i;
  }
}

TEST_P(actor_systems, running_actors_counts_spawned_actors_until_they_terminate) {
  actor_system sys{cfg};
  EXPECT_EQ(sys.running_actors(), 0u);
  std::vector<actor> actors;
  for (int i = 0; i < 3; ++i)
    actors.push_back(sys.spawn([] { return behavior{[](int x) { return x; }}; }));
  auto blocking = sys.spawn([](blocking_actor* b) { b->receive([](int) {}); });
  EXPECT_EQ(sys.running_actors(), 4u);
  auto hidden_actor = sys.spawn<hidden>([] { return behavior{[](int x) { return x; }}; });
  scoped_actor self{sys};
  EXPECT_EQ(sys.running_actors(), 4u) << "hidden and scoped actors are not counted";
  for (auto& a : actors)
    anon_send_exit(a, exit_reason::user_shutdown);
  anon_send(blocking, 1);
  sys.await_all_actors_done();
  EXPECT_EQ(sys.running_actors(), 0u);
  anon_send_exit(hidden_actor, exit_reason::user_shutdown);
}

TEST_P(actor_systems, await_all_actors_done_returns_once_every_actor_quit) {
  actor_system sys{cfg};
  auto done = std::make_shared<std::atomic<int>>(0);
  for (int i = 0; i < 5; ++i)
    sys.spawn(quit_later, done);
  sys.await_all_actors_done();
  EXPECT_EQ(done->load(), 5);
  EXPECT_EQ(sys.running_actors(), 0u);
}

TEST_P(actor_systems, await_all_actors_done_returns_at_once_without_actors) {
  actor_system sys{cfg};
  sys.await_all_actors_done();
  EXPECT_EQ(sys.running_actors(), 0u);
}

TEST_P(actor_systems, destroying_the_system_waits_for_actors_still_alive) {
  auto done = std::make_shared<std::atomic<int>>(0);
  {
    actor_system sys{cfg};
    sys.spawn(quit_later, done);
    sys.spawn<detached>(quit_later, done);
    sys.spawn(
      [](blocking_actor* b, std::shared_ptr<std::atomic<int>> done) {
        b->receive([](int) {}, after(20ms) >> [] {});
        done->fetch_add(1);
      },
      done);
  }
  EXPECT_EQ(done->load(), 3);
}

TEST_P(actor_systems, a_message_to_an_invalid_handle_is_a_dead_letter) {
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto before = sys.dead_letters();
  self->send(actor{}, 1);
  EXPECT_EQ(sys.dead_letters(), before + 1);
}

TEST_P(actor_systems, spawned_actors_get_distinct_ids) {
  actor_system sys{cfg};
  auto a = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  auto b = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  scoped_actor self{sys};
  EXPECT_NE(a.id(), 0u);
  EXPECT_NE(a.id(), b.id());
  EXPECT_NE(a.id(), self.handle().id());
  EXPECT_FALSE(a == b);
}

TEST_P(actor_systems, many_actors_spawned_from_actors_all_run) {
  actor_system sys{cfg};
  constexpr int children = scaled(2000, 200);
  auto ran = std::make_shared<std::atomic<int>>(0);
  sys.spawn([ran](event_based_actor* parent) {
    for (int i = 0; i < children; ++i)
      parent->system().spawn([ran](event_based_actor*) { ran->fetch_add(1); });
  });
  sys.await_all_actors_done();
  EXPECT_EQ(ran->load(), children);
}

TEST_P(actor_systems, an_actor_flooded_by_one_long_handler_runs_meanwhile) {
  // The sender's first message schedules the receiver on the sender's own
  // worker; the handler then keeps sending and waits for the receiver. It
  // can see it run only if the runtime hands the receiver to the other
  // worker when its mailbox backs up.
  actor_system sys{cfg};
  auto received = std::make_shared<std::atomic<int>>(0);
  auto receiver = sys.spawn([received] {
    return behavior{[received](int) { received->fetch_add(1); }};
  });
  constexpr int sends = 1000;
  // 0 while the handler runs, then 1 if it saw the receiver run, 2 if not.
  auto verdict = std::make_shared<std::atomic<int>>(0);
  auto sender = sys.spawn([=](event_based_actor* self) {
    return behavior{[=](int n) {
      for (int i = 0; i < n; ++i)
        self->send(receiver, i);
      troupe::test::spin_until([&] { return received->load() > 0; });
      *verdict = received->load() > 0 ? 1 : 2;
    }};
  });
  scoped_actor self{sys};
  self->send(sender, sends);
  troupe::test::eventually([&] { return received->load() >= sends && verdict->load() != 0; });
  EXPECT_EQ(verdict->load(), 1) << "the receiver waited for its sender's handler to end";
  EXPECT_EQ(received->load(), sends);
  self->send_exit(sender, exit_reason::user_shutdown);
  self->send_exit(receiver, exit_reason::user_shutdown);
}

} // namespace

TROUPE_TEST_EVERY_POLICY(actor_systems);
