#pragma once

// Chase-Lev work-stealing deque: D. Chase and Y. Lev, "Dynamic Circular
// Work-Stealing Deque" (SPAA 2005), with the C11 memory orders of N. M. Le,
// A. Pop, A. Cohen and F. Zappa Nardelli, "Correct and Efficient
// Work-Stealing for Weak Memory Models" (PPoPP 2013), figure 1.
//
// Threads:
// - push(), pop(): the owner thread only. The owner works at the bottom, LIFO.
//   With assertions on, the first thread to push or pop becomes the owner
//   and any other thread is caught, until the owner calls disown() (say,
//   when it exits and another thread drains what it left).
// - steal(), size_approx(): any thread. Thieves take from the top, FIFO.
//
// Memory-order argument (the paper's, and where this file differs):
// - push() writes the slot (relaxed) and then publishes it by storing bottom.
//   The paper uses a release fence and a relaxed store; a release store is
//   the same here because thieves read bottom with acquire. pop() stores
//   bottom with release as well: C++20 no longer counts later relaxed stores
//   of the same thread in a release sequence (P0982), so a thief that reads
//   bottom from one of pop()'s stores would otherwise not synchronize with the
//   pushes before it. On x86 every one of these is a plain store.
// - pop() stores bottom = b - 1, a seq_cst fence, then loads top; steal()
//   loads top (acquire), a seq_cst fence, then loads bottom (acquire). The
//   fences make sure owner and thief can't both miss each other's claim, so
//   they can only collide on the last item, and a seq_cst CAS on top decides
//   who gets it (it also decides races between thieves).
// - push() loads top with acquire, so a slot is overwritten only after the
//   thief that took its old item has read it.
// - Growth: the owner copies the live items into an array twice the size and
//   publishes it with a release store; thieves load it with acquire (the
//   paper's consume). A thief may still read the old array: its items in
//   [top, bottom) are unchanged there, old arrays are freed only with the
//   deque, and the CAS on top decides whether the item was still there to
//   take.
//
// The fences are detail::full_fence(), which is the real seq_cst fence except
// under ThreadSanitizer (see full_fence.hpp).

#include "troupe/detail/assert.hpp"
#include "troupe/detail/full_fence.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

namespace troupe::detail {

template <class T>
class alignas(64) chase_lev_deque {
public:
  static_assert(std::is_trivially_copyable_v<T>,
                "slots are std::atomic<T>: T must be trivially copyable");

  explicit chase_lev_deque(size_t initial_capacity = 256) {
    size_t cap = 2;
    while (cap < initial_capacity)
      cap *= 2;
    rings_.push_back(std::make_unique<ring>(static_cast<int64_t>(cap)));
    ring_.store(rings_.back().get(), std::memory_order_relaxed);
  }

  chase_lev_deque(const chase_lev_deque&) = delete;
  chase_lev_deque& operator=(const chase_lev_deque&) = delete;

  /// Owner only. Pushes `x` at the bottom, growing the array when full.
  void push(T x) {
    TROUPE_ASSERT(called_by_owner());
    auto b = bottom_.load(std::memory_order_relaxed);
    auto t = top_.load(std::memory_order_acquire);
    auto* a = ring_.load(std::memory_order_relaxed);
    if (b - t > a->capacity() - 1)
      a = grow(a, t, b);
    a->store(b, x);
    bottom_.store(b + 1, std::memory_order_release);
  }

  /// Owner only. Takes the item pushed last, if any.
  std::optional<T> pop() {
    TROUPE_ASSERT(called_by_owner());
    auto b = bottom_.load(std::memory_order_relaxed) - 1;
    auto* a = ring_.load(std::memory_order_relaxed);
    bottom_.store(b, std::memory_order_release);
    full_fence();
    auto t = top_.load(std::memory_order_relaxed);
    if (t > b) {
      // Empty: undo the claim.
      bottom_.store(b + 1, std::memory_order_release);
      return std::nullopt;
    }
    T x = a->load(b);
    if (t < b)
      return x; // More than one item: no thief can reach this one.
    // The last item: race the thieves for it.
    bool won = top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                            std::memory_order_relaxed);
    bottom_.store(b + 1, std::memory_order_release);
    if (!won)
      return std::nullopt;
    return x;
  }

  /// Any thread. Takes the oldest item. Returns nothing if the deque was
  /// empty or another thread took that item first (a lost race: try again).
  std::optional<T> steal() {
    auto t = top_.load(std::memory_order_acquire);
    full_fence();
    auto b = bottom_.load(std::memory_order_acquire);
    if (t >= b)
      return std::nullopt;
    auto* a = ring_.load(std::memory_order_acquire);
    T x = a->load(t);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                      std::memory_order_relaxed))
      return std::nullopt;
    return x;
  }

  /// Any thread. The number of items at some recent moment. After a
  /// full_fence() it sees every push that happened before the pusher's own
  /// full_fence() (the idle protocol of work_stealing relies on this).
  size_t size_approx() const noexcept {
    auto b = bottom_.load(std::memory_order_relaxed);
    auto t = top_.load(std::memory_order_relaxed);
    return b > t ? static_cast<size_t>(b - t) : 0;
  }

  /// Owner only (or any thread while the owner is quiescent).
  size_t capacity() const noexcept {
    return static_cast<size_t>(ring_.load(std::memory_order_relaxed)->capacity());
  }

  /// Owner only. The next thread to push or pop becomes the owner; the
  /// caller must be done with the deque and ordered before that thread
  /// (joined, say). Checks nothing without assertions.
  void disown() noexcept {
#ifdef TROUPE_ENABLE_ASSERTIONS
    TROUPE_ASSERT(called_by_owner());
    owner_.store(std::thread::id{}, std::memory_order_relaxed);
#endif
  }

private:
#ifdef TROUPE_ENABLE_ASSERTIONS
  /// The owner, set by its first push or pop; only ever read by the owner
  /// (and by a misuse, which the assertion reports).
  bool called_by_owner() noexcept {
    auto self = std::this_thread::get_id();
    std::thread::id none{};
    return owner_.compare_exchange_strong(none, self, std::memory_order_relaxed)
           || none == self;
  }

  std::atomic<std::thread::id> owner_{};
#endif

  // A circular array of 2^k slots, indexed by the ever-growing positions.
  class ring {
  public:
    explicit ring(int64_t cap) : mask_(cap - 1), slots_(new std::atomic<T>[cap]) {}

    int64_t capacity() const noexcept {
      return mask_ + 1;
    }

    T load(int64_t i) const noexcept {
      return slots_[i & mask_].load(std::memory_order_relaxed);
    }

    void store(int64_t i, T x) noexcept {
      slots_[i & mask_].store(x, std::memory_order_relaxed);
    }

  private:
    int64_t mask_;
    std::unique_ptr<std::atomic<T>[]> slots_;
  };

  ring* grow(ring* a, int64_t t, int64_t b) {
    auto bigger = std::make_unique<ring>(a->capacity() * 2);
    for (auto i = t; i < b; ++i)
      bigger->store(i, a->load(i));
    auto* result = bigger.get();
    rings_.push_back(std::move(bigger)); // The old array stays until ~deque.
    ring_.store(result, std::memory_order_release);
    return result;
  }

  /// Next position to steal. Thieves CAS it; so does the owner for the last
  /// item.
  alignas(64) std::atomic<int64_t> top_{0};

  /// Next position to push. Written by the owner only; thieves read it.
  alignas(64) std::atomic<int64_t> bottom_{0};

  /// The current array. Written by the owner only (on growth); thieves read
  /// it right after bottom, hence the same cache line.
  std::atomic<ring*> ring_{nullptr};

  /// Owner only: the current array and every retired one.
  alignas(64) std::vector<std::unique_ptr<ring>> rings_;
};

} // namespace troupe::detail
