#include "troupe/detail/thread_cache.hpp"

#include "troupe/detail/hot.hpp"

#include <cstddef>
#include <mutex>
#include <new>
#include <vector>

#if TROUPE_MIMALLOC
#include <mimalloc.h>
#endif

// The slow paths and the depot (see the header for the design). The depot
// moves blocks freed by a receiver's worker back to the senders' workers in
// batches, at one mutex operation per batch instead of one cross-thread
// free() per message.

namespace troupe::detail {

thread_local constinit thread_cache_state thread_cache;

namespace {

#if TROUPE_MIMALLOC
// A reference to libmimalloc, so a linker run with --as-needed keeps it in
// every program that sends messages: its malloc replaces libc's only if the
// program depends on it.
[[gnu::used]] constexpr auto* keep_mimalloc = &mi_version;
#endif

constexpr size_t num_classes = thread_cache_class_sizes.size();

constexpr size_t class_size(size_t index) noexcept {
  return thread_cache_class_sizes[index];
}

/// Bytes the depot keeps per class (8 MiB: a burst of about 100,000
/// messages in flight between two workers); beyond that blocks go back to
/// free().
constexpr size_t max_depot_bytes = size_t{8} << 20;

void release_all(block_list& xs) noexcept {
  while (xs.head != nullptr) {
    auto* next = xs.head->next;
    ::operator delete(xs.head);
    xs.head = next;
  }
  xs.size = 0;
}

/// Full batches shared by all threads, one stack per class.
struct depot {
  std::mutex mtx;
  std::array<std::vector<block_list>, num_classes> batches;

  /// Takes a batch of class `index`, or returns an empty list.
  block_list take(size_t index) {
    std::lock_guard guard{mtx};
    auto& xs = batches[index];
    if (xs.empty())
      return {};
    auto result = xs.back();
    xs.pop_back();
    return result;
  }

  /// Stores a full batch; frees it if the depot has enough.
  void give(size_t index, block_list batch) {
    {
      std::lock_guard guard{mtx};
      auto& xs = batches[index];
      if (xs.size() < max_depot_bytes / (thread_cache_batch * class_size(index))) {
        xs.push_back(batch);
        return;
      }
    }
    release_all(batch);
  }
};

depot& global_depot() {
  // Never destroyed: threads may hand back batches during static destruction.
  // Built in static storage, so that it is not a heap block left alive.
  alignas(depot) static std::byte storage[sizeof(depot)];
  static auto* instance = new (storage) depot;
  return *instance;
}

/// Empties the calling thread's cache when the thread exits.
struct cache_guard {
  ~cache_guard() {
    thread_cache.open = false;
    for (size_t i = 0; i < num_classes; ++i) {
      auto& c = thread_cache.classes[i];
      if (c.spare.size == thread_cache_batch)
        global_depot().give(i, c.spare);
      else
        release_all(c.spare);
      c.spare = {};
      release_all(c.active);
    }
  }
};

thread_local cache_guard guard;

thread_local bool guard_registered = false;

/// Registers the calling thread's exit cleanup on first use; false once the
/// thread is exiting and its cache is gone.
bool open_cache() noexcept {
  if (thread_cache.open)
    return true;
  if (guard_registered)
    return false;
  guard_registered = true;
  static_cast<void>(&guard); // registers the thread-exit cleanup
  thread_cache.open = true;
  return true;
}

} // namespace

TROUPE_HOT void* cached_allocate_slow(size_t size) {
  if (!thread_cache_enabled || size > thread_cache_max_block || !open_cache())
    return ::operator new(size);
  auto index = thread_cache_class(size);
  auto& c = thread_cache.classes[index];
  if (c.spare.head != nullptr) {
    c.active = c.spare;
    c.spare = {};
    return c.active.pop();
  }
  if (auto batch = global_depot().take(index); batch.head != nullptr) {
    c.active = batch;
    return c.active.pop();
  }
  auto* result = ::operator new(class_size(index));
  for (size_t i = 1; i < thread_cache_refill; ++i) {
    auto* block = ::operator new(class_size(index), std::nothrow);
    if (block == nullptr)
      break;
    c.active.push(block);
  }
  return result;
}

TROUPE_HOT void cached_deallocate_slow(void* ptr, size_t size) noexcept {
  if (!thread_cache_enabled || size > thread_cache_max_block) {
    ::operator delete(ptr);
    return;
  }
  if (!open_cache()) {
    ::operator delete(ptr);
    return;
  }
  auto index = thread_cache_class(size);
  auto& c = thread_cache.classes[index];
  if (c.active.size < thread_cache_batch) {
    c.active.push(ptr);
    return;
  }
  // `active` is full: it becomes the spare, an old spare goes to the depot.
  if (c.spare.head != nullptr)
    global_depot().give(index, c.spare);
  c.spare = c.active;
  c.active = {};
  c.active.push(ptr);
}

} // namespace troupe::detail
