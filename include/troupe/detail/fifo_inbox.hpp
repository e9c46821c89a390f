#pragma once

// fifo_inbox: the lock-free, intrusive, multi-producer single-consumer FIFO
// queue at the front of every mailbox.
//
// Algorithm: D. Vyukov's intrusive MPSC node queue (1024cores.net), in the
// form without a stub node, with the tag values of the head word that CAF's
// lifo_inbox introduced: `blocked` (the reader is idle and waits to be
// scheduled) and `closed` (the owner terminated). A pusher swings the back
// word from the last node to its own, then links the old last node to it;
// the reader follows the links from the front. The reader never reverses a
// stack: under a flood of messages each node is touched once, in the order
// it was written, instead of twice in opposite orders (the second walk of a
// long stack missed the cache on every node).
//
// Words:
// - `back_` (pushers CAS it; the reader CASes it when it takes the last node
//   and to block): the last node, or a tag (empty, blocked, closed) in the
//   low 48 bits; the number of pushes so far, modulo 2^16, in the top 16.
// - `first_` (written by the pusher whose push ends an empty or blocked
//   state, then by the reader when it takes that node): the first node.
// - A cursor (reader only, kept apart by the owner, see `cursor`): the next
//   node to pop and the number of pops so far.
//
// Back word states and transitions (N = a node):
//   empty   -> N        push (any thread); it stores N in first_
//   blocked -> N        push (any thread); that pusher alone gets
//                       inbox_result::unblocked_reader and must schedule or
//                       wake the reader
//   N       -> N'       push (any thread); it links N.next = N'
//   N       -> empty    pop of the last node (reader)
//   empty   -> blocked  try_block (reader)
//   blocked -> empty    try_unblock (reader) or wake (any thread; the one
//                       that succeeds must schedule the reader)
//   any     -> closed   close (reader); pushes then fail with
//                       inbox_result::queue_closed and leave the node with
//                       their caller
//
// A push is in flight between its CAS and its link (or its store to
// first_): the reader may then see a back word holding a node it cannot
// reach yet. It waits for the link, which is two instructions away on the
// pusher's side (it spins, then yields to a pusher preempted in between).
// pop() therefore returns nullptr only if the queue was empty.
//
// Threads: push(), wake(), has_node(), blocked() and closed() from any
// thread; every member that takes a cursor only from the reader (the one
// thread currently running the owner; the scheduler's hand-off orders
// readers). size() from any thread; it is a snapshot.
//
// Memory orders:
// - A push publishes its node with a release CAS and a release link (or
//   store to first_); the reader reads links and first_ with acquire, so it
//   sees the node's fields. The node's own next is null before the CAS.
// - try_block and push are sequentially consistent CASes (on x86 the same
//   instruction as acq_rel; the urgent inbox's wake-up needs the order, see
//   wake()): the pusher that replaces
//   `blocked` sees everything the reader wrote before it blocked, and hands
//   that on to whichever thread it schedules the reader onto.
// - The reader's CAS that takes the last node (acq_rel) orders its write of
//   null to first_ before the next pusher's store of the new first node.
// - size() reads the reader's pop count with acquire, then the back word: a
//   pop it counts is of a push it counts, so it is never too low.

#include "troupe/detail/assert.hpp"
#include "troupe/detail/cpu_relax.hpp"

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <type_traits>
#include <utility>

namespace troupe::detail {

/// What push() did with a node.
enum class inbox_result {
  /// Queued; the reader was already scheduled or running.
  success,
  /// Queued, and at least `backlog_threshold` nodes wait: the reader,
  /// scheduled, has not caught up for a while. Reported at most once per
  /// backlog_threshold pushes, so the caller can see that the reader waits,
  /// e.g. behind the sender itself.
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

template <inbox_node T>
class fifo_inbox {
public:
  using node_type = T;

  /// The reader's position. Only the reader writes it; its owner keeps it
  /// on a cache line pushers do not write (mailbox_queue puts both of its
  /// inboxes' cursors beside its own reader-only state).
  struct cursor {
    /// The next node to pop, once taken from first_; null until then.
    T* head = nullptr;
    /// Pops so far, modulo 2^16 (read by size() on any thread).
    std::atomic<uint16_t> popped{0};
  };

  /// The number of queued nodes at which push reports backlog.
  static constexpr size_t backlog_threshold = 64;

  /// The owner closes the inbox before it goes and disposes of what
  /// close() returns: the inbox deletes nothing.
  fifo_inbox() noexcept = default;
  fifo_inbox(const fifo_inbox&) = delete;
  fifo_inbox& operator=(const fifo_inbox&) = delete;

  static_assert(sizeof(uintptr_t) == 8, "fifo_inbox packs a count into the back word");

  // -- any thread -------------------------------------------------------------

  /// Appends `x`; the inbox owns it unless the result is queue_closed. `c`
  /// is read only when a push completes a multiple of backlog_threshold
  /// pushes, to tell whether so many nodes wait.
  inbox_result push(T* x, const cursor& c) noexcept {
    TROUPE_ASSERT((reinterpret_cast<uintptr_t>(x) & ~pointer_mask) == 0);
    auto e = back_.load(std::memory_order_relaxed);
    uintptr_t desired;
    do {
      if (node_of(e) == closed_tag())
        return inbox_result::queue_closed; // x untouched
      x->next = nullptr;
      desired = reinterpret_cast<uintptr_t>(x) | next_count(e);
    } while (!back_.compare_exchange_weak(e, desired, std::memory_order_seq_cst,
                                          std::memory_order_relaxed));
    auto* prev = node_of(e);
    if (holds_no_node(prev))
      first_.store(x, std::memory_order_release);
    else
      std::atomic_ref<T*>{prev->next}.store(x, std::memory_order_release);
    if (prev == blocked_tag())
      return inbox_result::unblocked_reader;
    if ((count_of(desired) % backlog_threshold) == 0
        && queued(desired, c.popped.load(std::memory_order_relaxed)) >= backlog_threshold)
      return inbox_result::backlog;
    return inbox_result::success;
  }

  /// Leaves the blocked state on behalf of a node queued elsewhere (the
  /// urgent inbox beside this one). Sequentially consistent, as the push
  /// before it and the reader's try_block and look at that other inbox:
  /// either the reader sees the other node or this sees it blocked. True if
  /// this call unblocked the reader: the caller must schedule it.
  bool wake() noexcept {
    auto e = back_.load(std::memory_order_seq_cst);
    while (node_of(e) == blocked_tag())
      if (back_.compare_exchange_weak(e, count_bits(e), std::memory_order_seq_cst,
                                      std::memory_order_seq_cst))
        return true;
    return false;
  }

  /// True if a node is queued (or a push of one is in flight).
  bool has_node() const noexcept {
    return !holds_no_node(node_of(back_.load(std::memory_order_seq_cst)));
  }

  bool blocked() const noexcept {
    return node_of(back_.load(std::memory_order_acquire)) == blocked_tag();
  }

  bool closed() const noexcept {
    return node_of(back_.load(std::memory_order_acquire)) == closed_tag();
  }

  /// Queued nodes: exact below 65536 when no thread pushes or pops, never
  /// too low while they do (modulo 2^16 beyond).
  size_t size(const cursor& c) const noexcept {
    auto popped = c.popped.load(std::memory_order_acquire);
    auto e = back_.load(std::memory_order_acquire);
    if (node_of(e) == closed_tag())
      return 0;
    return queued(e, popped);
  }

  // -- reader only -------------------------------------------------------------

  /// The oldest node without removing it, or nullptr if none is queued.
  T* front(cursor& c) noexcept {
    if (c.head == nullptr && !take_first(c))
      return nullptr;
    return c.head;
  }

  /// Removes and returns the oldest node, or nullptr if none is queued. The
  /// caller owns it.
  T* pop(cursor& c) noexcept {
    if (c.head == nullptr && !take_first(c))
      return nullptr;
    auto* x = c.head;
    auto* next = std::atomic_ref<T*>{x->next}.load(std::memory_order_acquire);
    if (next == nullptr) {
      auto e = back_.load(std::memory_order_acquire);
      // x is the last node: leave the inbox empty, keeping the count.
      if (node_of(e) == x
          && back_.compare_exchange_strong(e, count_bits(e), std::memory_order_acq_rel,
                                           std::memory_order_acquire)) {
        c.head = nullptr;
        count_pop(c);
        return x;
      }
      // A push got in behind x: it links x to its node in a moment.
      next = await_link(x->next);
    }
    // Under a flood the next node has left the cache by now: fetch it while
    // the caller handles this one.
    __builtin_prefetch(next);
    c.head = next;
    count_pop(c);
    x->next = nullptr;
    return x;
  }

  /// True if pop() would return a node.
  bool empty(const cursor& c) const noexcept {
    return c.head == nullptr && !has_node();
  }

  /// Marks the reader blocked if nothing is queued. On false, nodes arrived
  /// (pop them) or the inbox is closed. A blocked reader does not run until
  /// a push unblocks it, so it never blocks twice (checked).
  bool try_block([[maybe_unused]] const cursor& c) noexcept {
    TROUPE_ASSERT(c.head == nullptr);
    auto e = back_.load(std::memory_order_relaxed);
    TROUPE_ASSERT(node_of(e) != blocked_tag());
    if (node_of(e) != nullptr)
      return false;
    return back_.compare_exchange_strong(e, e | tag_word(blocked_tag()),
                                         std::memory_order_seq_cst, std::memory_order_relaxed);
  }

  /// Leaves the blocked state without a push (e.g. on a timeout). On false,
  /// a pusher (or wake) got in first and schedules the reader, or the inbox
  /// was not blocked.
  bool try_unblock() noexcept {
    auto e = back_.load(std::memory_order_relaxed);
    if (node_of(e) != blocked_tag())
      return false;
    return back_.compare_exchange_strong(e, count_bits(e), std::memory_order_acq_rel,
                                         std::memory_order_relaxed);
  }

  /// Closes the inbox and returns the nodes still queued, oldest first and
  /// linked by next, for the owner to bounce. Idempotent: a second call
  /// returns nullptr.
  T* close(cursor& c) noexcept {
    auto e = back_.exchange(tag_word(closed_tag()), std::memory_order_acq_rel);
    auto* last = node_of(e);
    if (holds_no_node(last)) {
      TROUPE_ASSERT(c.head == nullptr);
      return nullptr;
    }
    if (c.head == nullptr)
      c.head = await_link(first_);
    first_.store(nullptr, std::memory_order_relaxed);
    // Wait for the links of pushes still in flight; none comes after last.
    for (auto* x = c.head; x != last; x = await_link(x->next)) {
    }
    return std::exchange(c.head, nullptr);
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
  static constexpr uintptr_t pointer_mask = (uintptr_t{1} << count_shift) - 1;

  static T* node_of(uintptr_t word) noexcept {
    return reinterpret_cast<T*>(word & pointer_mask);
  }

  static uintptr_t count_of(uintptr_t word) noexcept {
    return word >> count_shift;
  }

  static uintptr_t count_bits(uintptr_t word) noexcept {
    return word & ~pointer_mask;
  }

  /// The count bits after one more push (wrapping).
  static uintptr_t next_count(uintptr_t word) noexcept {
    return count_bits(word) + (uintptr_t{1} << count_shift);
  }

  static uintptr_t tag_word(T* tag) noexcept {
    return reinterpret_cast<uintptr_t>(tag);
  }

  /// Pushes counted in `word` less `popped` pops, modulo 2^16.
  static size_t queued(uintptr_t word, uint16_t popped) noexcept {
    return static_cast<uint16_t>(static_cast<uint16_t>(count_of(word)) - popped);
  }

  static void count_pop(cursor& c) noexcept {
    c.popped.store(static_cast<uint16_t>(c.popped.load(std::memory_order_relaxed) + 1),
                   std::memory_order_release);
  }

  /// Moves the first node into the cursor; false if none is queued.
  bool take_first(cursor& c) noexcept {
    auto* x = first_.load(std::memory_order_acquire);
    if (x == nullptr) {
      if (holds_no_node(node_of(back_.load(std::memory_order_acquire))))
        return false;
      x = await_link(first_);
    }
    first_.store(nullptr, std::memory_order_relaxed);
    c.head = x;
    return true;
  }

  /// Waits until a push in flight stores its node into `link`.
  template <class Link>
  static T* await_link(Link& link) noexcept {
    for (int i = 0;; ++i) {
      T* x;
      if constexpr (std::is_same_v<Link, T*>)
        x = std::atomic_ref<T*>{link}.load(std::memory_order_acquire);
      else
        x = link.load(std::memory_order_acquire);
      if (x != nullptr)
        return x;
      if (i < 64)
        cpu_relax();
      else
        std::this_thread::yield(); // the pusher may have been preempted
    }
  }

  // Shared with pushers; the owner gives it a cache line of its own.
  std::atomic<uintptr_t> back_{0};
  std::atomic<T*> first_{nullptr};
};

} // namespace troupe::detail
