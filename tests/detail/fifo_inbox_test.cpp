#include "troupe/detail/fifo_inbox.hpp"

#include "../support/queue_producers.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <semaphore>
#include <thread>
#include <vector>

using troupe::detail::fifo_inbox;
using troupe::detail::inbox_result;

using namespace troupe::test;

namespace {

using node = queue_node;

/// A fifo_inbox with its reader's cursor, as its owner keeps them.
struct inbox {
  fifo_inbox<node> q;
  fifo_inbox<node>::cursor c;

  inbox_result push(node* x) {
    return q.push(x, c);
  }
  node* pop() {
    return q.pop(c);
  }
  node* front() {
    return q.front(c);
  }
  bool empty() const {
    return q.empty(c);
  }
  size_t size() const {
    return q.size(c);
  }
  bool try_block() {
    return q.try_block(c);
  }
  bool try_unblock() {
    return q.try_unblock();
  }
  bool blocked() const {
    return q.blocked();
  }
  bool closed() const {
    return q.closed();
  }
  node* close() {
    return q.close(c);
  }
};

std::vector<node*> to_vector(node* x) {
  std::vector<node*> result;
  for (; x != nullptr; x = x->next)
    result.push_back(x);
  return result;
}

std::vector<node*> drain(inbox& q) {
  std::vector<node*> result;
  while (auto* x = q.pop())
    result.push_back(x);
  return result;
}

} // namespace

TEST(fifo_inbox, a_new_inbox_is_empty_and_neither_blocked_nor_closed) {
  inbox q;
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.blocked());
  EXPECT_FALSE(q.closed());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.front(), nullptr);
  EXPECT_EQ(q.pop(), nullptr);
}

TEST(fifo_inbox, pop_returns_every_node_oldest_first) {
  inbox q;
  node a, b, c;
  EXPECT_EQ(q.push(&a), inbox_result::success);
  EXPECT_EQ(q.push(&b), inbox_result::success);
  EXPECT_EQ(q.push(&c), inbox_result::success);
  EXPECT_FALSE(q.empty());
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.front(), &a);
  EXPECT_EQ(q.front(), &a) << "front does not remove";
  EXPECT_EQ(q.pop(), &a);
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(a.next, nullptr) << "a popped node is unlinked";
  EXPECT_EQ(drain(q), (std::vector<node*>{&b, &c}));
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
}

TEST(fifo_inbox, pushes_after_the_last_node_was_taken_start_a_new_list) {
  inbox q;
  node a, b, c;
  q.push(&a);
  EXPECT_EQ(q.pop(), &a);
  EXPECT_TRUE(q.empty());
  q.push(&b);
  EXPECT_EQ(q.front(), &b);
  q.push(&c) ;
  EXPECT_EQ(drain(q), (std::vector<node*>{&b, &c}));
  EXPECT_TRUE(q.try_block()) << "taking the last node leaves the inbox empty";
}

TEST(fifo_inbox, size_stays_exact_after_the_count_wraps) {
  // The count of pushes has 16 bits: it wraps every 65536 pushes.
  inbox q;
  node x, y;
  for (int i = 0; i < 70'000; ++i) {
    q.push(&x);
    ASSERT_EQ(q.pop(), &x);
  }
  EXPECT_EQ(q.size(), 0u);
  q.push(&x);
  q.push(&y);
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(drain(q), (std::vector<node*>{&x, &y}));
}

TEST(fifo_inbox, a_push_reports_backlog_once_so_many_nodes_wait) {
  inbox q;
  std::vector<node> nodes(3 * fifo_inbox<node>::backlog_threshold);
  std::vector<size_t> backlog_at;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (q.push(&nodes[i]) == inbox_result::backlog)
      backlog_at.push_back(i + 1);
  EXPECT_EQ(backlog_at, (std::vector<size_t>{64, 128, 192}));
  // Taken meanwhile: nothing waits, nothing to report.
  drain(q);
  for (size_t i = 0; i < fifo_inbox<node>::backlog_threshold; ++i) {
    EXPECT_EQ(q.push(&nodes[i]), inbox_result::success);
    q.pop();
  }
}

TEST(fifo_inbox, only_the_first_push_after_blocking_unblocks_the_reader) {
  inbox q;
  ASSERT_TRUE(q.try_block());
  EXPECT_TRUE(q.blocked());
  EXPECT_TRUE(q.empty());
  node a, b;
  EXPECT_EQ(q.push(&a), inbox_result::unblocked_reader);
  EXPECT_FALSE(q.blocked());
  EXPECT_EQ(q.push(&b), inbox_result::success);
  EXPECT_EQ(drain(q), (std::vector<node*>{&a, &b}));
  EXPECT_EQ(b.next, nullptr) << "the blocked tag must not leak into a list";
}

TEST(fifo_inbox, wake_unblocks_a_blocked_reader_once) {
  inbox q;
  EXPECT_FALSE(q.q.wake()) << "not blocked";
  ASSERT_TRUE(q.try_block());
  EXPECT_TRUE(q.q.wake());
  EXPECT_FALSE(q.blocked());
  EXPECT_FALSE(q.q.wake());
  EXPECT_FALSE(q.try_unblock()) << "the waker schedules the reader";
  node a;
  EXPECT_EQ(q.push(&a), inbox_result::success);
}

TEST(fifo_inbox, a_reader_that_blocks_twice_is_a_bug) {
  inbox q;
  ASSERT_TRUE(q.try_block());
#ifdef TROUPE_ENABLE_ASSERTIONS
  // Only a push unblocks a reader, and the pusher then runs it.
  EXPECT_DEATH(q.try_block(), "node_of\\(e\\) != blocked_tag\\(\\)");
#else
  EXPECT_FALSE(q.try_block());
#endif
  EXPECT_TRUE(q.blocked());
}

TEST(fifo_inbox, try_block_fails_while_nodes_are_queued) {
  inbox q;
  node a;
  q.push(&a);
  EXPECT_FALSE(q.try_block());
  EXPECT_FALSE(q.blocked());
  EXPECT_EQ(q.pop(), &a);
  EXPECT_TRUE(q.try_block());
}

TEST(fifo_inbox, pop_on_a_blocked_inbox_returns_nothing_and_stays_blocked) {
  inbox q;
  ASSERT_TRUE(q.try_block());
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_TRUE(q.blocked());
}

TEST(fifo_inbox, try_unblock_reopens_a_blocked_inbox_without_a_push) {
  inbox q;
  EXPECT_FALSE(q.try_unblock()) << "not blocked";
  ASSERT_TRUE(q.try_block());
  EXPECT_TRUE(q.try_unblock());
  EXPECT_FALSE(q.blocked());
  node a;
  EXPECT_EQ(q.push(&a), inbox_result::success);
}

TEST(fifo_inbox, try_unblock_fails_after_a_push_unblocked_the_reader) {
  inbox q;
  ASSERT_TRUE(q.try_block());
  node a;
  ASSERT_EQ(q.push(&a), inbox_result::unblocked_reader);
  EXPECT_FALSE(q.try_unblock());
  EXPECT_EQ(q.pop(), &a);
}

TEST(fifo_inbox, close_returns_the_queued_nodes_and_rejects_later_pushes) {
  inbox q;
  node a, b, c, d;
  q.push(&a);
  q.push(&b);
  q.push(&c);
  EXPECT_EQ(q.front(), &a) << "a node the reader looked at is returned too";
  EXPECT_EQ(to_vector(q.close()), (std::vector<node*>{&a, &b, &c}));
  EXPECT_TRUE(q.closed());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  d.next = &a; // whatever the caller had there stays
  EXPECT_EQ(q.push(&d), inbox_result::queue_closed);
  EXPECT_EQ(d.next, &a) << "a rejected node is left untouched";
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_TRUE(q.closed()) << "pop must not reopen a closed inbox";
  EXPECT_FALSE(q.try_block());
  EXPECT_FALSE(q.try_unblock());
  EXPECT_FALSE(q.q.wake());
  EXPECT_EQ(q.close(), nullptr) << "closing twice returns nothing";
  EXPECT_TRUE(q.closed());
}

TEST(fifo_inbox, a_blocked_inbox_can_be_closed) {
  inbox q;
  ASSERT_TRUE(q.try_block());
  EXPECT_EQ(q.close(), nullptr);
  EXPECT_TRUE(q.closed());
  EXPECT_FALSE(q.blocked());
  node a;
  EXPECT_EQ(q.push(&a), inbox_result::queue_closed);
}

TEST(fifo_inbox, many_producers_deliver_each_node_once_and_in_order_to_a_sleeping_reader) {
  auto nodes = make_nodes();
  inbox q;
  std::binary_semaphore wake{0};
  std::atomic<uint64_t> unblocks{0};
  // The reader stores here how many nodes of each producer it has seen.
  // Producers wait for it now and then, so that the inbox runs dry and the
  // reader really goes to sleep instead of always finding work.
  std::vector<std::atomic<uint32_t>> acked(num_producers);
  auto producers = push_to_sleeping_reader(q, nodes, acked, wake, unblocks);
  std::vector<uint32_t> next_seq(num_producers, 0);
  uint64_t received = 0;
  uint64_t blocks = 0;
  bool in_order = true;
  while (received < uint64_t{num_producers} * pushes_per_producer) {
    auto* x = q.pop();
    if (x == nullptr) {
      if (q.try_block()) {
        ++blocks;
        wake.acquire();
        EXPECT_FALSE(q.blocked());
      }
      continue;
    }
    in_order = in_order && x->seq == next_seq[x->producer];
    next_seq[x->producer] = x->seq + 1;
    EXPECT_EQ(x->fate, unclaimed);
    x->fate = consumed;
    acked[x->producer].store(next_seq[x->producer], std::memory_order_release);
    ++received;
  }
  for (auto& t : producers)
    t.join();
  RecordProperty("blocks", static_cast<int>(blocks));
  EXPECT_TRUE(in_order) << "one producer's nodes arrived out of order";
  EXPECT_EQ(received, uint64_t{num_producers} * pushes_per_producer);
  for (uint32_t p = 0; p < num_producers; ++p)
    EXPECT_EQ(next_seq[p], pushes_per_producer);
  EXPECT_EQ(unblocks.load(), blocks)
    << "every block must be answered by exactly one unblocked_reader";
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(q.blocked());
}

TEST(fifo_inbox, a_reader_never_sees_fewer_nodes_than_it_can_pop) {
  // size() runs on other threads (a bounded mailbox's senders): while
  // producers push and the reader pops, it may be too high, never too low.
  // The count wraps several times; producers keep fewer than 65536 nodes
  // queued, the range in which size() is exact.
  constexpr uint32_t per_producer = 40'000;
  constexpr uint32_t most_ahead = 4'000; // per producer
  auto nodes = make_nodes(per_producer);
  inbox q;
  std::vector<std::atomic<uint32_t>> acked(num_producers);
  std::vector<std::thread> producers;
  for (uint32_t p = 0; p < num_producers; ++p)
    producers.emplace_back([&, p] {
      for (auto& x : nodes[p]) {
        while (x.seq >= acked[p].load(std::memory_order_acquire) + most_ahead)
          std::this_thread::yield();
        q.push(&x);
      }
    });
  std::vector<uint32_t> next_seq(num_producers, 0);
  uint64_t received = 0;
  bool exact = true;
  while (received < uint64_t{num_producers} * per_producer) {
    auto n = q.size();
    // Everything counted before these pops is still there or popped by us.
    uint64_t popped = 0;
    while (popped < n) {
      auto* x = q.pop();
      if (x == nullptr)
        break;
      next_seq[x->producer] = x->seq + 1;
      acked[x->producer].store(next_seq[x->producer], std::memory_order_release);
      ++popped;
    }
    exact = exact && popped == n;
    received += popped;
    if (n == 0)
      std::this_thread::yield();
  }
  for (auto& t : producers)
    t.join();
  EXPECT_TRUE(exact) << "size() counted a node the reader could not pop";
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.close(), nullptr);
}

TEST(fifo_inbox, closing_while_producers_push_loses_no_node) {
  auto nodes = make_nodes();
  inbox q;
  auto producers = push_until_closed(q, nodes);
  // Consume about a third of the nodes, then close while producers still push.
  uint64_t received = 0;
  while (received < uint64_t{num_producers} * pushes_per_producer / 3)
    if (auto* x = q.pop()) {
      EXPECT_EQ(x->fate, unclaimed);
      x->fate = consumed;
      ++received;
    } else {
      std::this_thread::yield();
    }
  uint64_t returned = 0;
  for (auto* x = q.close(); x != nullptr; x = x->next, ++returned) {
    EXPECT_EQ(x->fate, unclaimed);
    x->fate = returned_by_close;
  }
  for (auto& t : producers)
    t.join();
  auto rejects = count_rejected(nodes, "node");
  EXPECT_EQ(received + returned + rejects, uint64_t{num_producers} * pushes_per_producer);
  EXPECT_TRUE(q.closed());
  EXPECT_EQ(q.size(), 0u) << "every counted push was taken or returned by close";
}

TEST(fifo_inbox, the_reader_can_move_to_whichever_thread_unblocked_it) {
  // Like an actor scheduled by its sender: the pusher that gets
  // unblocked_reader drains the inbox itself until it can block again. The
  // reader's plain (non-atomic) state moves between threads, ordered only by
  // try_block and push; ThreadSanitizer checks that hand-off.
  auto nodes = make_nodes();
  inbox q;
  std::vector<uint32_t> next_seq(num_producers, 0);
  uint64_t received = 0;
  bool in_order = true;
  bool draining = false; // touched first and last: the hand-off point
  // Relaxed on purpose: these must not order the reader's state themselves.
  std::atomic<uint64_t> drains{0};
  std::atomic<uint32_t> finished{0};
  auto drain_all = [&] {
    EXPECT_FALSE(draining) << "two threads read the inbox at once";
    draining = true;
    drains.fetch_add(1, std::memory_order_relaxed);
    for (;;) {
      auto* x = q.pop();
      if (x == nullptr) {
        draining = false;
        if (q.try_block())
          return;
        draining = true;
        continue;
      }
      in_order = in_order && x->seq == next_seq[x->producer];
      next_seq[x->producer] = x->seq + 1;
      ++received;
    }
  };
  ASSERT_TRUE(q.try_block());
  std::vector<std::thread> producers;
  for (uint32_t p = 0; p < num_producers; ++p)
    producers.emplace_back([&, p] {
      for (auto& x : nodes[p]) {
        if (q.push(&x) != inbox_result::unblocked_reader)
          continue;
        drain_all();
        // Let another thread take the reader over next time: wait until
        // someone else has drained, unless every other producer is done.
        // Bounded, so a loaded machine that schedules the others late only
        // makes hand-offs rarer instead of stalling the test.
        auto mine = drains.load(std::memory_order_relaxed);
        for (int i = 0; i < 100 && drains.load(std::memory_order_relaxed) == mine
                        && finished.load(std::memory_order_relaxed) < num_producers - 1;
             ++i)
          std::this_thread::yield();
      }
      finished.fetch_add(1, std::memory_order_relaxed);
    });
  for (auto& t : producers)
    t.join();
  RecordProperty("drains", static_cast<int>(drains.load()));
  EXPECT_TRUE(q.blocked()) << "the last drain ends blocked";
  EXPECT_TRUE(in_order);
  EXPECT_EQ(received, uint64_t{num_producers} * pushes_per_producer);
  EXPECT_GE(drains.load(), 1u);
}
