#pragma once

// A bounded multi-producer multi-consumer FIFO of trivially copyable items:
// Dmitry Vyukov's array queue ("Bounded MPMC queue", 1024cores.net). The
// locality policy's affinity queues use it: any worker pushes an unblocked
// actor to the worker that ran it last, and the owner or a thief takes it.
//
// Each cell carries a sequence number. For the cell of position `pos`:
//   seq == pos        free: the producer that claims `pos` may write it;
//   seq == pos + 1    full: the consumer that claims `pos` may read it;
//   seq == pos + N    free again, for the producer of the next lap.
// Producers claim a position with a CAS on `tail_`, consumers with a CAS on
// `head_`; a claim never waits for another thread's claim, so pushers don't
// serialise on a lock (LAS/A in seed 003, Barghi and Karsten, took the
// victim deque's lock, and that lock was its undoing on the chat server). It is not lock-free in the
// strict sense: a consumer that finds the cell it would claim still being
// written by a preempted producer reports the queue empty until the write
// is done; the item is not lost, only seen later.
//
// Memory orders: a producer writes the item, then publishes it with a
// release store of seq; a consumer loads seq with acquire before it reads
// the item, and frees the cell with a release store, which the next lap's
// producer acquires. The claims themselves are relaxed CASes: what they
// order is carried by the cells' sequence numbers.
//
// Threads: every function from any thread.

#include "troupe/detail/assert.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>

namespace troupe::detail {

template <class T>
class bounded_mpmc_queue {
public:
  static_assert(std::is_trivially_copyable_v<T>);

  /// `capacity` is rounded up to a power of two, at least 2.
  explicit bounded_mpmc_queue(size_t capacity) {
    size_t n = 2;
    while (n < capacity)
      n *= 2;
    mask_ = n - 1;
    cells_ = std::make_unique<cell[]>(n);
    for (size_t i = 0; i < n; ++i)
      cells_[i].seq.store(i, std::memory_order_relaxed);
  }

  bounded_mpmc_queue(const bounded_mpmc_queue&) = delete;
  bounded_mpmc_queue& operator=(const bounded_mpmc_queue&) = delete;

  size_t capacity() const noexcept {
    return mask_ + 1;
  }

  /// Appends `x`; false if the queue is full.
  bool try_push(T x) noexcept {
    auto pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      auto& c = cells_[pos & mask_];
      auto seq = c.seq.load(std::memory_order_acquire);
      auto diff = static_cast<intptr_t>(seq) - static_cast<intptr_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          c.item = x;
          c.seq.store(pos + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false; // The cell still holds the item of the last lap.
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  /// Takes the oldest item, if any is complete.
  std::optional<T> try_pop() noexcept {
    auto pos = head_.load(std::memory_order_relaxed);
    for (;;) {
      auto& c = cells_[pos & mask_];
      auto seq = c.seq.load(std::memory_order_acquire);
      auto diff = static_cast<intptr_t>(seq) - static_cast<intptr_t>(pos + 1);
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          T x = c.item;
          c.seq.store(pos + mask_ + 1, std::memory_order_release);
          return x;
        }
      } else if (diff < 0) {
        return std::nullopt; // Empty, or its producer is still writing.
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
  }

  /// Items pushed and not yet popped, as of some recent moment. Readers that
  /// must see a push made before the pusher's full_fence() (the idle
  /// protocol) call it after a full fence of their own.
  size_t size_approx() const noexcept {
    auto head = head_.load(std::memory_order_relaxed);
    auto tail = tail_.load(std::memory_order_relaxed);
    return tail > head ? tail - head : 0;
  }

private:
  struct alignas(64) cell {
    std::atomic<size_t> seq;
    T item;
  };

  std::unique_ptr<cell[]> cells_;
  size_t mask_ = 0;
  /// Claimed by producers.
  alignas(64) std::atomic<size_t> tail_{0};
  /// Claimed by consumers.
  alignas(64) std::atomic<size_t> head_{0};
};

} // namespace troupe::detail
