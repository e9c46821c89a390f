#pragma once

// The queue of one stream edge between one producer and one consumer: a
// bounded single-producer single-consumer ring of typed tuples (Lamport's
// ring with cached indices, as in FastFlow's and rigtorp's SPSC queues).
//
// Threads: exactly one producer calls the producer functions and exactly
// one consumer the consumer functions; size() and the flags may be read by
// anyone.
//
// Batching: the producer writes tuples into free slots without telling the
// consumer and makes them visible with publish() (one release store for the
// whole batch); the consumer frees slots with release() (one release store
// for all it took). Each side caches the other's index and reloads it only
// when the cached one says the ring is full (or empty).
//
// Wake-ups: publish() and close() wake the consumer's runner (runner.hpp
// says why none is lost). A producer blocked on a full ring sets
// producer_waiting, fences and looks at the head again; the consumer, each
// time it releases slots and the ring is at most half full, fences and
// wakes the producer if it waits (Dekker: store, full fence, load on both
// sides). So a blocked producer runs again once the consumer drained half
// the ring: neither side spins.

#include "troupe/detail/assert.hpp"
#include "troupe/detail/full_fence.hpp"

#include <atomic>
#include <bit>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>

namespace troupe::stream::detail {

/// Something to wake when a ring it waits on changes: a node's runner, or
/// a thread pushing into a graph input.
class waker {
public:
  virtual ~waker() = default;

  /// Any thread. Idempotent while the waker is awake.
  virtual void wake() = 0;
};

template <class T>
class spsc_ring {
public:
  /// Room for at least `capacity` tuples (rounded up to a power of two).
  explicit spsc_ring(size_t capacity)
    : mask_(std::bit_ceil(capacity < 2 ? size_t{2} : capacity) - 1),
      slots_(std::make_unique<slot[]>(mask_ + 1)) {}

  spsc_ring(const spsc_ring&) = delete;
  spsc_ring& operator=(const spsc_ring&) = delete;

  ~spsc_ring() {
    // Tuples never consumed (a graph that failed) are destroyed here.
    for (auto i = read_; i != write_; ++i)
      at(i)->~T();
  }

  size_t capacity() const noexcept {
    return mask_ + 1;
  }

  /// Set once, before the graph runs.
  void connect(waker* producer, waker* consumer) noexcept {
    producer_ = producer;
    consumer_ = consumer;
  }

  // -- producer ------------------------------------------------------------------

  /// Writes `x` into a free slot (invisible until publish()); false if the
  /// ring is full, `x` untouched.
  template <class U>
  bool try_write(U&& x) {
    if (write_ - head_cache_ > mask_) {
      head_cache_ = head_.load(std::memory_order_acquire);
      if (write_ - head_cache_ > mask_)
        return false;
    }
    ::new (at(write_)) T(std::forward<U>(x));
    ++write_;
    return true;
  }

  /// Tuples written and not yet published.
  size_t unpublished() const noexcept {
    return write_ - tail_.load(std::memory_order_relaxed);
  }

  /// Makes the written tuples visible and wakes the consumer if it sleeps.
  void publish() {
    if (write_ == tail_.load(std::memory_order_relaxed))
      return;
    tail_.store(write_, std::memory_order_release);
    if (consumer_ != nullptr)
      consumer_->wake();
  }

  /// The producer is done: publishes and tells the consumer no more comes.
  void close() {
    tail_.store(write_, std::memory_order_release);
    closed_.store(true, std::memory_order_release);
    if (consumer_ != nullptr)
      consumer_->wake();
  }

  /// Whether try_write would succeed now.
  bool has_room() noexcept {
    if (write_ - head_cache_ > mask_)
      head_cache_ = head_.load(std::memory_order_acquire);
    return write_ - head_cache_ <= mask_;
  }

  /// Registers the producer for a wake-up once the consumer drained half
  /// the ring; true if there is room already (then no wake-up comes).
  bool wait_for_room() {
    producer_waiting_.store(true, std::memory_order_relaxed);
    troupe::detail::full_fence();
    head_cache_ = head_.load(std::memory_order_acquire);
    if (write_ - head_cache_ <= mask_) {
      producer_waiting_.store(false, std::memory_order_relaxed);
      return true;
    }
    return false;
  }

  // -- consumer ------------------------------------------------------------------

  /// Tuples the consumer may take now.
  size_t readable() noexcept {
    if (read_ == tail_cache_)
      tail_cache_ = tail_.load(std::memory_order_acquire);
    return tail_cache_ - read_;
  }

  /// The next tuple; readable() must be non-zero.
  T& front() noexcept {
    TROUPE_ASSERT(read_ != tail_cache_);
    return *at(read_);
  }

  /// Destroys the front tuple; its slot is reused after release().
  void pop() noexcept {
    at(read_)->~T();
    ++read_;
  }

  /// Hands the slots of the popped tuples back to the producer, and wakes
  /// it if it waits and the ring is at most half full.
  void release() {
    if (read_ == head_.load(std::memory_order_relaxed))
      return;
    head_.store(read_, std::memory_order_release);
    if (tail_cache_ - read_ > (mask_ + 1) / 2)
      return;
    troupe::detail::full_fence();
    if (producer_waiting_.load(std::memory_order_relaxed)
        && producer_waiting_.exchange(false, std::memory_order_acq_rel) && producer_ != nullptr)
      producer_->wake();
  }

  /// True once the producer closed the ring and the consumer took all.
  bool drained() noexcept {
    return closed_.load(std::memory_order_acquire) && readable() == 0;
  }

  // -- anyone ----------------------------------------------------------------------

  /// Tuples published and not yet released: exact for the consumer,
  /// an estimate for everyone else (what send_next_if compares).
  size_t size() const noexcept {
    return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_acquire);
  }

private:
  struct slot {
    alignas(T) std::byte bytes[sizeof(T)];
  };

  T* at(size_t i) noexcept {
    return std::launder(reinterpret_cast<T*>(slots_[i & mask_].bytes));
  }

  const size_t mask_;
  std::unique_ptr<slot[]> slots_;
  waker* producer_ = nullptr;
  waker* consumer_ = nullptr;

  // Written by the consumer.
  alignas(64) std::atomic<size_t> head_{0};
  size_t read_ = 0;       // consumer only: the next slot to read
  size_t tail_cache_ = 0; // consumer only: the last tail it loaded

  // Written by the producer.
  alignas(64) std::atomic<size_t> tail_{0};
  size_t write_ = 0;      // producer only: the next slot to write
  size_t head_cache_ = 0; // producer only: the last head it loaded
  std::atomic<bool> closed_{false};

  // Written by both: set by a blocked producer, cleared by whoever wakes it.
  alignas(64) std::atomic<bool> producer_waiting_{false};
};

} // namespace troupe::stream::detail
