#pragma once

// lifo_inbox: the lock-free, intrusive, multi-producer single-consumer stack
// at the front of every mailbox.
//
// Algorithm: a Treiber stack (R. K. Treiber, "Systems Programming: Coping
// with Parallelism", IBM RJ 5118, 1986) whose consumer never pops a single
// node but takes the whole stack at once, plus two tag values of the head
// borrowed from CAF's intrusive lifo_inbox: `blocked` (the reader is idle and
// waits to be scheduled) and `closed` (the owner terminated). Taking the
// whole stack makes the algorithm free of ABA: a pusher only ever links its
// node to the head it read and never dereferences it.
//
// Head states and transitions (N = a node):
//   nullptr -> N        push (any thread)
//   N       -> N'       push (any thread)
//   blocked -> N        push (any thread); that pusher alone gets
//                       inbox_result::unblocked_reader and must schedule or
//                       wake the reader
//   N       -> nullptr  take_all (consumer)
//   nullptr -> blocked  try_block (consumer)
//   blocked -> nullptr  try_unblock (consumer)
//   any     -> closed   close (consumer); pushes then fail with
//                       inbox_result::queue_closed and leave the node with
//                       their caller
// Only the consumer leaves a node state or enters a tag state, so once the
// consumer sees a node at the head, the head stays a node until the consumer
// changes it.
//
// Threads: push() from any thread. take_all(), consumed(), try_block(),
// try_unblock() and close() only from the consumer: the one thread that
// currently runs the owner (it may change between runs; the scheduler's
// hand-off orders them). size(), empty(), blocked() and closed() from any
// thread; they are snapshots.
//
// Memory orders:
// - push publishes its node with a release CAS, so the consumer that takes
//   the node with an acquire exchange sees its fields and its `next` link.
//   Every write to head after construction is a read-modify-write, so one
//   acquire take synchronises with every push before it (release sequence).
//   close() takes the remaining nodes the same way.
// - try_block is a release CAS and push is acq_rel: the pusher that replaces
//   `blocked` sees everything the consumer wrote before it blocked, and hands
//   that on to whichever thread it schedules the reader onto. (acq_rel costs
//   nothing on x86; a conditional acquire fence would be cheaper on ARM but
//   ThreadSanitizer does not model fences.)
// - The size counter is relaxed: it is an estimate and orders nothing. It
//   sits on head's cache line, which the pusher owns right after its CAS.
//   The counter may fall below zero for a moment (the consumer took a node
//   before its pusher counted it); size() reports that as 0.

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace troupe::detail {

/// What push() did with a node.
enum class inbox_result {
  /// Queued; the reader was already scheduled or running.
  success,
  /// Queued, and the reader was blocked: the caller must schedule it.
  unblocked_reader,
  /// Not queued: the inbox is closed and the caller still owns the node.
  queue_closed,
};

/// An intrusive node type: `x.next` is a public, assignable `T*`.
template <class T>
concept inbox_node = requires(T& x) {
  { x.next } -> std::same_as<T*&>;
};

template <inbox_node T, class Deleter = std::default_delete<T>>
class alignas(64) lifo_inbox {
public:
  using node_type = T;
  using deleter_type = Deleter;

  lifo_inbox() noexcept = default;

  explicit lifo_inbox(Deleter del) noexcept(
    std::is_nothrow_move_constructible_v<Deleter>)
    : del_(std::move(del)) {}

  lifo_inbox(const lifo_inbox&) = delete;
  lifo_inbox& operator=(const lifo_inbox&) = delete;

  /// Deletes the nodes still queued. No thread may push any more.
  ~lifo_inbox() {
    auto* x = head_.load(std::memory_order_acquire);
    if (!holds_no_node(x))
      delete_list(x);
  }

  // -- any thread -------------------------------------------------------------

  /// Pushes `x` onto the stack; the inbox owns it unless the result is
  /// queue_closed. One CAS loop: an exchange cannot work here because the
  /// node must point at the old head before it becomes visible, and because
  /// `closed` must never be overwritten.
  inbox_result push(T* x) noexcept {
    auto* e = head_.load(std::memory_order_relaxed);
    do {
      if (e == closed_tag())
        return inbox_result::queue_closed;
      x->next = e == blocked_tag() ? nullptr : e;
    } while (!head_.compare_exchange_weak(e, x, std::memory_order_acq_rel,
                                          std::memory_order_relaxed));
    size_.fetch_add(1, std::memory_order_relaxed);
    return e == blocked_tag() ? inbox_result::unblocked_reader
                              : inbox_result::success;
  }

  /// Approximate number of queued nodes.
  size_t size() const noexcept {
    auto n = size_.load(std::memory_order_relaxed);
    return n > 0 ? static_cast<size_t>(n) : 0;
  }

  /// True if no node is queued (also when blocked or closed).
  bool empty() const noexcept {
    return holds_no_node(head_.load(std::memory_order_acquire));
  }

  bool blocked() const noexcept {
    return head_.load(std::memory_order_acquire) == blocked_tag();
  }

  bool closed() const noexcept {
    return head_.load(std::memory_order_acquire) == closed_tag();
  }

  // -- consumer only ----------------------------------------------------------

  /// Takes every queued node, newest first (reverse it for FIFO order), or
  /// returns nullptr when there is none or the inbox is blocked or closed.
  /// The caller owns the nodes and reports how many it took with consumed()
  /// once it has counted them, so that the walk is not done twice.
  T* take_all() noexcept {
    // A relaxed peek first: exchanging nullptr into a blocked or closed head
    // would lose the tag, and the peek keeps an empty inbox read-only.
    if (holds_no_node(head_.load(std::memory_order_relaxed)))
      return nullptr;
    return head_.exchange(nullptr, std::memory_order_acquire);
  }

  /// Subtracts `n` taken nodes from the size estimate.
  void consumed(size_t n) noexcept {
    size_.fetch_sub(static_cast<std::ptrdiff_t>(n), std::memory_order_relaxed);
  }

  /// Marks the reader blocked if nothing is queued. On false, nodes arrived
  /// (take them) or the inbox is closed or already blocked.
  bool try_block() noexcept {
    T* expected = nullptr;
    return head_.compare_exchange_strong(expected, blocked_tag(),
                                         std::memory_order_release,
                                         std::memory_order_relaxed);
  }

  /// Leaves the blocked state without a push (e.g. on a timeout). On false,
  /// a pusher got unblocked_reader first and schedules the reader, or the
  /// inbox was not blocked.
  bool try_unblock() noexcept {
    T* expected = blocked_tag();
    return head_.compare_exchange_strong(expected, nullptr,
                                         std::memory_order_acq_rel,
                                         std::memory_order_relaxed);
  }

  /// Closes the inbox and returns the nodes still queued, newest first, for
  /// the owner to bounce. Idempotent: a second call returns nullptr.
  T* close() noexcept {
    auto* x = head_.exchange(closed_tag(), std::memory_order_acquire);
    if (holds_no_node(x))
      return nullptr;
    size_t n = 0;
    for (auto* i = x; i != nullptr; i = i->next)
      ++n;
    consumed(n);
    return x;
  }

  /// Deletes a list of nodes linked by `next` with this inbox's deleter.
  void delete_list(T* x) noexcept {
    while (x != nullptr) {
      auto* next = x->next;
      del_(x);
      x = next;
    }
  }

  Deleter& get_deleter() noexcept {
    return del_;
  }

private:
  // No T lives at address 1 or 2: T holds a pointer, so alignof(T) > 2.
  static_assert(alignof(T) > 2);

  static T* blocked_tag() noexcept {
    return reinterpret_cast<T*>(uintptr_t{1});
  }

  static T* closed_tag() noexcept {
    return reinterpret_cast<T*>(uintptr_t{2});
  }

  /// True for nullptr and both tags.
  static bool holds_no_node(T* x) noexcept {
    return reinterpret_cast<uintptr_t>(x) <= 2;
  }

  // head_ and size_ share one cache line on purpose (see the opening block).
  // Written by pushers (CAS, fetch_add) and by the consumer (exchange, CAS,
  // fetch_sub).
  std::atomic<T*> head_{nullptr};
  std::atomic<std::ptrdiff_t> size_{0};

  // Read-only after construction.
  [[no_unique_address]] Deleter del_;
};

} // namespace troupe::detail
