#pragma once

// Per-thread caches of small memory blocks in four size classes (32, 64, 128
// and 256 bytes). Messages, mailbox elements and response handlers are
// allocated on one thread and usually freed on the same worker thread (the
// receiver runs there); recycling their blocks without a trip through the
// general-purpose allocator is where most of the per-message cost would go.
//
// Threads: every function acts on the calling thread's cache only; a block
// may be freed on any thread (it then joins that thread's cache). Each class
// holds at most `max_cached` blocks; beyond that blocks go back to the global
// allocator. Under ASan or TSan nothing is cached, so the sanitizers see every
// allocation.

#include <cstddef>
#include <new>

namespace troupe::detail {

inline constexpr size_t thread_cache_max_block = 256;

/// A block of at least `size` bytes, aligned to 16.
void* cached_allocate(size_t size);

/// Frees a block from cached_allocate; `size` must be the same.
void cached_deallocate(void* ptr, size_t size) noexcept;

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
