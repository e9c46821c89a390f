#include "troupe/detail/chase_lev_deque.hpp"

#include "troupe/detail/cpu_relax.hpp"

#include "../support/sanitizers.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <thread>
#include <vector>

using troupe::detail::chase_lev_deque;

namespace {

constexpr int64_t concurrent_items = troupe::test::scaled<int64_t>(1'000'000, 100'000);

} // namespace

TEST(chase_lev_deque, an_empty_deque_gives_nothing_to_the_owner_or_a_thief) {
  chase_lev_deque<int> d;
  EXPECT_FALSE(d.pop());
  EXPECT_FALSE(d.steal());
  EXPECT_EQ(d.size_approx(), 0u);
}

TEST(chase_lev_deque, the_owner_pops_the_newest_item_first) {
  chase_lev_deque<int> d;
  for (int i = 0; i < 5; ++i)
    d.push(i);
  EXPECT_EQ(d.size_approx(), 5u);
  for (int i = 4; i >= 0; --i)
    EXPECT_EQ(d.pop(), i);
  EXPECT_FALSE(d.pop());
}

TEST(chase_lev_deque, thieves_steal_the_oldest_item_first) {
  chase_lev_deque<int> d;
  for (int i = 0; i < 5; ++i)
    d.push(i);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(d.steal(), i);
  EXPECT_FALSE(d.steal());
}

TEST(chase_lev_deque, owner_and_thief_share_one_deque_from_both_ends) {
  chase_lev_deque<int> d;
  for (int i = 0; i < 4; ++i)
    d.push(i);
  EXPECT_EQ(d.steal(), 0);
  EXPECT_EQ(d.pop(), 3);
  EXPECT_EQ(d.steal(), 1);
  EXPECT_EQ(d.pop(), 2);
  EXPECT_FALSE(d.pop());
  EXPECT_FALSE(d.steal());
}

TEST(chase_lev_deque, a_full_deque_grows_and_keeps_every_item_in_order) {
  chase_lev_deque<int> d{2};
  EXPECT_EQ(d.capacity(), 2u);
  // Start away from position 0 so the copy has to wrap around.
  d.push(-1);
  EXPECT_EQ(d.steal(), -1);
  for (int i = 0; i < 1000; ++i)
    d.push(i);
  EXPECT_GE(d.capacity(), 1000u);
  EXPECT_EQ(d.size_approx(), 1000u);
  for (int i = 0; i < 500; ++i)
    EXPECT_EQ(d.steal(), i);
  for (int i = 999; i >= 500; --i)
    EXPECT_EQ(d.pop(), i);
  EXPECT_FALSE(d.pop());
}

TEST(chase_lev_deque, positions_wrap_around_the_array_without_growing_it) {
  chase_lev_deque<int> d{4};
  for (int round = 0; round < 1000; ++round) {
    d.push(round);
    d.push(round + 1);
    d.push(round + 2);
    EXPECT_EQ(d.steal(), round);
    EXPECT_EQ(d.pop(), round + 2);
    EXPECT_EQ(d.pop(), round + 1);
  }
  EXPECT_EQ(d.capacity(), 4u);
}

TEST(chase_lev_deque, every_item_is_taken_exactly_once_by_the_owner_or_one_of_three_thieves) {
  // Small initial capacity: the array grows while thieves read it. The owner
  // often leaves a single item, so it races the thieves for the last one.
  chase_lev_deque<int64_t> d{2};
  std::vector<std::atomic<uint8_t>> taken(concurrent_items);
  std::atomic<bool> done{false};
  auto take = [&](int64_t x) { taken[x].fetch_add(1, std::memory_order_relaxed); };
  std::vector<std::thread> thieves;
  for (int i = 0; i < 3; ++i)
    thieves.emplace_back([&] {
      for (;;) {
        if (auto x = d.steal())
          take(*x);
        else if (done.load(std::memory_order_acquire) && d.size_approx() == 0)
          return;
        else
          troupe::detail::cpu_relax();
      }
    });
  std::minstd_rand rng{42};
  int64_t next = 0;
  while (next < concurrent_items) {
    auto burst = static_cast<int64_t>(rng() % 64) + 1;
    for (int64_t i = 0; i < burst && next < concurrent_items; ++i)
      d.push(next++);
    auto pops = rng() % 80;
    for (unsigned i = 0; i < pops; ++i)
      if (auto x = d.pop())
        take(*x);
  }
  while (auto x = d.pop())
    take(*x);
  done.store(true, std::memory_order_release);
  for (auto& t : thieves)
    t.join();
  int64_t wrong = 0;
  for (auto& n : taken)
    if (n.load(std::memory_order_relaxed) != 1)
      ++wrong;
  EXPECT_EQ(wrong, 0) << "items taken zero or several times";
  EXPECT_EQ(d.size_approx(), 0u);
}

TEST(chase_lev_deque, after_disown_another_thread_owns_the_bottom) {
  chase_lev_deque<int> d;
  d.push(1);
  d.disown();
  std::thread{[&] {
    EXPECT_EQ(d.pop(), 1);
    d.push(2);
  }}.join();
  EXPECT_EQ(d.steal(), 2);
}

TEST(chase_lev_deque, a_push_from_a_thread_other_than_the_owner_aborts_under_assertions) {
#ifndef TROUPE_ENABLE_ASSERTIONS
  GTEST_SKIP() << "assertions are off in this build";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
    {
      chase_lev_deque<int> d;
      d.push(1);
      std::thread{[&] { d.push(2); }}.join();
    },
    "called_by_owner");
#endif
}
