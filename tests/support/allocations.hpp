#pragma once

// Replaces the global operator new and delete of a test executable (include
// this header in exactly one file of it) to count the large blocks still
// alive and to make a chosen allocation throw std::bad_alloc.
//
// Small message blocks are recycled by the thread cache (detail/thread_cache.hpp)
// and never reach operator delete, so only blocks above its largest size
// class are counted: tests that check for leaked message data give their
// messages an element that makes them that large. `large_live()` going back
// to its old value then shows that no message data leaked.
//
// `each_allocation_failing(f, g)` runs `f` once per allocation it makes,
// failing that allocation, until `f` runs through; `g` checks the state after
// each failure. Only throwing allocations count: nothrow ones never fail,
// unless `fail_nothrow(true)` says so.
//
// `count_size(n)` counts the blocks of exactly `n` bytes allocated
// (`counted_news()`) and not yet freed (`counted_live()`), for the thread
// cache's own tests.
//
// The failure countdown is not synchronised: arm it only while no other
// thread allocates. The counters are atomic.

#include "troupe/detail/thread_cache.hpp"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace troupe_test {

/// Blocks above this size bypass the thread cache.
inline constexpr std::size_t large_block = troupe::detail::thread_cache_max_block;

class allocations {
public:
  /// Blocks of more than `large_block` bytes not yet freed.
  static long large_live() noexcept {
    return large_live_.load(std::memory_order_relaxed);
  }

  /// Makes the allocation after the next `n` ones throw std::bad_alloc.
  static void fail_after(long n) noexcept {
    countdown_ = n;
  }

  /// Lets every allocation succeed again.
  static void disarm() noexcept {
    countdown_ = -1;
  }

  /// Called by the replaced operators: false if this allocation must fail.
  static bool admit() noexcept {
    if (countdown_ < 0)
      return true;
    if (countdown_ == 0) {
      countdown_ = -1;
      return false;
    }
    --countdown_;
    return true;
  }

  /// The largest block requested since the last reset_largest().
  static std::size_t largest() noexcept {
    return largest_.load(std::memory_order_relaxed);
  }

  static void reset_largest() noexcept {
    largest_.store(0, std::memory_order_relaxed);
  }

  /// Makes every nothrow allocation return null (true) or succeed (false).
  static void fail_nothrow(bool on) noexcept {
    nothrow_fails_.store(on, std::memory_order_relaxed);
  }

  static bool nothrow_fails() noexcept {
    return nothrow_fails_.load(std::memory_order_relaxed);
  }

  /// Counts the blocks of exactly `size` bytes from now on (0: none).
  static void count_size(std::size_t size) noexcept {
    counted_size_.store(size, std::memory_order_relaxed);
  }

  /// Blocks of the counted size allocated so far.
  static long counted_news() noexcept {
    return counted_news_.load(std::memory_order_relaxed);
  }

  /// Blocks of the counted size allocated and not yet freed.
  static long counted_live() noexcept {
    return counted_live_.load(std::memory_order_relaxed);
  }

  static void allocated(std::size_t size) noexcept {
    if (size > largest_.load(std::memory_order_relaxed))
      largest_.store(size, std::memory_order_relaxed);
    if (size > large_block)
      large_live_.fetch_add(1, std::memory_order_relaxed);
    if (size == counted_size_.load(std::memory_order_relaxed)) {
      counted_news_.fetch_add(1, std::memory_order_relaxed);
      counted_live_.fetch_add(1, std::memory_order_relaxed);
    }
  }

  static void freed(std::size_t size) noexcept {
    if (size > large_block)
      large_live_.fetch_sub(1, std::memory_order_relaxed);
    if (size == counted_size_.load(std::memory_order_relaxed))
      counted_live_.fetch_sub(1, std::memory_order_relaxed);
  }

private:
  static inline std::atomic<long> large_live_{0};
  static inline std::atomic<std::size_t> largest_{0};
  static inline long countdown_ = -1;
  static inline std::atomic<bool> nothrow_fails_{false};
  static inline std::atomic<std::size_t> counted_size_{0};
  static inline std::atomic<long> counted_news_{0};
  static inline std::atomic<long> counted_live_{0};
};

/// Runs `f` with its first, second, ... allocation failing until it returns
/// normally; calls `after_failure()` after each std::bad_alloc. Returns the
/// number of allocations that were made to fail.
template <class F, class G>
long each_allocation_failing(F&& f, G&& after_failure) {
  for (long n = 0;; ++n) {
    allocations::fail_after(n);
    try {
      f();
      allocations::disarm();
      return n;
    } catch (const std::bad_alloc&) {
      allocations::disarm();
      after_failure();
    }
  }
}

namespace detail {

// Plain blocks carry their size in front, so the unsized delete can count
// them; the prefix keeps the 16-byte alignment operator new promises.
inline constexpr std::size_t prefix = 16;

/// A block of `size` bytes behind its size prefix, counted; null if malloc
/// fails.
inline void* counted_malloc(std::size_t size) noexcept {
  auto* base = static_cast<std::byte*>(std::malloc(size + prefix));
  if (base == nullptr)
    return nullptr;
  *reinterpret_cast<std::size_t*>(base) = size;
  allocations::allocated(size);
  return base + prefix;
}

} // namespace detail

} // namespace troupe_test

// GCC inlines these pairs and then takes malloc + free for a mismatch.
#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) {
  if (!troupe_test::allocations::admit())
    throw std::bad_alloc{};
  if (auto* ptr = troupe_test::detail::counted_malloc(size))
    return ptr;
  throw std::bad_alloc{};
}

// Not part of the countdown: a nothrow allocation is one its caller can do
// without (the thread cache's refill), so failing it would only end the
// countdown early, before the allocations that matter.
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  if (troupe_test::allocations::nothrow_fails())
    return nullptr;
  return troupe_test::detail::counted_malloc(size);
}

void operator delete(void* ptr) noexcept {
  using troupe_test::detail::prefix;
  if (ptr == nullptr)
    return;
  auto* base = static_cast<std::byte*>(ptr) - prefix;
  troupe_test::allocations::freed(*reinterpret_cast<std::size_t*>(base));
  std::free(base);
}

void operator delete(void* ptr, std::size_t) noexcept {
  operator delete(ptr);
}

void* operator new(std::size_t size, std::align_val_t align) {
  if (!troupe_test::allocations::admit())
    throw std::bad_alloc{};
  auto alignment = static_cast<std::size_t>(align);
  if (alignment < sizeof(void*))
    alignment = sizeof(void*);
  void* ptr = nullptr;
  if (posix_memalign(&ptr, alignment, size == 0 ? 1 : size) != 0)
    throw std::bad_alloc{};
  return ptr;
}

void operator delete(void* ptr, std::align_val_t) noexcept {
  std::free(ptr);
}

void operator delete(void* ptr, std::size_t, std::align_val_t) noexcept {
  std::free(ptr);
}

#if defined(__GNUC__) && !defined(__clang__)
#  pragma GCC diagnostic pop
#endif
