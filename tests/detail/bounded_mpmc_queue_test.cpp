#include "troupe/detail/bounded_mpmc_queue.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

using troupe::detail::bounded_mpmc_queue;

TEST(bounded_mpmc_queue, items_come_out_in_the_order_they_went_in) {
  bounded_mpmc_queue<int> q{8};
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(q.try_push(i));
  EXPECT_EQ(q.size_approx(), 5u);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(q.try_pop(), i);
  EXPECT_EQ(q.try_pop(), std::nullopt);
  EXPECT_EQ(q.size_approx(), 0u);
}

TEST(bounded_mpmc_queue, a_full_queue_refuses_a_push_and_keeps_what_it_holds) {
  bounded_mpmc_queue<int> q{3}; // Rounded up to 4.
  EXPECT_EQ(q.capacity(), 4u);
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(q.try_push(i));
  EXPECT_FALSE(q.try_push(99));
  EXPECT_EQ(q.try_pop(), 0);
  EXPECT_TRUE(q.try_push(4)) << "a pop frees a cell";
  for (int i = 1; i < 5; ++i)
    EXPECT_EQ(q.try_pop(), i);
}

TEST(bounded_mpmc_queue, cells_are_reused_lap_after_lap) {
  bounded_mpmc_queue<uint64_t> q{4};
  for (uint64_t i = 0; i < 1000; ++i) {
    ASSERT_TRUE(q.try_push(i));
    ASSERT_TRUE(q.try_push(i + 1'000'000));
    ASSERT_EQ(q.try_pop(), i);
    ASSERT_EQ(q.try_pop(), i + 1'000'000);
  }
}

TEST(bounded_mpmc_queue, many_producers_and_consumers_pass_every_item_exactly_once) {
  constexpr int producers = 4;
  constexpr int consumers = 4;
  constexpr uint64_t per_producer = 20'000;
  bounded_mpmc_queue<uint64_t> q{64}; // Small: pushes often find it full.
  std::vector<std::atomic<int>> seen(producers * per_producer);
  std::atomic<uint64_t> taken{0};
  std::vector<std::thread> threads;
  for (int p = 0; p < producers; ++p)
    threads.emplace_back([&, p] {
      for (uint64_t i = 0; i < per_producer; ++i)
        while (!q.try_push(p * per_producer + i))
          std::this_thread::yield();
    });
  for (int c = 0; c < consumers; ++c)
    threads.emplace_back([&] {
      while (taken.load() < producers * per_producer) {
        if (auto x = q.try_pop()) {
          seen[*x].fetch_add(1);
          taken.fetch_add(1);
        } else {
          std::this_thread::yield();
        }
      }
    });
  for (auto& t : threads)
    t.join();
  for (size_t i = 0; i < seen.size(); ++i)
    ASSERT_EQ(seen[i].load(), 1) << "item " << i;
  EXPECT_EQ(q.try_pop(), std::nullopt);
}
