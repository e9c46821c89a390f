#include "troupe/detail/thread_cache.hpp"

#include <array>
#include <mutex>
#include <vector>

// Two levels, after tcmalloc's thread and transfer caches. Each thread keeps,
// per size class, an `active` list and at most one full `spare` batch of
// `batch_size` blocks. Blocks freed beyond that go to a global depot as
// whole batches; a thread whose lists run dry takes a batch from the depot
// before it asks the global allocator. So blocks freed by a receiver's worker
// flow back to the senders' workers in batches, at one mutex operation per
// `batch_size` blocks, instead of one cross-thread free() per message.

namespace troupe::detail {

namespace {

constexpr size_t num_classes = 4;

constexpr size_t class_size(size_t index) noexcept {
  return size_t{32} << index;
}

/// Blocks per batch moved between a thread and the depot.
constexpr size_t batch_size = 256;

/// Bytes the depot keeps per class (8 MiB: a burst of about 100,000
/// messages in flight between two workers); beyond that blocks go back to
/// free().
constexpr size_t max_depot_bytes = size_t{8} << 20;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
// Let the sanitizers see every allocation.
constexpr bool caching = false;
#else
constexpr bool caching = true;
#endif

/// Index of the smallest class that fits `size` (size <= 256).
constexpr size_t class_of(size_t size) noexcept {
  return size <= 32 ? 0 : size <= 64 ? 1 : size <= 128 ? 2 : 3;
}

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

  void release_all() noexcept {
    while (head != nullptr) {
      auto* next = head->next;
      ::operator delete(head);
      head = next;
    }
    size = 0;
  }
};

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
      if (xs.size() < max_depot_bytes / (batch_size * class_size(index))) {
        xs.push_back(batch);
        return;
      }
    }
    batch.release_all();
  }
};

depot& global_depot() {
  // Never destroyed: threads may hand back batches during static destruction.
  static auto* instance = new depot;
  return *instance;
}

struct class_cache {
  block_list active;
  block_list spare; // empty or exactly batch_size blocks
};

// Trivially destructible, so it stays usable while other thread-local and
// static objects are destroyed; the guard below empties it at thread exit.
struct cache_state {
  std::array<class_cache, num_classes> classes{};
  bool closed = false;
  bool guarded = false;
};

thread_local cache_state cache;

struct cache_guard {
  ~cache_guard() {
    cache.closed = true;
    for (size_t i = 0; i < num_classes; ++i) {
      auto& c = cache.classes[i];
      if (c.spare.size == batch_size)
        global_depot().give(i, c.spare);
      else
        c.spare.release_all();
      c.spare = {};
      c.active.release_all();
    }
  }
};

thread_local cache_guard guard;

} // namespace

void* cached_allocate(size_t size) {
  if (!caching || size > thread_cache_max_block)
    return ::operator new(size);
  auto index = class_of(size);
  auto& c = cache.classes[index];
  if (c.active.head != nullptr)
    return c.active.pop();
  if (c.spare.head != nullptr) {
    c.active = c.spare;
    c.spare = {};
    return c.active.pop();
  }
  if (auto batch = global_depot().take(index); batch.head != nullptr) {
    c.active = batch;
    return c.active.pop();
  }
  return ::operator new(class_size(index));
}

void cached_deallocate(void* ptr, size_t size) noexcept {
  if (!caching || size > thread_cache_max_block || cache.closed) {
    ::operator delete(ptr);
    return;
  }
  if (!cache.guarded) {
    cache.guarded = true;
    static_cast<void>(&guard); // registers the thread-exit cleanup
  }
  auto index = class_of(size);
  auto& c = cache.classes[index];
  if (c.active.size < batch_size) {
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
