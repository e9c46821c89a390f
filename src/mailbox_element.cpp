#include "troupe/mailbox_element.hpp"

#include <new>

namespace troupe {

namespace {

// A per-thread stack of free element-sized blocks. An element is usually
// freed by the thread of its receiver and allocated by the thread of its
// sender; a bounded cache recycles blocks on threads that do both (the
// common case inside a worker) and returns the rest to the allocator.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr size_t cache_capacity = 0; // let the sanitizers see every block
#else
constexpr size_t cache_capacity = 1024;
#endif

struct free_block {
  free_block* next;
};

// Trivially destructible, so it stays usable while other thread-local and
// static objects are destroyed; the guard below empties it at thread exit.
struct element_cache {
  free_block* head = nullptr;
  size_t size = 0;
  bool closed = false;
};

thread_local element_cache cache;

struct element_cache_guard {
  ~element_cache_guard() {
    cache.closed = true;
    while (cache.head != nullptr) {
      auto* next = cache.head->next;
      ::operator delete(cache.head);
      cache.head = next;
    }
    cache.size = 0;
  }
};

thread_local element_cache_guard guard;

} // namespace

void* mailbox_element::operator new(size_t size) {
  if (size == sizeof(mailbox_element) && cache.head != nullptr) {
    auto* block = cache.head;
    cache.head = block->next;
    --cache.size;
    return block;
  }
  return ::operator new(size);
}

void mailbox_element::operator delete(void* ptr) noexcept {
  if (cache.size < cache_capacity && !cache.closed) {
    if (cache.size == 0)
      static_cast<void>(&guard); // registers the thread-exit cleanup
    auto* block = static_cast<free_block*>(ptr);
    block->next = cache.head;
    cache.head = block;
    ++cache.size;
    return;
  }
  ::operator delete(ptr);
}

} // namespace troupe
