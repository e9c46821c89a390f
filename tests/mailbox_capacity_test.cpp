// Bounded mailboxes: drop refuses what finds the mailbox full, mute slows
// the sender down and loses nothing.

#include "troupe/actor_system.hpp"
#include "troupe/defaults.hpp"

#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::holds;
using troupe::test::patience;

namespace {

class mailbox_capacities : public troupe::test::actor_fixture {};

/// What a test shares with the actor it floods: the actor holds its first
/// message (a string) until `release` is set, and counts the ints it gets.
struct flood_target {
  std::promise<void> holding;
  std::promise<void> release;
  std::shared_future<void> released{release.get_future().share()};
  std::atomic<int> ints{0};
  std::atomic<size_t> max_queued{0};
};

behavior held_counter(event_based_actor* self, std::shared_ptr<flood_target> t) {
  return {
    [self, t](const std::string&) {
      t->holding.set_value();
      t->released.wait();
    },
    [self, t](int) {
      ++t->ints;
      auto queued = self->mailbox_size();
      if (queued > t->max_queued)
        t->max_queued = queued;
    },
  };
}

TEST_P(mailbox_capacities, drop_counts_what_finds_the_mailbox_full_as_dead_letters) {
  auto t = std::make_shared<flood_target>();
  auto a = sys.spawn(mailbox_limit{10, mailbox_overflow::drop}, held_counter, t);
  self->send(a, "hold"s);
  t->holding.get_future().wait();
  auto before = sys.dead_letters();
  for (int i = 0; i < 100; ++i)
    self->send(a, i);
  EXPECT_EQ(sys.dead_letters(), before + 90);
  t->release.set_value();
  while (t->ints < 10 && !::testing::Test::HasFailure())
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(t->ints, 10);
}

TEST_P(mailbox_capacities, drop_answers_a_request_that_finds_it_full_with_queue_full) {
  auto t = std::make_shared<flood_target>();
  auto a = sys.spawn(mailbox_limit{2, mailbox_overflow::drop}, held_counter, t);
  self->send(a, "hold"s);
  t->holding.get_future().wait();
  self->send(a, 1);
  self->send(a, 2);
  error seen;
  self->request(a, patience, 3).receive([](int) {}, [&](const error& err) { seen = err; });
  EXPECT_EQ(seen, errc::queue_full);
  t->release.set_value();
}

TEST_P(mailbox_capacities, a_thread_outside_the_scheduler_waits_for_room_and_loses_nothing) {
  auto t = std::make_shared<flood_target>();
  auto a = sys.spawn(mailbox_limit{50, mailbox_overflow::mute}, held_counter, t);
  auto before = sys.dead_letters();
  t->release.set_value();
  std::thread producer{[&] {
    scoped_actor out{sys};
    for (int i = 0; i < 5000; ++i)
      out->send(a, i);
  }};
  producer.join();
  while (t->ints < 5000 && !::testing::Test::HasFailure())
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(t->ints, 5000);
  EXPECT_EQ(sys.dead_letters(), before);
  EXPECT_LE(t->max_queued, 50u);
}

TEST_P(mailbox_capacities, a_waiting_thread_drops_its_message_after_the_push_timeout) {
  cfg.mailbox.push_timeout = 20ms;
  actor_system local{cfg};
  auto t = std::make_shared<flood_target>();
  auto a = local.spawn(mailbox_limit{4, mailbox_overflow::mute}, held_counter, t);
  scoped_actor out{local};
  out->send(a, "hold"s);
  t->holding.get_future().wait();
  auto before = local.dead_letters();
  for (int i = 0; i < 5; ++i)
    out->send(a, i);
  EXPECT_EQ(local.dead_letters(), before + 1);
  t->release.set_value();
}

TEST_P(mailbox_capacities, a_muted_actor_producer_never_floods_the_consumer) {
  auto t = std::make_shared<flood_target>();
  constexpr size_t capacity = 64;
  auto consumer = sys.spawn(mailbox_limit{capacity, mailbox_overflow::mute}, held_counter, t);
  // One message to the consumer per handler, then the next from itself:
  // the producer can be muted between any two.
  auto producer = sys.spawn([consumer](event_based_actor* self) {
    return behavior{[self, consumer](int left) {
      self->send(consumer, left);
      if (left > 1)
        self->send(self->self_handle(), left - 1);
    }};
  });
  auto before = sys.dead_letters();
  self->send(producer, 20000);
  while (t->ints < 20000 && !::testing::Test::HasFailure())
    std::this_thread::sleep_for(1ms);
  EXPECT_EQ(t->ints, 20000);
  EXPECT_EQ(sys.dead_letters(), before);
  // The send that finds the mailbox full is queued, then its sender pauses,
  // so the mailbox holds capacity + 1. size() may count a message twice for
  // a moment while the consumer moves the inbox into its caches
  // (mailbox_queue::fetch_more), so a peak of capacity + 2 can be seen. An
  // unmuted producer would queue thousands.
  EXPECT_LE(t->max_queued, 2 * capacity);
}

TEST_P(mailbox_capacities, two_full_actors_sending_to_each_other_both_finish) {
  // Each forwards n - 1 to the other until 0. With both mailboxes full and
  // each sending to the other, muting both would stop both forever; a
  // sender whose own mailbox is at least half full is never muted.
  auto handled = std::make_shared<std::atomic<int>>(0);
  auto make = [&] {
    return sys.spawn(mailbox_limit{8, mailbox_overflow::mute}, [handled](event_based_actor* self) {
      auto other = std::make_shared<actor>();
      return behavior{
        [other](const actor& x) {
          *other = x;
          return true;
        },
        [self, handled, other](int n) {
          ++*handled;
          if (n > 0)
            self->send(*other, n - 1);
        },
      };
    });
  };
  auto a = make();
  auto b = make();
  EXPECT_TRUE(holds(ask<bool>(a, b), true));
  EXPECT_TRUE(holds(ask<bool>(b, a), true));
  auto flood = [&](const actor& dest) {
    scoped_actor out{sys};
    for (int i = 0; i < 200; ++i)
      out->send(dest, 20);
  };
  std::thread pa{flood, a};
  std::thread pb{flood, b};
  pa.join();
  pb.join();
  constexpr int expected = 2 * 200 * 21;
  troupe::test::eventually([&] { return *handled >= expected; });
  EXPECT_EQ(*handled, expected);
  // Break the cycle of handles.
  self->send(a, actor{});
  self->send(b, actor{});
}

TEST_P(mailbox_capacities, a_ring_of_full_actors_flooded_from_outside_loses_nothing) {
  // Each forwards n - 1 to the next until 0, while threads outside keep
  // every mailbox full: an actor muted on the next one must run again once
  // its own mailbox fills, or the ring would stop with every actor muted.
  constexpr int ring_size = 4;
  constexpr int per_thread = 100;
  constexpr int hops = 30;
  auto handled = std::make_shared<std::atomic<int>>(0);
  std::vector<actor> ring;
  for (int i = 0; i < ring_size; ++i)
    ring.push_back(sys.spawn(mailbox_limit{4, mailbox_overflow::mute},
                             [handled](event_based_actor* self) {
                               auto next = std::make_shared<actor>();
                               return behavior{
                                 [next](const actor& x) {
                                   *next = x;
                                   return true;
                                 },
                                 [self, handled, next](int n) {
                                   ++*handled;
                                   if (n > 0)
                                     self->send(*next, n - 1);
                                 },
                               };
                             }));
  for (int i = 0; i < ring_size; ++i)
    EXPECT_TRUE(holds(ask<bool>(ring[i], ring[(i + 1) % ring_size]), true));
  auto before = sys.dead_letters();
  std::vector<std::thread> floods;
  for (int i = 0; i < ring_size; ++i)
    floods.emplace_back([&, i] {
      scoped_actor out{sys};
      for (int j = 0; j < per_thread; ++j)
        out->send(ring[i], hops);
    });
  for (auto& t : floods)
    t.join();
  constexpr int expected = ring_size * per_thread * (hops + 1);
  troupe::test::eventually([&] { return *handled >= expected; });
  EXPECT_EQ(*handled, expected);
  EXPECT_EQ(sys.dead_letters(), before);
  for (auto& x : ring)
    self->send(x, actor{});
}

TEST_P(mailbox_capacities, the_config_bounds_every_mailbox) {
  cfg.mailbox.capacity = 3;
  cfg.mailbox.overflow = mailbox_overflow::drop;
  actor_system local{cfg};
  auto a = local.spawn([] { return behavior{[](int x) { return x; }}; });
  EXPECT_EQ(static_cast<local_actor*>(actor_cast_raw(a))->mailbox_capacity(), 3u);
}

TEST_P(mailbox_capacities, a_bound_beyond_the_largest_is_refused_with_the_limit) {
  actor_system local{cfg};
  auto over = defaults::mailbox::max_capacity + 1;
  try {
    local.spawn(mailbox_limit{over, mailbox_overflow::drop}, [] { return behavior{[](int) {}}; });
    ADD_FAILURE() << "spawn accepted a capacity of " << over;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string{e.what()}.find("32768"), std::string::npos) << e.what();
  }
  auto a = local.spawn(mailbox_limit{defaults::mailbox::max_capacity, mailbox_overflow::drop},
                       [] { return behavior{[](int) {}}; });
  EXPECT_EQ(static_cast<local_actor*>(actor_cast_raw(a))->mailbox_capacity(),
            defaults::mailbox::max_capacity);
}

TROUPE_TEST_EVERY_POLICY(mailbox_capacities);

} // namespace
