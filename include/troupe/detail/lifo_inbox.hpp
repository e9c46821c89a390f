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
// Threads: push() from any thread. take_all(), try_block(),
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
// - The size estimate costs no extra atomic: the top 16 bits of the head
//   word count the nodes in the stack (saturating at 65535), and each push
//   writes its head's count plus one in the same CAS that links the node.
//   Pointers on x86-64 and AArch64 user space fit in the low 48 bits.

#include "troupe/detail/assert.hpp"

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
  /// Queued, and the stack now holds exactly `backlog_threshold` nodes: the
  /// reader, scheduled, has not taken any for a while. Reported once per
  /// build-up (the count restarts when the reader takes the nodes), so the
  /// caller can see that the reader waits, e.g. behind the sender itself.
  backlog,
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

  static_assert(sizeof(uintptr_t) == 8, "lifo_inbox packs a count into the head pointer");

  lifo_inbox(const lifo_inbox&) = delete;
  lifo_inbox& operator=(const lifo_inbox&) = delete;

  /// Deletes the nodes still queued. No thread may push any more.
  ~lifo_inbox() {
    auto* x = node_of(head_.load(std::memory_order_acquire));
    if (!holds_no_node(x))
      delete_list(x);
  }

  // -- any thread -------------------------------------------------------------

  /// Pushes `x` onto the stack; the inbox owns it unless the result is
  /// queue_closed. One CAS loop: an exchange cannot work here because the
  /// node must point at the old head before it becomes visible, and because
  /// `closed` must never be overwritten.
  inbox_result push(T* x) noexcept {
    TROUPE_ASSERT((reinterpret_cast<uintptr_t>(x) & ~pointer_mask) == 0);
    auto e = head_.load(std::memory_order_relaxed);
    uintptr_t desired;
    do {
      auto* top = node_of(e);
      if (top == closed_tag())
        return inbox_result::queue_closed;
      auto n = holds_no_node(top) ? uintptr_t{1} : count_of(e) + (count_of(e) < max_count);
      x->next = holds_no_node(top) ? nullptr : top;
      desired = reinterpret_cast<uintptr_t>(x) | (n << count_shift);
    } while (!head_.compare_exchange_weak(e, desired, std::memory_order_acq_rel,
                                          std::memory_order_relaxed));
    if (node_of(e) == blocked_tag())
      return inbox_result::unblocked_reader;
    return (desired >> count_shift) == backlog_threshold ? inbox_result::backlog
                                                         : inbox_result::success;
  }

  /// The stack size at which push reports backlog.
  static constexpr size_t backlog_threshold = 64;

  /// Approximate number of queued nodes (exact below 65535).
  size_t size() const noexcept {
    auto e = head_.load(std::memory_order_acquire);
    return holds_no_node(node_of(e)) ? 0 : static_cast<size_t>(count_of(e));
  }

  /// True if no node is queued (also when blocked or closed).
  bool empty() const noexcept {
    return holds_no_node(node_of(head_.load(std::memory_order_acquire)));
  }

  bool blocked() const noexcept {
    return head_.load(std::memory_order_acquire) == tag_word(blocked_tag());
  }

  bool closed() const noexcept {
    return head_.load(std::memory_order_acquire) == tag_word(closed_tag());
  }

  // -- consumer only ----------------------------------------------------------

  /// Takes every queued node, newest first (reverse it for FIFO order), or
  /// returns nullptr when there is none or the inbox is blocked or closed.
  T* take_all() noexcept {
    return take_all([](size_t) noexcept {});
  }

  /// As take_all(), and calls `announce(n)` with the number of nodes it is
  /// about to take (the count in the head, exact below 65535) before the
  /// inbox turns empty: whatever `announce` stores, a reader of size() that
  /// sees the emptied head sees too. Called again with the new count each
  /// time a push gets in first.
  template <class Announce>
  T* take_all(Announce&& announce) noexcept {
    // A relaxed peek first: swapping nullptr into a blocked or closed head
    // would lose the tag, and the peek keeps an empty inbox read-only.
    auto e = head_.load(std::memory_order_relaxed);
    if (holds_no_node(node_of(e)))
      return nullptr;
    // Only the consumer removes nodes, so a failed CAS means a push: the
    // head still holds nodes, with a higher count.
    do {
      announce(static_cast<size_t>(count_of(e)));
    } while (!head_.compare_exchange_weak(e, 0, std::memory_order_acq_rel,
                                          std::memory_order_relaxed));
    return node_of(e);
  }

  /// Marks the reader blocked if nothing is queued. On false, nodes arrived
  /// (take them) or the inbox is closed. A blocked reader does not run until
  /// a push unblocks it, so it never blocks twice (checked).
  bool try_block() noexcept {
    uintptr_t expected = 0;
    if (head_.compare_exchange_strong(expected, tag_word(blocked_tag()),
                                      std::memory_order_release, std::memory_order_relaxed))
      return true;
    // Only a pusher unblocks a reader, and it then runs the reader: a reader
    // that finds itself blocked runs without having been woken.
    TROUPE_ASSERT(expected != tag_word(blocked_tag()));
    return false;
  }

  /// Leaves the blocked state without a push (e.g. on a timeout). On false,
  /// a pusher got unblocked_reader first and schedules the reader, or the
  /// inbox was not blocked.
  bool try_unblock() noexcept {
    auto expected = tag_word(blocked_tag());
    return head_.compare_exchange_strong(expected, 0, std::memory_order_acq_rel,
                                         std::memory_order_relaxed);
  }

  /// Closes the inbox and returns the nodes still queued, newest first, for
  /// the owner to bounce. Idempotent: a second call returns nullptr.
  T* close() noexcept {
    auto* x = node_of(head_.exchange(tag_word(closed_tag()), std::memory_order_acquire));
    return holds_no_node(x) ? nullptr : x;
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

  static constexpr unsigned count_shift = 48;
  static constexpr uintptr_t max_count = 0xFFFF;
  static constexpr uintptr_t pointer_mask = (uintptr_t{1} << count_shift) - 1;

  static T* node_of(uintptr_t word) noexcept {
    return reinterpret_cast<T*>(word & pointer_mask);
  }

  static uintptr_t count_of(uintptr_t word) noexcept {
    return word >> count_shift;
  }

  static uintptr_t tag_word(T* tag) noexcept {
    return reinterpret_cast<uintptr_t>(tag);
  }

  // The head node (low 48 bits) and the number of queued nodes (high 16
  // bits). Written by pushers (CAS) and by the consumer (exchange, CAS).
  std::atomic<uintptr_t> head_{0};

  // Read-only after construction.
  [[no_unique_address]] Deleter del_;
};

} // namespace troupe::detail
