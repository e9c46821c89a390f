#pragma once

// Per-thread caches of small memory blocks in eleven size classes (32 to 256
// bytes), for messages, mailbox elements and response handlers.
// Blocks are allocated on one thread and usually freed on a worker thread;
// recycling them without a trip through the general-purpose allocator is
// where most of the per-message cost would otherwise go.
//
// Two levels, after tcmalloc's thread and transfer caches: each thread keeps,
// per class, an `active` list and at most one full `spare` batch; blocks
// freed beyond that go to a global depot as whole batches, and a thread whose
// lists run dry takes a batch from the depot before it asks the allocator
// (src/detail/thread_cache.cpp). The fast paths below touch only the calling
// thread's lists. Under ASan or TSan nothing is cached, so the sanitizers see
// every allocation. Behind the caches is operator new, which is mimalloc's
// unless Troupe is built with TROUPE_MIMALLOC=OFF: it keeps a page's blocks
// together when they come back from another thread.

#include <array>
#include <cstddef>
#include <cstdint>
#include <new>

namespace troupe::detail {

inline constexpr size_t thread_cache_max_block = 256;

/// Blocks per batch moved between a thread and the depot.
inline constexpr size_t thread_cache_batch = 256;

/// Blocks a thread takes from the allocator at once when it has none cached
/// and the depot none to give. A thread whose blocks are freed elsewhere (one
/// that only sends) would otherwise call the allocator for every message, and
/// after a long sleep that cold call alone costs microseconds.
inline constexpr size_t thread_cache_refill = 32;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool thread_cache_enabled = false;
#else
inline constexpr bool thread_cache_enabled = true;
#endif

/// The block sizes, mimalloc's bins from 32 to 256 bytes: a block wastes at
/// most 16 bytes up to 128 and 32 beyond. With powers of two a message of
/// four elements (80 bytes) took 128, a third of the memory of a long queue.
inline constexpr std::array<size_t, 11> thread_cache_class_sizes{32,  48,  64,  80,  96, 112,
                                                                 128, 160, 192, 224, 256};

/// Class index by size in 16-byte units, rounded up (0 to 16).
inline constexpr auto thread_cache_class_by_units = [] {
  std::array<uint8_t, thread_cache_max_block / 16 + 1> result{};
  size_t index = 0;
  for (size_t units = 0; units < result.size(); ++units) {
    while (thread_cache_class_sizes[index] < units * 16)
      ++index;
    result[units] = static_cast<uint8_t>(index);
  }
  return result;
}();

/// Index of the smallest class that fits `size` (size <= 256).
constexpr size_t thread_cache_class(size_t size) noexcept {
  return thread_cache_class_by_units[(size + 15) / 16];
}

static_assert(thread_cache_class_sizes.back() == thread_cache_max_block);
static_assert(thread_cache_class(1) == 0 && thread_cache_class(32) == 0
              && thread_cache_class(33) == 1 && thread_cache_class(80) == 3
              && thread_cache_class(129) == 7 && thread_cache_class(256) == 10);

struct free_block {
  free_block* next;
};

struct block_list {
  free_block* head = nullptr;
  size_t size = 0;

  void push(void* ptr) noexcept {
    auto* block = static_cast<free_block*>(ptr);
    block->next = head;
    head = block;
    ++size;
  }

  void* pop() noexcept {
    auto* block = head;
    head = block->next;
    --size;
    return block;
  }
};

struct thread_cache_state {
  struct class_cache {
    block_list active;
    block_list spare; // empty or exactly thread_cache_batch blocks
  };
  std::array<class_cache, thread_cache_class_sizes.size()> classes{};
  /// Set once the thread-exit cleanup is registered; frees go to the slow
  /// path until then, and again after it ran.
  bool open = false;
};

// Trivially destructible and constant-initialised, so access needs no TLS
// wrapper call and stays valid while other thread-locals are destroyed.
extern thread_local constinit thread_cache_state thread_cache;

void* cached_allocate_slow(size_t size);
void cached_deallocate_slow(void* ptr, size_t size) noexcept;

/// A block of at least `size` bytes, aligned to 16.
inline void* cached_allocate(size_t size) {
  if (size <= thread_cache_max_block) {
    auto& c = thread_cache.classes[thread_cache_class(size)];
    if (c.active.head != nullptr)
      return c.active.pop();
  }
  return cached_allocate_slow(size);
}

/// Frees a block from cached_allocate; `size` must be the same.
inline void cached_deallocate(void* ptr, size_t size) noexcept {
  if (thread_cache_enabled && size <= thread_cache_max_block && thread_cache.open) {
    auto& c = thread_cache.classes[thread_cache_class(size)];
    if (c.active.size < thread_cache_batch) {
      c.active.push(ptr);
      return;
    }
  }
  cached_deallocate_slow(ptr, size);
}

/// An allocator over the thread caches, for allocate_shared.
template <class T>
struct cached_allocator {
  using value_type = T;

  cached_allocator() noexcept = default;

  template <class U>
  cached_allocator(const cached_allocator<U>&) noexcept {}

  T* allocate(size_t n) {
    return static_cast<T*>(cached_allocate(n * sizeof(T)));
  }

  void deallocate(T* ptr, size_t n) noexcept {
    cached_deallocate(ptr, n * sizeof(T));
  }

  template <class U>
  friend bool operator==(cached_allocator, cached_allocator<U>) noexcept {
    return true;
  }
};

} // namespace troupe::detail
