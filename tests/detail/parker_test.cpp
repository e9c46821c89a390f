#include "troupe/detail/parker.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

using troupe::detail::parker;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

TEST(parker, a_token_left_before_park_lets_it_return_at_once) {
  parker p;
  p.unpark();
  p.park();
  p.unpark();
  EXPECT_TRUE(p.park_until(clock_type::now() + 10s));
}

TEST(parker, tokens_do_not_add_up) {
  parker p;
  p.unpark();
  p.unpark();
  EXPECT_TRUE(p.park_until(clock_type::now()));
  EXPECT_FALSE(p.park_until(clock_type::now() + 1ms));
}

TEST(parker, try_take_consumes_a_token_only_if_there_is_one) {
  parker p;
  EXPECT_FALSE(p.try_take());
  p.unpark();
  EXPECT_TRUE(p.try_take());
  EXPECT_FALSE(p.try_take()) << "a token is taken once";
  EXPECT_FALSE(p.park_until(clock_type::now() + 1ms)) << "try_take left the token";
}

TEST(parker, a_spinning_owner_sees_every_unpark_from_another_thread) {
  // The owner polls try_take() as a spinning worker does; each round's
  // token must show up, and what the waker wrote before unpark() with it.
  constexpr int rounds = 2000;
  parker p;
  int payload = 0;
  std::atomic<int> taken{0};
  std::jthread waker{[&] {
    for (int i = 1; i <= rounds; ++i) {
      while (taken.load(std::memory_order_acquire) != i - 1)
        std::this_thread::yield();
      payload = i;
      p.unpark();
    }
  }};
  for (int i = 1; i <= rounds; ++i) {
    while (!p.try_take())
      std::this_thread::yield();
    ASSERT_EQ(payload, i);
    taken.store(i, std::memory_order_release);
  }
}

TEST(parker, park_until_without_a_token_returns_false_at_the_deadline) {
  parker p;
  for (auto wait : {0us, 100us, 2000us}) {
    auto deadline = clock_type::now() + wait;
    EXPECT_FALSE(p.park_until(deadline));
    auto now = clock_type::now();
    EXPECT_GE(now, deadline) << "returned before its deadline";
    // Generous: this only tells "returned" from "waited for a wake-up".
    EXPECT_LT(now, deadline + 1s) << "returned long after its deadline";
  }
  EXPECT_FALSE(p.park_until(clock_type::now() - 1s)) << "a deadline in the past";
}

TEST(parker, park_until_returns_true_when_unparked_from_another_thread) {
  parker p;
  std::atomic<bool> parking{false};
  std::jthread waker{[&] {
    while (!parking.load())
      std::this_thread::yield();
    std::this_thread::sleep_for(1ms);
    p.unpark();
  }};
  parking = true;
  EXPECT_TRUE(p.park_until(clock_type::now() + 60s));
}

TEST(parker, a_token_that_races_the_deadline_is_never_lost) {
  // The waker unparks around the owner's deadlines; every token shows up in
  // the same or the next park_until, so the owner counts each round once.
  constexpr int rounds = 2000;
  parker p;
  std::atomic<int> sent{0};
  std::atomic<int> received{0};
  std::jthread waker{[&] {
    for (int i = 0; i < rounds; ++i) {
      // Wait for the owner to take the previous token.
      while (received.load() != i)
        std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::microseconds{i % 40});
      sent.store(i + 1);
      p.unpark();
    }
  }};
  while (received.load() < rounds) {
    if (p.park_until(clock_type::now() + std::chrono::microseconds{received.load() % 30}))
      received.fetch_add(1);
    ASSERT_LE(received, sent.load()) << "a token came from nowhere";
  }
  EXPECT_EQ(received.load(), rounds);
  EXPECT_FALSE(p.park_until(clock_type::now() + 1ms)) << "a token left over";
}
