#include "troupe/detail/thread_cache.hpp"

#include <array>
#include <cstdlib>

namespace troupe::detail {

namespace {

constexpr size_t num_classes = 4;

constexpr size_t class_size(size_t index) noexcept {
  return size_t{32} << index;
}

// At most 1 MiB per class and thread: enough for a burst of some ten
// thousand messages to recycle, small beside a worker's stack.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr size_t max_cached_bytes = 0;
#else
constexpr size_t max_cached_bytes = size_t{1} << 20;
#endif

/// Index of the smallest class that fits `size` (size <= 256).
constexpr size_t class_of(size_t size) noexcept {
  return size <= 32 ? 0 : size <= 64 ? 1 : size <= 128 ? 2 : 3;
}

struct free_block {
  free_block* next;
};

// Trivially destructible, so it stays usable while other thread-local and
// static objects are destroyed; the guard below empties it at thread exit.
struct cache_state {
  std::array<free_block*, num_classes> heads{};
  std::array<size_t, num_classes> sizes{};
  bool closed = false;
  bool guarded = false;
};

thread_local cache_state cache;

struct cache_guard {
  ~cache_guard() {
    cache.closed = true;
    for (size_t i = 0; i < num_classes; ++i) {
      while (auto* block = cache.heads[i]) {
        cache.heads[i] = block->next;
        ::operator delete(block);
      }
      cache.sizes[i] = 0;
    }
  }
};

thread_local cache_guard guard;

} // namespace

void* cached_allocate(size_t size) {
  if (size > thread_cache_max_block)
    return ::operator new(size);
  auto index = class_of(size);
  if (auto* block = cache.heads[index]) {
    cache.heads[index] = block->next;
    --cache.sizes[index];
    return block;
  }
  return ::operator new(class_size(index));
}

void cached_deallocate(void* ptr, size_t size) noexcept {
  if (size > thread_cache_max_block) {
    ::operator delete(ptr);
    return;
  }
  auto index = class_of(size);
  if (cache.sizes[index] >= max_cached_bytes / class_size(index) || cache.closed) {
    ::operator delete(ptr);
    return;
  }
  if (!cache.guarded) {
    cache.guarded = true;
    static_cast<void>(&guard); // registers the thread-exit cleanup
  }
  auto* block = static_cast<free_block*>(ptr);
  block->next = cache.heads[index];
  cache.heads[index] = block;
  ++cache.sizes[index];
}

} // namespace troupe::detail
