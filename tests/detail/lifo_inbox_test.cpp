#include "troupe/detail/lifo_inbox.hpp"

#include "../support/queue_producers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <semaphore>
#include <thread>
#include <vector>

using troupe::detail::inbox_result;
using troupe::detail::lifo_inbox;

using namespace troupe::test;

namespace {

using node = queue_node;
using inbox = lifo_inbox<node, no_delete>;

std::vector<node*> to_vector(node* x) {
  std::vector<node*> result;
  for (; x != nullptr; x = x->next)
    result.push_back(x);
  return result;
}

} // namespace

TEST(lifo_inbox, a_new_inbox_is_empty_and_neither_blocked_nor_closed) {
  inbox q;
  EXPECT_TRUE(q.empty());
  EXPECT_FALSE(q.blocked());
  EXPECT_FALSE(q.closed());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.take_all(), nullptr);
}

TEST(lifo_inbox, take_all_returns_every_node_newest_first) {
  inbox q;
  node a, b, c;
  EXPECT_EQ(q.push(&a), inbox_result::success);
  EXPECT_EQ(q.push(&b), inbox_result::success);
  EXPECT_EQ(q.push(&c), inbox_result::success);
  EXPECT_FALSE(q.empty());
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(to_vector(q.take_all()), (std::vector<node*>{&c, &b, &a}));
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.take_all(), nullptr);
}

TEST(lifo_inbox, only_the_first_push_after_blocking_unblocks_the_reader) {
  inbox q;
  ASSERT_TRUE(q.try_block());
  EXPECT_TRUE(q.blocked());
  EXPECT_TRUE(q.empty());
  node a, b;
  EXPECT_EQ(q.push(&a), inbox_result::unblocked_reader);
  EXPECT_FALSE(q.blocked());
  EXPECT_EQ(q.push(&b), inbox_result::success);
  auto all = to_vector(q.take_all());
  EXPECT_EQ(all, (std::vector<node*>{&b, &a}));
  EXPECT_EQ(a.next, nullptr) << "the blocked tag must not leak into a list";
}

TEST(lifo_inbox, a_reader_that_blocks_twice_is_a_bug) {
  inbox q;
  ASSERT_TRUE(q.try_block());
#ifdef TROUPE_ENABLE_ASSERTIONS
  // Only a push unblocks a reader, and the pusher then runs it.
  EXPECT_DEATH(q.try_block(), "expected != tag_word\\(blocked_tag\\(\\)\\)");
#else
  EXPECT_FALSE(q.try_block());
#endif
  EXPECT_TRUE(q.blocked());
}

TEST(lifo_inbox, try_block_fails_while_nodes_are_queued) {
  inbox q;
  node a;
  q.push(&a);
  EXPECT_FALSE(q.try_block());
  EXPECT_FALSE(q.blocked());
  EXPECT_EQ(q.take_all(), &a);
  EXPECT_TRUE(q.try_block());
}

TEST(lifo_inbox, take_all_on_a_blocked_inbox_returns_nothing_and_stays_blocked) {
  inbox q;
  ASSERT_TRUE(q.try_block());
  EXPECT_EQ(q.take_all(), nullptr);
  EXPECT_TRUE(q.blocked());
}

TEST(lifo_inbox, try_unblock_reopens_a_blocked_inbox_without_a_push) {
  inbox q;
  EXPECT_FALSE(q.try_unblock()) << "not blocked";
  ASSERT_TRUE(q.try_block());
  EXPECT_TRUE(q.try_unblock());
  EXPECT_FALSE(q.blocked());
  node a;
  EXPECT_EQ(q.push(&a), inbox_result::success);
}

TEST(lifo_inbox, try_unblock_fails_after_a_push_unblocked_the_reader) {
  inbox q;
  ASSERT_TRUE(q.try_block());
  node a;
  ASSERT_EQ(q.push(&a), inbox_result::unblocked_reader);
  EXPECT_FALSE(q.try_unblock());
  EXPECT_EQ(q.take_all(), &a);
}

TEST(lifo_inbox, close_returns_the_queued_nodes_and_rejects_later_pushes) {
  inbox q;
  node a, b, c;
  q.push(&a);
  q.push(&b);
  EXPECT_EQ(to_vector(q.close()), (std::vector<node*>{&b, &a}));
  EXPECT_TRUE(q.closed());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  c.next = &a; // whatever the caller had there stays
  EXPECT_EQ(q.push(&c), inbox_result::queue_closed);
  EXPECT_EQ(c.next, &a) << "a rejected node is left untouched";
  EXPECT_EQ(q.take_all(), nullptr);
  EXPECT_TRUE(q.closed()) << "take_all must not reopen a closed inbox";
  EXPECT_FALSE(q.try_block());
  EXPECT_FALSE(q.try_unblock());
  EXPECT_EQ(q.close(), nullptr) << "closing twice returns nothing";
  EXPECT_TRUE(q.closed());
}

TEST(lifo_inbox, a_blocked_inbox_can_be_closed) {
  inbox q;
  ASSERT_TRUE(q.try_block());
  EXPECT_EQ(q.close(), nullptr);
  EXPECT_TRUE(q.closed());
  EXPECT_FALSE(q.blocked());
  node a;
  EXPECT_EQ(q.push(&a), inbox_result::queue_closed);
}

TEST(lifo_inbox, the_destructor_deletes_queued_nodes_with_the_deleter) {
  int deleted = 0;
  {
    lifo_inbox<node, counting_delete> q{counting_delete{&deleted}};
    q.push(new node);
    q.push(new node);
    q.push(new node);
  }
  EXPECT_EQ(deleted, 3);
  deleted = 0;
  {
    lifo_inbox<node, counting_delete> q{counting_delete{&deleted}};
    q.push(new node);
    q.delete_list(q.close());
    EXPECT_EQ(deleted, 1);
  }
  EXPECT_EQ(deleted, 1) << "a closed inbox holds nothing to delete";
}

TEST(lifo_inbox, the_default_deleter_frees_nodes_left_behind) {
  // Checked by the sanitizers: leaking here fails the ASan run.
  lifo_inbox<node> q;
  q.push(new node);
  q.push(new node);
}

namespace {

/// Reverses a newest-first list into `out`, returns how many nodes it had.
size_t reverse_into(node* x, std::vector<node*>& out) {
  auto first = out.size();
  for (; x != nullptr; x = x->next)
    out.push_back(x);
  std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  return out.size() - first;
}

} // namespace

TEST(lifo_inbox, many_producers_deliver_each_node_once_and_in_order_to_a_sleeping_reader) {
  auto nodes = make_nodes();
  inbox q;
  std::binary_semaphore wake{0};
  std::atomic<uint64_t> unblocks{0};
  // The consumer stores here how many nodes of each producer it has seen.
  // Producers wait for it now and then, so that the inbox runs dry and the
  // consumer really goes to sleep instead of always finding work.
  std::vector<std::atomic<uint32_t>> acked(num_producers);
  auto producers = push_to_sleeping_reader(q, nodes, acked, wake, unblocks);
  // The consumer: takes batches, and when there is nothing sleeps until the
  // producer that unblocked it wakes it.
  std::vector<uint32_t> next_seq(num_producers, 0);
  std::vector<node*> batch;
  uint64_t received = 0;
  uint64_t blocks = 0;
  bool in_order = true;
  while (received < uint64_t{num_producers} * pushes_per_producer) {
    auto* x = q.take_all();
    if (x == nullptr) {
      if (q.try_block()) {
        ++blocks;
        wake.acquire();
        EXPECT_FALSE(q.blocked());
      }
      continue;
    }
    batch.clear();
    auto n = reverse_into(x, batch);
    for (auto* y : batch) {
      in_order = in_order && y->seq == next_seq[y->producer];
      next_seq[y->producer] = y->seq + 1;
      EXPECT_EQ(y->fate, unclaimed);
      y->fate = consumed;
    }
    for (uint32_t p = 0; p < num_producers; ++p)
      acked[p].store(next_seq[p], std::memory_order_release);
    received += n;
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
  EXPECT_EQ(q.take_all(), nullptr);
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(q.blocked());
}

TEST(lifo_inbox, closing_while_producers_push_loses_no_node) {
  auto nodes = make_nodes();
  inbox q;
  auto producers = push_until_closed(q, nodes);
  // Consume about a third of the nodes, then close while producers still push.
  uint64_t received = 0;
  auto take = [&](node* x, int how) {
    uint64_t n = 0;
    for (; x != nullptr; x = x->next, ++n) {
      EXPECT_EQ(x->fate, unclaimed);
      x->fate = how;
    }
    return n;
  };
  while (received < uint64_t{num_producers} * pushes_per_producer / 3)
    if (auto* x = q.take_all()) {
      auto n = take(x, consumed);
        received += n;
    } else {
      std::this_thread::yield();
    }
  auto returned = take(q.close(), returned_by_close);
  for (auto& t : producers)
    t.join();
  auto rejects = count_rejected(nodes, "node");
  EXPECT_EQ(received + returned + rejects, uint64_t{num_producers} * pushes_per_producer);
  EXPECT_TRUE(q.closed());
  EXPECT_EQ(q.size(), 0u) << "every counted push was taken or returned by close";
}

TEST(lifo_inbox, the_reader_can_move_to_whichever_thread_unblocked_it) {
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
  auto drain = [&] {
    EXPECT_FALSE(draining) << "two threads read the inbox at once";
    draining = true;
    drains.fetch_add(1, std::memory_order_relaxed);
    for (;;) {
      auto* x = q.take_all();
      if (x == nullptr) {
        draining = false;
        if (q.try_block())
          return;
        draining = true;
        continue;
      }
      std::vector<node*> batch;
      auto n = reverse_into(x, batch);
        for (auto* y : batch) {
        in_order = in_order && y->seq == next_seq[y->producer];
        next_seq[y->producer] = y->seq + 1;
      }
      received += n;
    }
  };
  ASSERT_TRUE(q.try_block());
  std::vector<std::thread> producers;
  for (uint32_t p = 0; p < num_producers; ++p)
    producers.emplace_back([&, p] {
      for (auto& x : nodes[p]) {
        if (q.push(&x) != inbox_result::unblocked_reader)
          continue;
        drain();
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
