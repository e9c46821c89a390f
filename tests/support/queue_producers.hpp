#pragma once

// The nodes and producer threads that the concurrent tests of the intrusive
// mailbox queues (detail/fifo_inbox.hpp, detail/mailbox_queue.hpp) share:
// both queues must deliver every node of every producer exactly once, in
// each producer's order, to a reader that sleeps when the queue is empty, and
// must lose none when closed while producers still push.

#include "troupe/detail/fifo_inbox.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <semaphore>
#include <thread>
#include <vector>

namespace troupe::test {

/// A node the tests own: numbered by producer and sequence.
struct queue_node {
  queue_node* next = nullptr;
  uint32_t producer = 0;
  uint32_t seq = 0;
  /// Taken first by a mailbox_queue.
  bool urgent = false;
  /// Who ended up with the node (concurrent tests): see `fate`.
  int fate = 0;

  bool is_urgent() const noexcept {
    return urgent;
  }
};

enum fate : int { unclaimed, consumed, returned_by_close, rejected };

/// The tests own their nodes in vectors; the queue must not delete them.
struct no_delete {
  void operator()(queue_node*) const noexcept {}
};

/// Deletes with `delete` and counts.
struct counting_delete {
  int* count;
  void operator()(queue_node* x) const noexcept {
    ++*count;
    delete x;
  }
};

inline constexpr uint32_t num_producers = 8;
inline constexpr uint32_t pushes_per_producer = 100'000;
/// How often a producer waits for the reader (see push_to_sleeping_reader).
inline constexpr uint32_t sync_period = 1'000;

using nodes_per_producer = std::vector<std::vector<queue_node>>;

/// `n` nodes for each producer, numbered 0..n-1; with `urgent_every` > 0,
/// node 0 and every `urgent_every`th after it are urgent.
inline nodes_per_producer make_nodes(uint32_t n = pushes_per_producer,
                                     uint32_t urgent_every = 0) {
  nodes_per_producer result(num_producers);
  for (uint32_t p = 0; p < num_producers; ++p) {
    result[p].resize(n);
    for (uint32_t i = 0; i < n; ++i) {
      auto& x = result[p][i];
      x.producer = p;
      x.seq = i;
      x.urgent = urgent_every > 0 && i % urgent_every == 0;
    }
  }
  return result;
}

/// Starts one thread per producer that pushes its nodes in order. The one
/// whose push unblocks the reader counts it in `unblocks` and wakes the
/// reader with `wake`. After every `sync_period` nodes a producer calls
/// `at_sync` and waits until the reader has stored in `acked` that it saw
/// that node: the queue then runs dry now and then, so that the reader
/// really goes to sleep instead of always finding work.
template <class Queue>
std::vector<std::thread>
push_to_sleeping_reader(Queue& q, nodes_per_producer& nodes,
                        std::vector<std::atomic<uint32_t>>& acked, std::binary_semaphore& wake,
                        std::atomic<uint64_t>& unblocks, std::function<void()> at_sync = {}) {
  std::vector<std::thread> producers;
  for (uint32_t p = 0; p < num_producers; ++p)
    producers.emplace_back([&, p, at_sync] {
      for (auto& x : nodes[p]) {
        auto res = q.push(&x);
        ASSERT_NE(res, detail::inbox_result::queue_closed);
        if (res == detail::inbox_result::unblocked_reader) {
          unblocks.fetch_add(1, std::memory_order_relaxed);
          wake.release();
        }
        if (x.seq % sync_period == sync_period - 1) {
          if (at_sync)
            at_sync();
          while (acked[p].load(std::memory_order_acquire) <= x.seq)
            std::this_thread::yield();
        }
      }
    });
  return producers;
}

/// Starts one thread per producer that pushes all its nodes in order; the
/// nodes a closed queue rejects stay the producer's and are marked so.
template <class Queue>
std::vector<std::thread> push_until_closed(Queue& q, nodes_per_producer& nodes) {
  std::vector<std::thread> producers;
  for (uint32_t p = 0; p < num_producers; ++p)
    producers.emplace_back([&, p] {
      for (auto& x : nodes[p])
        if (q.push(&x) == detail::inbox_result::queue_closed)
          x.fate = rejected; // still ours: never published
    });
  return producers;
}

/// Expects that every node was consumed, returned or rejected; returns how
/// many were rejected. `what` names a node in the failure message.
inline uint64_t count_rejected(const nodes_per_producer& nodes, const char* what) {
  uint64_t rejects = 0;
  for (auto& per_producer : nodes)
    for (auto& x : per_producer) {
      EXPECT_NE(x.fate, unclaimed) << what << " " << x.producer << "/" << x.seq << " was lost";
      rejects += x.fate == rejected;
    }
  return rejects;
}

} // namespace troupe::test
