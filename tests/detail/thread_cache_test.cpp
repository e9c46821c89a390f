// Replaces the global operator new and delete to count the blocks of the
// largest size class (no other allocation in this program has that size).

#include "troupe/detail/thread_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

namespace {

constexpr size_t counted_size = troupe::detail::thread_cache_max_block;

std::atomic<long> counted_news{0};
std::atomic<long> counted_live{0};
/// Makes every nothrow allocation return null.
std::atomic<bool> nothrow_fails{false};

} // namespace

void* operator new(size_t size) {
  if (size == counted_size) {
    counted_news.fetch_add(1, std::memory_order_relaxed);
    counted_live.fetch_add(1, std::memory_order_relaxed);
  }
  // Room in front for the size, keeping the 16-byte alignment.
  auto* raw = static_cast<char*>(std::malloc(size + 16));
  if (raw == nullptr)
    throw std::bad_alloc{};
  *reinterpret_cast<size_t*>(raw) = size;
  return raw + 16;
}

void* operator new(size_t size, const std::nothrow_t&) noexcept {
  if (nothrow_fails.load())
    return nullptr;
  try {
    return operator new(size);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
}

// GCC inlines these pairs and then takes malloc + free for a mismatch.
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void operator delete(void* ptr) noexcept {
  if (ptr == nullptr)
    return;
  auto* raw = static_cast<char*>(ptr) - 16;
  if (*reinterpret_cast<size_t*>(raw) == counted_size)
    counted_live.fetch_sub(1, std::memory_order_relaxed);
  std::free(raw);
}

void operator delete(void* ptr, size_t) noexcept {
  operator delete(ptr);
}

namespace {

using troupe::detail::cached_allocate;
using troupe::detail::cached_deallocate;
using troupe::detail::thread_cache_enabled;
using troupe::detail::thread_cache_refill;

TEST(thread_cache, a_thread_that_only_allocates_calls_the_allocator_once_per_refill) {
  if (!thread_cache_enabled)
    GTEST_SKIP() << "the sanitizers see every allocation: nothing is cached";
  std::vector<long> news_after; // counted_news after each allocation
  std::vector<void*> blocks;
  // Reserved up front: growing them could allocate blocks of the counted size.
  news_after.reserve(2 * thread_cache_refill);
  blocks.reserve(2 * thread_cache_refill);
  std::thread worker{[&] {
    auto before = counted_news.load();
    for (size_t i = 0; i < 2 * thread_cache_refill; ++i) {
      blocks.push_back(cached_allocate(counted_size));
      news_after.push_back(counted_news.load() - before);
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

TEST(thread_cache, blocks_a_refill_left_unused_are_freed_when_the_thread_exits) {
  if (!thread_cache_enabled)
    GTEST_SKIP() << "the sanitizers see every allocation: nothing is cached";
  auto live_before = counted_live.load();
  void* block = nullptr;
  long live_in_thread = 0;
  std::thread worker{[&] {
    block = cached_allocate(counted_size);
    live_in_thread = counted_live.load() - live_before;
  }};
  worker.join();
  EXPECT_EQ(live_in_thread, static_cast<long>(thread_cache_refill));
  EXPECT_EQ(counted_live.load() - live_before, 1); // only the block in use
  cached_deallocate(block, counted_size); // freed on another thread: cached there
}

TEST(thread_cache, a_refill_the_allocator_cuts_short_still_serves_the_allocation) {
  if (!thread_cache_enabled)
    GTEST_SKIP() << "the sanitizers see every allocation: nothing is cached";
  long news_first = 0;
  long news_second = 0;
  std::thread worker{[&] {
    auto before = counted_news.load();
    nothrow_fails = true; // the refill gets nothing beyond the first block
    auto* first = cached_allocate(counted_size);
    news_first = counted_news.load() - before;
    nothrow_fails = false;
    auto* second = cached_allocate(counted_size); // nothing cached: refills
    news_second = counted_news.load() - before;
    cached_deallocate(first, counted_size);
    cached_deallocate(second, counted_size);
  }};
  worker.join();
  EXPECT_EQ(news_first, 1);
  EXPECT_EQ(news_second, 1 + static_cast<long>(thread_cache_refill));
}

} // namespace
