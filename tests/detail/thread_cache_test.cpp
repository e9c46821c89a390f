// Counts the blocks of one size class through the test allocator (no other
// allocation of the counting thread has that size).

#include "troupe/detail/thread_cache.hpp"

#include "../support/allocations.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace {

using troupe::detail::cached_allocate;
using troupe::detail::cached_deallocate;
using troupe::detail::thread_cache_enabled;
using troupe::detail::thread_cache_refill;
using troupe_test::allocations;

constexpr size_t counted_size = troupe::detail::thread_cache_max_block;

class thread_cache : public testing::Test {
protected:
  void SetUp() override {
    allocations::count_size(counted_size);
  }

  void TearDown() override {
    allocations::count_size(0);
    allocations::fail_nothrow(false);
  }
};

TEST_F(thread_cache, a_thread_that_only_allocates_calls_the_allocator_once_per_refill) {
  if (!thread_cache_enabled)
    GTEST_SKIP() << "the sanitizers see every allocation: nothing is cached";
  std::vector<long> news_after; // counted_news after each allocation
  std::vector<void*> blocks;
  // Reserved up front: growing them could allocate blocks of the counted size.
  news_after.reserve(2 * thread_cache_refill);
  blocks.reserve(2 * thread_cache_refill);
  std::thread worker{[&] {
    auto before = allocations::counted_news();
    for (size_t i = 0; i < 2 * thread_cache_refill; ++i) {
      blocks.push_back(cached_allocate(counted_size));
      news_after.push_back(allocations::counted_news() - before);
    }
  }};
  worker.join();
  const long refill = thread_cache_refill;
  EXPECT_EQ(news_after.front(), refill);
  EXPECT_EQ(news_after[thread_cache_refill - 1], refill);
  EXPECT_EQ(news_after[thread_cache_refill], 2 * refill);
  EXPECT_EQ(news_after.back(), 2 * refill);
  // Every block is its own: write all, then check all.
  for (size_t i = 0; i < blocks.size(); ++i)
    std::fill_n(static_cast<unsigned char*>(blocks[i]), counted_size, static_cast<unsigned char>(i));
  for (size_t i = 0; i < blocks.size(); ++i)
    EXPECT_EQ(static_cast<unsigned char*>(blocks[i])[counted_size - 1], static_cast<unsigned char>(i));
  for (auto* block : blocks)
    cached_deallocate(block, counted_size);
}

TEST_F(thread_cache, blocks_a_refill_left_unused_are_freed_when_the_thread_exits) {
  if (!thread_cache_enabled)
    GTEST_SKIP() << "the sanitizers see every allocation: nothing is cached";
  auto live_before = allocations::counted_live();
  void* block = nullptr;
  long live_in_thread = 0;
  std::thread worker{[&] {
    block = cached_allocate(counted_size);
    live_in_thread = allocations::counted_live() - live_before;
  }};
  worker.join();
  EXPECT_EQ(live_in_thread, static_cast<long>(thread_cache_refill));
  EXPECT_EQ(allocations::counted_live() - live_before, 1); // only the block in use
  cached_deallocate(block, counted_size); // freed on another thread: cached there
}

TEST_F(thread_cache, a_refill_the_allocator_cuts_short_still_serves_the_allocation) {
  if (!thread_cache_enabled)
    GTEST_SKIP() << "the sanitizers see every allocation: nothing is cached";
  long news_first = 0;
  long news_second = 0;
  std::thread worker{[&] {
    auto before = allocations::counted_news();
    allocations::fail_nothrow(true); // the refill gets nothing beyond the first block
    auto* first = cached_allocate(counted_size);
    news_first = allocations::counted_news() - before;
    allocations::fail_nothrow(false);
    auto* second = cached_allocate(counted_size); // nothing cached: refills
    news_second = allocations::counted_news() - before;
    cached_deallocate(first, counted_size);
    cached_deallocate(second, counted_size);
  }};
  worker.join();
  EXPECT_EQ(news_first, 1);
  EXPECT_EQ(news_second, 1 + static_cast<long>(thread_cache_refill));
}

TEST_F(thread_cache, a_block_takes_the_smallest_class_that_fits) {
  if (!thread_cache_enabled)
    GTEST_SKIP() << "the sanitizers see every allocation: nothing is cached";
  struct request {
    size_t size;
    size_t class_size;
  };
  // 80 bytes is a message of four elements; with powers of two it took 128.
  for (auto [size, class_size] : {request{65, 80}, request{80, 80}, request{81, 96},
                                  request{129, 160}, request{200, 224}}) {
    long news = 0;
    long news_of_next_class = 0;
    std::thread worker{[&] {
      allocations::count_size(class_size);
      auto before = allocations::counted_news();
      auto* block = cached_allocate(size);
      news = allocations::counted_news() - before;
      std::fill_n(static_cast<unsigned char*>(block), size, 0xAB);
      cached_deallocate(block, size);
      // The next class up has blocks of its own: none of these.
      before = allocations::counted_news();
      block = cached_allocate(class_size + 1);
      news_of_next_class = allocations::counted_news() - before;
      cached_deallocate(block, class_size + 1);
    }};
    worker.join();
    EXPECT_EQ(news, static_cast<long>(thread_cache_refill)) << "a block of " << size;
    EXPECT_EQ(news_of_next_class, 0) << "a block of " << class_size + 1;
  }
}

} // namespace
