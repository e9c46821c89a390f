#pragma once

// mailbox_queue: what an actor owns of its mailbox. Senders push into one of
// two fifo_inboxes (lock-free, see fifo_inbox.hpp for the algorithm and
// memory orders): urgent messages into the urgent inbox, the others into the
// normal one, which alone holds the blocked state. The actor pops urgent
// messages first, then normal ones; a sender's messages of one kind come out
// in the order it pushed them. Two FIFO caches that only the actor touches,
// urgent and normal, sit in front of the inboxes: for messages the actor put
// back (push_front, prepend).
//
// A third cache, the deferred list, sits between the two: normal messages an
// actor skipped while it awaits a response. While the actor awaits, it hides
// that list (hide_deferred), so the next await does not pop and skip the same
// messages again; shown, the list comes out before the normal cache, in the
// order the messages arrived. Like a stash, it is left out of size(): a
// bounded mailbox bounds what waits to be looked at, not what was skipped.
//
// Threads: push(), size(), blocked() and closed() from any thread; every
// other member only from the consumer (the thread currently running the
// actor). Nothing here allocates.

#include "troupe/detail/assert.hpp"
#include "troupe/detail/fifo_inbox.hpp"

#include <atomic>
#include <concepts>
#include <cstddef>
#include <iterator>
#include <memory>
#include <type_traits>
#include <utility>

namespace troupe::detail {

/// An owning, intrusive, singly linked FIFO list of nodes linked by `next`,
/// with a tail pointer and a count. Deletes the nodes it still holds when
/// destroyed. Not thread-safe. Also the type of close()'s result and of the
/// lists an actor stashes skipped messages in.
template <inbox_node T, class Deleter = std::default_delete<T>>
class node_list {
public:
  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = T;
    using difference_type = std::ptrdiff_t;
    using pointer = T*;
    using reference = T&;

    iterator() noexcept = default;
    explicit iterator(T* x) noexcept : x_(x) {}
    T& operator*() const noexcept {
      return *x_;
    }
    T* operator->() const noexcept {
      return x_;
    }
    iterator& operator++() noexcept {
      x_ = x_->next;
      return *this;
    }
    iterator operator++(int) noexcept {
      auto old = *this;
      x_ = x_->next;
      return old;
    }
    friend bool operator==(iterator, iterator) noexcept = default;

  private:
    T* x_ = nullptr;
  };

  node_list() noexcept = default;

  explicit node_list(Deleter del) noexcept(
    std::is_nothrow_move_constructible_v<Deleter>)
    : del_(std::move(del)) {}

  node_list(const node_list&) = delete;
  node_list& operator=(const node_list&) = delete;

  /// Leaves `other` empty.
  node_list(node_list&& other) noexcept
    : head_(std::exchange(other.head_, nullptr)),
      tail_(std::exchange(other.tail_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      del_(other.del_) {}

  /// Deletes this list's nodes, then takes `other`'s and leaves it empty.
  node_list& operator=(node_list&& other) noexcept {
    if (this != &other) {
      clear();
      head_ = std::exchange(other.head_, nullptr);
      tail_ = std::exchange(other.tail_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }

  ~node_list() {
    clear();
  }

  bool empty() const noexcept {
    return head_ == nullptr;
  }

  size_t size() const noexcept {
    return size_;
  }

  /// The first node or nullptr.
  T* front() const noexcept {
    return head_;
  }

  /// The last node or nullptr.
  T* back() const noexcept {
    return tail_;
  }

  iterator begin() const noexcept {
    return iterator{head_};
  }

  iterator end() const noexcept {
    return iterator{};
  }

  /// Takes ownership of `x`.
  void push_back(T* x) noexcept {
    x->next = nullptr;
    if (tail_ != nullptr)
      tail_->next = x;
    else
      head_ = x;
    tail_ = x;
    ++size_;
  }

  /// Takes ownership of `x`.
  void push_front(T* x) noexcept {
    x->next = head_;
    if (head_ == nullptr)
      tail_ = x;
    head_ = x;
    ++size_;
  }

  /// Removes the first node and gives it to the caller; nullptr if empty.
  T* pop_front() noexcept {
    auto* x = head_;
    if (x == nullptr)
      return nullptr;
    head_ = x->next;
    if (head_ == nullptr)
      tail_ = nullptr;
    x->next = nullptr;
    --size_;
    return x;
  }

  /// Moves every node of `other` behind this list's nodes.
  void splice_back(node_list& other) noexcept {
    if (other.empty())
      return;
    if (tail_ != nullptr)
      tail_->next = other.head_;
    else
      head_ = other.head_;
    tail_ = other.tail_;
    size_ += other.size_;
    other.reset();
  }

  /// Moves every node of `other` in front of this list's nodes.
  void splice_front(node_list& other) noexcept {
    if (other.empty())
      return;
    other.tail_->next = head_;
    if (head_ == nullptr)
      tail_ = other.tail_;
    head_ = other.head_;
    size_ += other.size_;
    other.reset();
  }

  /// Deletes every node.
  void clear() noexcept {
    auto* x = head_;
    while (x != nullptr) {
      auto* next = x->next;
      del_(x);
      x = next;
    }
    reset();
  }

  Deleter& get_deleter() noexcept {
    return del_;
  }

private:
  void reset() noexcept {
    head_ = nullptr;
    tail_ = nullptr;
    size_ = 0;
  }

  T* head_ = nullptr;
  T* tail_ = nullptr;
  size_t size_ = 0;
  [[no_unique_address]] Deleter del_;
};

/// A mailbox node: an inbox_node that knows whether it is urgent.
template <class T>
concept mailbox_node = inbox_node<T> && requires(const T& x) {
  { x.is_urgent() } -> std::convertible_to<bool>;
};

template <mailbox_node T, class Deleter = std::default_delete<T>>
class mailbox_queue {
public:
  using node_type = T;
  using list_type = node_list<T, Deleter>;

  mailbox_queue() noexcept = default;

  explicit mailbox_queue(const Deleter& del) noexcept(
    std::is_nothrow_copy_constructible_v<Deleter>)
    : urgent_(del), normal_(del), deferred_(del) {}

  mailbox_queue(const mailbox_queue&) = delete;
  mailbox_queue& operator=(const mailbox_queue&) = delete;

  /// Deletes the messages still queued. No thread may push any more.
  ~mailbox_queue() {
    list_type rest{urgent_.get_deleter()};
    take_inbox(urgent_inbox_, urgent_cursor_, rest);
    take_inbox(inbox_, cursor_, rest);
  }

  // -- any thread -------------------------------------------------------------

  /// Enqueues `x`. On unblocked_reader the caller must schedule the actor; on
  /// queue_closed the caller still owns `x` and bounces it; backlog is a
  /// success that hints the actor waits to be run.
  inbox_result push(T* x) noexcept {
    if (!x->is_urgent()) [[likely]]
      return inbox_.push(x, cursor_);
    auto result = urgent_inbox_.push(x, urgent_cursor_);
    if (result == inbox_result::queue_closed)
      return result;
    // The normal inbox holds the blocked state.
    return inbox_.wake() ? inbox_result::unblocked_reader : inbox_result::success;
  }

  /// Approximate number of queued messages: both inboxes' counts plus the
  /// caches, deferred messages left out. Exact below 65536 when no thread
  /// pushes or pops, never too low while they do.
  size_t size() const noexcept {
    return inbox_.size(cursor_) + urgent_inbox_.size(urgent_cursor_)
           + cached_.load(std::memory_order_relaxed);
  }

  bool blocked() const noexcept {
    return inbox_.blocked();
  }

  bool closed() const noexcept {
    return inbox_.closed();
  }

  // -- consumer only ----------------------------------------------------------

  /// The next message without removing it (urgent first), or nullptr. The
  /// order of sources is pop_in_order()'s.
  T* peek() noexcept {
    consumer_check check{consumers_};
    if (auto* x = urgent_.front())
      return x;
    if (auto* x = urgent_inbox_.front(urgent_cursor_))
      return x;
    if (!shown_deferred_empty())
      return deferred_.front();
    if (auto* x = normal_.front())
      return x;
    return inbox_.front(cursor_);
  }

  /// Removes and returns the next message (urgent first, then the shown
  /// deferred ones), or nullptr. The caller owns it.
  T* pop() noexcept {
    consumer_check check{consumers_};
    if (!urgent_.empty() || !normal_.empty() || !deferred_.empty()) [[unlikely]]
      return pop_in_order();
    // The caches are empty: the two inboxes, urgent first.
    if (urgent_cursor_.head != nullptr || urgent_inbox_.has_node()) [[unlikely]]
      return urgent_inbox_.pop(urgent_cursor_);
    return inbox_.pop(cursor_);
  }

  /// True if pop() has nothing to return: no message is cached or queued
  /// but hidden deferred ones.
  bool empty() const noexcept {
    return urgent_.empty() && shown_deferred_empty() && normal_.empty()
           && urgent_inbox_.empty(urgent_cursor_) && inbox_.empty(cursor_);
  }

  /// Puts a normal message the actor skipped at the end of the deferred
  /// list. Only for messages pop() returned since the list was last shown
  /// or revealed: the list must stay in the order the messages arrived.
  void defer(T* x) noexcept {
    consumer_check check{consumers_};
    TROUPE_ASSERT(!x->is_urgent());
    TROUPE_ASSERT(!inbox_.closed()); // close() handed every message out
    deferred_.push_back(x);
  }

  /// Hides the deferred messages from peek() and pop() (true) or shows them
  /// again, ahead of the normal cache (false).
  void hide_deferred(bool hidden) noexcept {
    consumer_check check{consumers_};
    deferred_hidden_ = hidden;
  }

  /// Moves the deferred messages in front of the normal cache, where pop()
  /// returns each once more even while the list is hidden: for an actor
  /// whose awaited responses changed, so what it skipped may match now.
  void reveal_deferred() noexcept {
    consumer_check check{consumers_};
    reveal();
  }

  /// Marks the actor blocked if it has no message at all; then the next push
  /// returns unblocked_reader. On false, keep reading (or it is closed).
  bool try_block() noexcept {
    {
      // Not across the inbox's CAS: once blocked, a sender may schedule the
      // actor on another thread before this call has returned.
      consumer_check check{consumers_};
      if (!urgent_.empty() || !shown_deferred_empty() || !normal_.empty()
          || cursor_.head != nullptr || !urgent_inbox_.empty(urgent_cursor_))
        return false;
    }
    if (!inbox_.try_block(cursor_))
      return false;
    // An urgent push between the look above and the block wakes the inbox
    // (push); both sides are sequentially consistent, so if it did not see
    // the block, this sees its message.
    if (!urgent_inbox_.has_node())
      return true;
    // On false that push unblocked us and schedules us: stop here.
    return !inbox_.try_unblock();
  }

  /// Leaves the blocked state without a message (e.g. a receive timeout). On
  /// false a sender got unblocked_reader first, or it was not blocked.
  bool try_unblock() noexcept {
    return inbox_.try_unblock();
  }

  /// Puts `x` back in front of the messages of its kind (urgent or normal).
  void push_front(T* x) noexcept {
    consumer_check check{consumers_};
    TROUPE_ASSERT(!inbox_.closed()); // close() handed every message out
    if (!deferred_hidden_)
      reveal(); // x must come out before what is shown, and be counted
    (x->is_urgent() ? urgent_ : normal_).push_front(x);
    cached_.store(cached_.load(std::memory_order_relaxed) + 1,
                  std::memory_order_relaxed);
  }

  /// Puts `xs` back in front of every other message pop() would return,
  /// keeping their order: used when skipped (stashed) messages get another
  /// chance after a behaviour change. Urgent ones go in front of the urgent
  /// cache and normal ones in front of the normal cache (after the shown
  /// deferred ones move there), so urgent messages still come first.
  void prepend(list_type&& xs) noexcept {
    consumer_check check{consumers_};
    TROUPE_ASSERT(xs.empty() || !inbox_.closed()); // close() handed every message out
    auto n = xs.size();
    if (n == 0)
      return;
    list_type urgent{xs.get_deleter()};
    list_type normal{xs.get_deleter()};
    while (auto* x = xs.pop_front())
      (x->is_urgent() ? urgent : normal).push_back(x);
    if (!deferred_hidden_)
      reveal();
    urgent_.splice_front(urgent);
    normal_.splice_front(normal);
    cached_.store(cached_.load(std::memory_order_relaxed) + n,
                  std::memory_order_relaxed);
  }

  /// Closes the mailbox and returns every message left, in the order pop()
  /// would have returned them, for the owner to bounce. Later pushes return
  /// queue_closed; pop() returns nullptr.
  list_type close() noexcept {
    consumer_check check{consumers_};
    // The normal inbox first: an urgent push that wakes it after this still
    // lands in the urgent inbox before that closes, and comes out below.
    list_type normal{urgent_.get_deleter()};
    take_inbox(inbox_, cursor_, normal);
    list_type result{std::move(urgent_)};
    take_inbox(urgent_inbox_, urgent_cursor_, result);
    result.splice_back(deferred_);
    result.splice_back(normal_);
    result.splice_back(normal);
    cached_.store(0, std::memory_order_relaxed);
    return result;
  }

private:
  using inbox_type = fifo_inbox<T>;

  bool shown_deferred_empty() const noexcept {
    // Empty first: it almost always is, and then the flag is not read.
    return deferred_.empty() || deferred_hidden_;
  }

  /// The next message, looking at every source in the order peek() does:
  /// for when a cache holds messages.
  T* pop_in_order() noexcept {
    auto take = [this](list_type& from) noexcept {
      if (&from != &deferred_)
        cached_.store(cached_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
      return from.pop_front();
    };
    if (!urgent_.empty())
      return take(urgent_);
    if (auto* x = urgent_inbox_.pop(urgent_cursor_))
      return x;
    if (!shown_deferred_empty())
      return take(deferred_);
    if (!normal_.empty())
      return take(normal_);
    return inbox_.pop(cursor_);
  }

  /// Moves the deferred messages to the front of the normal cache, where
  /// they count.
  void reveal() noexcept {
    auto n = deferred_.size();
    normal_.splice_front(deferred_);
    cached_.store(cached_.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }

  /// Closes `inbox` and appends what it held to `out`.
  static void take_inbox(inbox_type& inbox, typename inbox_type::cursor& c,
                         list_type& out) noexcept {
    auto* x = inbox.close(c);
    while (x != nullptr) {
      auto* next = x->next;
      out.push_back(x);
      x = next;
    }
  }

  // Shared with senders: one cache line of their own.
  alignas(64) inbox_type inbox_;
  // Written only by the consumer (relaxed stores), and only when it puts
  // messages back; read by size() anywhere.
  std::atomic<size_t> cached_{0};

  // Consumer-only: written and read only by the thread running the actor
  // (the cursors' pop counts are read by size() anywhere). Urgent messages
  // are rare, so the urgent inbox's words live here too: pop() looks at
  // them for every message, which must not pull the senders' line.
  alignas(64) typename inbox_type::cursor cursor_;
  typename inbox_type::cursor urgent_cursor_;
  inbox_type urgent_inbox_;
  list_type urgent_;
  list_type normal_;
  list_type deferred_;
  bool deferred_hidden_ = false;

#ifdef TROUPE_ENABLE_ASSERTIONS
  // Consumer members running right now: more than one is a broken caller.
  std::atomic<int> consumers_{0};

  struct consumer_check {
    explicit consumer_check(std::atomic<int>& n) noexcept : n_(n) {
      TROUPE_ASSERT(n_.fetch_add(1, std::memory_order_acquire) == 0);
    }
    ~consumer_check() {
      n_.fetch_sub(1, std::memory_order_release);
    }
    std::atomic<int>& n_;
  };
#else
  struct empty_counter {};
  [[no_unique_address]] empty_counter consumers_;

  struct consumer_check {
    explicit consumer_check(empty_counter) noexcept {}
  };
#endif
};

} // namespace troupe::detail
