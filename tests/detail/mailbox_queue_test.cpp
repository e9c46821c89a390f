#include "troupe/detail/mailbox_queue.hpp"

#include "../support/queue_producers.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <semaphore>
#include <thread>
#include <vector>

using troupe::detail::inbox_result;
using troupe::detail::mailbox_queue;
using troupe::detail::node_list;

using namespace troupe::test;

namespace {

using msg = queue_node;
using queue = mailbox_queue<msg, no_delete>;
using list = node_list<msg, no_delete>;

/// Pops until empty and returns the sequence numbers.
std::vector<uint32_t> drain(queue& q) {
  std::vector<uint32_t> result;
  while (auto* x = q.pop())
    result.push_back(x->seq);
  return result;
}

std::vector<uint32_t> seqs(const list& xs) {
  std::vector<uint32_t> result;
  for (auto& x : xs)
    result.push_back(x.seq);
  return result;
}

/// Messages numbered 0..n-1; `urgent` lists the urgent ones.
std::vector<msg> make_msgs(uint32_t n, std::vector<uint32_t> urgent = {}) {
  std::vector<msg> result(n);
  for (uint32_t i = 0; i < n; ++i)
    result[i].seq = i;
  for (auto i : urgent)
    result[i].urgent = true;
  return result;
}

} // namespace

// -- node_list ----------------------------------------------------------------

TEST(node_list, keeps_nodes_in_fifo_order_with_front_and_back_insertion) {
  auto m = make_msgs(4);
  list xs;
  EXPECT_TRUE(xs.empty());
  EXPECT_EQ(xs.pop_front(), nullptr);
  xs.push_back(&m[1]);
  xs.push_back(&m[2]);
  xs.push_front(&m[0]);
  xs.push_back(&m[3]);
  EXPECT_EQ(xs.size(), 4u);
  EXPECT_EQ(xs.front(), &m[0]);
  EXPECT_EQ(xs.back(), &m[3]);
  EXPECT_EQ(seqs(xs), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(xs.pop_front(), &m[0]);
  EXPECT_EQ(xs.pop_front(), &m[1]);
  EXPECT_EQ(xs.pop_front(), &m[2]);
  EXPECT_EQ(xs.pop_front(), &m[3]);
  EXPECT_TRUE(xs.empty());
  EXPECT_EQ(xs.back(), nullptr);
  xs.push_front(&m[2]);
  EXPECT_EQ(xs.back(), &m[2]) << "push_front on an empty list sets the tail";
  xs.push_back(&m[3]);
  EXPECT_EQ(seqs(xs), (std::vector<uint32_t>{2, 3}));
}

TEST(node_list, splicing_moves_every_node_and_empties_the_source) {
  auto m = make_msgs(6);
  list xs, ys, zs;
  xs.push_back(&m[2]);
  xs.push_back(&m[3]);
  ys.push_back(&m[0]);
  ys.push_back(&m[1]);
  xs.splice_front(ys);
  EXPECT_TRUE(ys.empty());
  zs.push_back(&m[4]);
  zs.push_back(&m[5]);
  xs.splice_back(zs);
  EXPECT_TRUE(zs.empty());
  EXPECT_EQ(seqs(xs), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(xs.size(), 6u);
  EXPECT_EQ(xs.back(), &m[5]);
  ys.splice_back(xs);
  EXPECT_EQ(seqs(ys), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(ys.back(), &m[5]) << "splicing into an empty list takes the tail";
  zs.splice_front(ys);
  EXPECT_EQ(zs.back(), &m[5]);
  zs.splice_front(xs);
  EXPECT_EQ(zs.size(), 6u) << "splicing an empty list changes nothing";
}

TEST(node_list, moving_leaves_the_source_empty_and_destruction_deletes_nodes) {
  int deleted = 0;
  {
    node_list<msg, counting_delete> xs{counting_delete{&deleted}};
    xs.push_back(new msg);
    xs.push_back(new msg);
    auto ys = std::move(xs);
    EXPECT_TRUE(xs.empty());
    EXPECT_EQ(ys.size(), 2u);
    node_list<msg, counting_delete> zs{counting_delete{&deleted}};
    zs.push_back(new msg);
    zs = std::move(ys);
    EXPECT_EQ(deleted, 1) << "assignment deletes the target's old nodes";
    EXPECT_EQ(zs.size(), 2u);
    delete zs.pop_front();
  }
  EXPECT_EQ(deleted, 2);
}

// -- mailbox_queue: one thread ------------------------------------------------

TEST(mailbox_queue, a_new_queue_is_empty) {
  queue q;
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.peek(), nullptr);
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_FALSE(q.blocked());
  EXPECT_FALSE(q.closed());
}

TEST(mailbox_queue, messages_of_one_sender_come_out_in_the_order_they_were_pushed) {
  auto m = make_msgs(5);
  queue q;
  for (auto& x : m)
    EXPECT_EQ(q.push(&x), inbox_result::success);
  EXPECT_EQ(q.pop(), &m[0]);
  q.push(&m[0]); // arrives after the others
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{1, 2, 3, 4, 0}));
}

TEST(mailbox_queue, urgent_messages_come_out_before_normal_ones) {
  auto m = make_msgs(5, {1, 3});
  queue q;
  for (auto& x : m)
    q.push(&x);
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{1, 3, 0, 2, 4}));
}

TEST(mailbox_queue, an_urgent_message_overtakes_normal_ones_the_actor_began_to_read) {
  auto m = make_msgs(5, {3});
  queue q;
  q.push(&m[0]);
  q.push(&m[1]);
  q.push(&m[2]);
  EXPECT_EQ(q.pop(), &m[0]);
  q.push(&m[3]); // e.g. an exit message behind a flood
  q.push(&m[4]);
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{3, 1, 2, 4}));
}

TEST(mailbox_queue, an_urgent_message_wakes_a_blocked_actor_once) {
  auto m = make_msgs(3, {0, 1});
  queue q;
  ASSERT_TRUE(q.try_block());
  EXPECT_EQ(q.push(&m[0]), inbox_result::unblocked_reader);
  EXPECT_EQ(q.push(&m[1]), inbox_result::success);
  EXPECT_EQ(q.push(&m[2]), inbox_result::success);
  EXPECT_FALSE(q.try_unblock()) << "the urgent sender schedules the actor";
  EXPECT_FALSE(q.try_block()) << "urgent messages wait";
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_TRUE(q.try_block());
}

TEST(mailbox_queue, peek_returns_the_message_pop_returns_next_without_removing_it) {
  auto m = make_msgs(3, {2});
  queue q;
  for (auto& x : m)
    q.push(&x);
  EXPECT_EQ(q.peek(), &m[2]);
  EXPECT_EQ(q.peek(), &m[2]);
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(q.pop(), &m[2]);
  EXPECT_EQ(q.peek(), &m[0]);
  EXPECT_EQ(q.pop(), &m[0]);
}

TEST(mailbox_queue, try_block_fails_while_any_message_is_cached_or_queued) {
  auto m = make_msgs(3);
  queue q;
  q.push(&m[0]);
  EXPECT_FALSE(q.try_block()) << "a message waits in the inbox";
  q.push(&m[1]);
  EXPECT_EQ(q.pop(), &m[0]);
  EXPECT_FALSE(q.empty());
  EXPECT_FALSE(q.try_block()) << "a message waits in the cache";
  EXPECT_EQ(q.pop(), &m[1]);
  EXPECT_TRUE(q.empty());
  ASSERT_TRUE(q.try_block());
  EXPECT_TRUE(q.blocked());
  EXPECT_EQ(q.push(&m[2]), inbox_result::unblocked_reader);
  EXPECT_FALSE(q.blocked());
  EXPECT_EQ(q.pop(), &m[2]);
}

TEST(mailbox_queue, a_blocked_queue_wakes_only_the_first_sender) {
  auto m = make_msgs(3);
  queue q;
  ASSERT_TRUE(q.try_block());
  EXPECT_EQ(q.push(&m[0]), inbox_result::unblocked_reader);
  EXPECT_EQ(q.push(&m[1]), inbox_result::success);
  EXPECT_EQ(q.push(&m[2]), inbox_result::success);
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(mailbox_queue, try_unblock_reopens_a_blocked_queue_without_a_message) {
  auto m = make_msgs(1);
  queue q;
  ASSERT_TRUE(q.try_block());
  EXPECT_TRUE(q.try_unblock());
  EXPECT_FALSE(q.blocked());
  EXPECT_EQ(q.push(&m[0]), inbox_result::success);
}

TEST(mailbox_queue, prepended_messages_come_first_in_their_old_order) {
  auto m = make_msgs(6);
  queue q;
  for (auto& x : m)
    q.push(&x);
  // The actor skips 0 and 1 (stashes them), then handles 2.
  list stash;
  stash.push_back(q.pop());
  stash.push_back(q.pop());
  EXPECT_EQ(q.pop(), &m[2]);
  EXPECT_EQ(q.size(), 3u);
  q.prepend(std::move(stash));
  EXPECT_TRUE(stash.empty());
  EXPECT_EQ(q.size(), 5u);
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0, 1, 3, 4, 5}));
}

TEST(mailbox_queue, prepended_messages_come_before_messages_still_in_the_inbox) {
  auto m = make_msgs(3);
  queue q;
  q.push(&m[0]);
  list stash;
  stash.push_back(q.pop());
  q.push(&m[1]);
  q.push(&m[2]);
  q.prepend(std::move(stash));
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(mailbox_queue, prepended_urgent_messages_stay_ahead_of_normal_ones) {
  // Stash: 0 (normal), 1 (urgent). Still cached: 2 (urgent), 3 (normal).
  auto m = make_msgs(4, {1, 2});
  queue q;
  for (auto& x : m)
    q.push(&x);
  // The actor pops 1, 2 and 0, puts 2 back and stashes 0 and 1 in their
  // arrival order.
  EXPECT_EQ(q.pop(), &m[1]);
  EXPECT_EQ(q.pop(), &m[2]);
  EXPECT_EQ(q.pop(), &m[0]);
  q.push_front(&m[2]);
  list stash;
  stash.push_back(&m[0]);
  stash.push_back(&m[1]);
  q.prepend(std::move(stash));
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{1, 2, 0, 3}));
}

TEST(mailbox_queue, push_front_puts_one_message_back_first) {
  auto m = make_msgs(3);
  queue q;
  q.push(&m[1]);
  q.push(&m[2]);
  q.push_front(&m[0]);
  EXPECT_EQ(q.size(), 3u);
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0, 1, 2}));
}

TEST(mailbox_queue, hidden_deferred_messages_wait_and_come_back_first_in_arrival_order) {
  auto m = make_msgs(6);
  queue q;
  for (uint32_t i = 0; i < 4; ++i)
    q.push(&m[i]);
  // An awaiting actor pops 0 and 1 and defers them.
  q.hide_deferred(true);
  q.defer(q.pop());
  q.defer(q.pop());
  EXPECT_EQ(q.size(), 2u) << "deferred messages are not counted, like a stash";
  EXPECT_EQ(q.peek(), &m[2]) << "hidden ones are not what comes next";
  q.defer(q.pop());
  q.push(&m[4]);
  EXPECT_EQ(q.pop(), &m[3]);
  EXPECT_EQ(q.pop(), &m[4]);
  EXPECT_EQ(q.pop(), nullptr);
  // The await ends: 0, 1 and 2 come before everything newer.
  q.hide_deferred(false);
  q.push(&m[5]);
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0, 1, 2, 5}));
}

TEST(mailbox_queue, hidden_deferred_messages_let_the_queue_block_and_are_shown_after) {
  auto m = make_msgs(2);
  queue q;
  q.push(&m[0]);
  q.hide_deferred(true);
  q.defer(q.pop());
  EXPECT_TRUE(q.empty()) << "nothing pop() could return";
  EXPECT_EQ(q.size(), 0u);
  EXPECT_TRUE(q.try_block()) << "a hidden message must not keep the actor spinning";
  EXPECT_EQ(q.push(&m[1]), inbox_result::unblocked_reader);
  EXPECT_EQ(q.pop(), &m[1]);
  q.hide_deferred(false);
  EXPECT_FALSE(q.empty());
  EXPECT_FALSE(q.try_block());
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0}));
  EXPECT_EQ(q.size(), 0u);
}

TEST(mailbox_queue, revealed_deferred_messages_come_out_once_more_while_hidden) {
  auto m = make_msgs(4);
  queue q;
  for (auto& x : m)
    q.push(&x);
  q.hide_deferred(true);
  q.defer(q.pop());
  q.defer(q.pop());
  EXPECT_EQ(q.pop(), &m[2]);
  // Another awaited response came: what was deferred is looked at again,
  // before 3, and deferred anew if it still does not match.
  EXPECT_EQ(q.size(), 1u);
  q.reveal_deferred();
  EXPECT_EQ(q.size(), 3u) << "revealed messages wait to be looked at again";
  EXPECT_EQ(q.pop(), &m[0]);
  q.defer(&m[0]);
  EXPECT_EQ(q.pop(), &m[1]);
  EXPECT_EQ(q.pop(), &m[3]);
  EXPECT_EQ(q.pop(), nullptr);
  q.hide_deferred(false);
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0}));
}

TEST(mailbox_queue, prepend_and_push_front_go_ahead_of_what_pop_returns_next) {
  auto m = make_msgs(5);
  queue q;
  for (uint32_t i = 1; i < 5; ++i)
    q.push(&m[i]);
  list taken;
  taken.push_back(q.pop()); // 1
  q.hide_deferred(true);
  q.defer(q.pop()); // 2, hidden
  // Hidden: what goes back comes before the normal cache ...
  q.prepend(std::move(taken));
  EXPECT_EQ(q.pop(), &m[1]);
  q.push_front(&m[1]);
  EXPECT_EQ(q.pop(), &m[1]);
  // ... shown: before the deferred messages.
  q.hide_deferred(false);
  q.push_front(&m[1]);
  q.push_front(&m[0]);
  EXPECT_EQ(q.size(), 5u) << "put back before the deferred one, which counts again";
  EXPECT_EQ(drain(q), (std::vector<uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(q.size(), 0u);
}

TEST(mailbox_queue, close_returns_deferred_messages_in_their_place) {
  auto m = make_msgs(4, {3});
  queue q;
  for (auto& x : m)
    q.push(&x);
  q.hide_deferred(true);
  EXPECT_EQ(q.pop(), &m[3]);
  q.defer(q.pop());
  q.push_front(&m[3]);
  auto rest = q.close();
  EXPECT_EQ(seqs(rest), (std::vector<uint32_t>{3, 0, 1, 2}));
  EXPECT_EQ(q.size(), 0u);
}

TEST(mailbox_queue, size_counts_queued_and_cached_messages) {
  auto m = make_msgs(4);
  queue q;
  for (auto& x : m)
    q.push(&x);
  EXPECT_EQ(q.size(), 4u);
  q.pop();
  EXPECT_EQ(q.size(), 3u);
  q.push_front(&m[0]);
  EXPECT_EQ(q.size(), 4u);
  drain(q);
  EXPECT_EQ(q.size(), 0u);
}

TEST(mailbox_queue, a_sender_that_checks_size_first_never_overfills_a_bound) {
  // A bounded mailbox's sender pushes only while size() is under the bound:
  // size() may count too many, never too few, even while the consumer moves
  // the inbox into its caches. The consumer's own size() is exact.
  constexpr size_t bound = 8;
  constexpr uint32_t total = 200'000;
  auto m = make_msgs(total);
  queue q;
  std::atomic<size_t> most_seen{0};
  std::thread consumer{[&] {
    uint32_t taken = 0;
    size_t most = 0;
    while (taken < total) {
      if (q.pop() == nullptr)
        continue;
      ++taken;
      most = std::max(most, q.size());
    }
    most_seen = most;
  }};
  for (uint32_t i = 0; i < total; ++i) {
    while (q.size() >= bound)
      std::this_thread::yield();
    q.push(&m[i]);
  }
  consumer.join();
  EXPECT_LE(most_seen.load(), bound);
}

TEST(mailbox_queue, close_returns_every_message_in_pop_order_and_rejects_later_ones) {
  auto m = make_msgs(7, {1, 4});
  queue q;
  q.push(&m[0]);
  q.push(&m[1]);
  q.push(&m[2]);
  q.push(&m[3]);
  EXPECT_EQ(q.pop(), &m[1]); // normal inbox: 0 2 3
  q.push(&m[4]);
  q.push(&m[5]); // urgent inbox: 4; normal inbox: 0 2 3 5
  auto rest = q.close();
  EXPECT_EQ(seqs(rest), (std::vector<uint32_t>{4, 0, 2, 3, 5}));
  EXPECT_TRUE(q.closed());
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_EQ(q.peek(), nullptr);
  EXPECT_FALSE(q.try_block());
  EXPECT_EQ(q.push(&m[6]), inbox_result::queue_closed);
  EXPECT_TRUE(q.close().empty());
}

TEST(mailbox_queue, the_destructor_deletes_cached_and_queued_messages) {
  int deleted = 0;
  {
    mailbox_queue<msg, counting_delete> q{counting_delete{&deleted}};
    for (int i = 0; i < 4; ++i)
      q.push(new msg);
    delete q.pop(); // the other three are now cached
    q.push(new msg);
    q.push(new msg);
  }
  EXPECT_EQ(deleted, 5);
}

TEST(mailbox_queue, messages_returned_by_close_are_deleted_with_the_list) {
  int deleted = 0;
  mailbox_queue<msg, counting_delete> q{counting_delete{&deleted}};
  q.push(new msg);
  q.push(new msg);
  q.peek();
  q.push(new msg);
  {
    auto rest = q.close();
    EXPECT_EQ(rest.size(), 3u);
  }
  EXPECT_EQ(deleted, 3);
}

// -- mailbox_queue: many threads ----------------------------------------------

namespace {

constexpr uint64_t total = uint64_t{num_producers} * pushes_per_producer;

/// Every 7th message of a producer is urgent.
nodes_per_producer make_per_producer(uint32_t n = pushes_per_producer) {
  return make_nodes(n, 7);
}

/// Checks that each producer's urgent and normal messages each arrive in
/// order (urgent ones may overtake normal ones).
struct order_check {
  std::vector<int64_t> last_urgent = std::vector<int64_t>(num_producers, -1);
  std::vector<int64_t> last_normal = std::vector<int64_t>(num_producers, -1);
  bool in_order = true;

  void operator()(const msg& x) {
    auto& last = x.urgent ? last_urgent[x.producer] : last_normal[x.producer];
    in_order = in_order && last < int64_t{x.seq};
    last = x.seq;
  }
};

} // namespace

TEST(mailbox_queue, many_senders_deliver_each_message_once_and_in_order_to_a_sleeping_actor) {
  auto msgs = make_per_producer();
  queue q;
  std::binary_semaphore wake{0};
  std::atomic<uint64_t> unblocks{0};
  // How many messages of each producer the consumer has seen; producers wait
  // for it now and then so that the actor really runs dry and sleeps.
  std::vector<std::atomic<uint32_t>> acked(num_producers);
  auto producers = push_to_sleeping_reader(q, msgs, acked, wake, unblocks, [&] {
    EXPECT_LE(q.size(), total); // size() from a sender's thread
  });
  order_check check;
  std::vector<uint32_t> seen(num_producers, 0);
  uint64_t received = 0;
  uint64_t blocks = 0;
  while (received < total) {
    auto* x = q.pop();
    if (x == nullptr) {
      for (uint32_t p = 0; p < num_producers; ++p)
        acked[p].store(seen[p], std::memory_order_release);
      if (q.try_block()) {
        ++blocks;
        wake.acquire();
      }
      continue;
    }
    check(*x);
    EXPECT_EQ(x->fate, unclaimed);
    x->fate = consumed;
    ++seen[x->producer];
    ++received;
  }
  for (uint32_t p = 0; p < num_producers; ++p)
    acked[p].store(seen[p], std::memory_order_release);
  for (auto& t : producers)
    t.join();
  RecordProperty("blocks", static_cast<int>(blocks));
  EXPECT_TRUE(check.in_order);
  EXPECT_EQ(unblocks.load(), blocks);
  for (uint32_t p = 0; p < num_producers; ++p)
    EXPECT_EQ(seen[p], pushes_per_producer);
  EXPECT_EQ(q.pop(), nullptr);
  EXPECT_EQ(q.size(), 0u);
}

TEST(mailbox_queue, the_actor_can_move_to_whichever_thread_unblocked_it) {
  // Each sender that gets unblocked_reader runs the actor itself, like a
  // scheduler would on another worker: the caches (plain memory) move between
  // threads, ordered only by try_block and push. Nearly every message is a
  // hand-off here, hence fewer messages.
  constexpr uint32_t n = pushes_per_producer / 8;
  auto msgs = make_per_producer(n);
  queue q;
  order_check check;
  uint64_t received = 0;
  bool running = false;
  std::atomic<uint64_t> runs{0}; // relaxed: must not order anything itself
  std::atomic<uint32_t> finished{0};
  // Returns the number of this run.
  auto run_actor = [&]() -> uint64_t {
    EXPECT_FALSE(running) << "two threads run the actor at once";
    running = true;
    auto mine = runs.fetch_add(1, std::memory_order_relaxed) + 1;
    for (;;) {
      // Handle at most a few messages, put one back, like a skip handler.
      for (int i = 0; i < 16; ++i) {
        auto* x = q.pop();
        if (x == nullptr)
          break;
        if (i == 15) {
          q.push_front(x);
          break;
        }
        check(*x);
        ++received;
      }
      if (q.peek() != nullptr)
        continue;
      running = false;
      if (q.try_block())
        return mine;
      running = true;
    }
  };
  ASSERT_TRUE(q.try_block());
  std::vector<std::thread> producers;
  for (uint32_t p = 0; p < num_producers; ++p)
    producers.emplace_back([&, p] {
      for (auto& x : msgs[p]) {
        if (q.push(&x) != inbox_result::unblocked_reader)
          continue;
        // Hand the actor to another thread next time, unless all others are
        // done. The wait is for a run after this thread's own: a count read
        // after run_actor returned may already include another thread's run,
        // and two threads waiting for the same later run would wait forever.
        auto mine = run_actor();
        while (runs.load(std::memory_order_relaxed) == mine
               && finished.load(std::memory_order_relaxed) < num_producers - 1)
          std::this_thread::yield();
      }
      finished.fetch_add(1, std::memory_order_relaxed);
    });
  for (auto& t : producers)
    t.join();
  RecordProperty("runs", static_cast<int>(runs.load()));
  EXPECT_TRUE(q.blocked());
  EXPECT_TRUE(check.in_order);
  EXPECT_EQ(received, uint64_t{num_producers} * n);
}

TEST(mailbox_queue, closing_while_senders_push_loses_no_message) {
  auto msgs = make_per_producer();
  queue q;
  auto producers = push_until_closed(q, msgs);
  order_check check;
  uint64_t received = 0;
  while (received < total / 3) {
    if (auto* x = q.pop()) {
      check(*x);
      EXPECT_EQ(x->fate, unclaimed);
      x->fate = consumed;
      ++received;
    } else {
      std::this_thread::yield();
    }
  }
  auto rest = q.close();
  uint64_t returned = 0;
  for (auto& x : rest) {
    check(x);
    EXPECT_EQ(x.fate, unclaimed);
    x.fate = returned_by_close;
    ++returned;
  }
  EXPECT_EQ(returned, rest.size());
  for (auto& t : producers)
    t.join();
  auto rejects = count_rejected(msgs, "message");
  EXPECT_TRUE(check.in_order) << "close() keeps each sender's order";
  EXPECT_EQ(received + returned + rejects, total);
  EXPECT_EQ(q.size(), 0u);
}
