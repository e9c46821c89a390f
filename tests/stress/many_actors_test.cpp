// Thousands of actors send messages to each other at random; every message
// carries (sender, sequence number), every receiver logs what it got in
// arrival order, and the test checks the logs: each message arrived exactly
// once, at the receiver it was sent to, and the messages of one sender to
// one receiver arrived in the order they were sent.

#include "stress_support.hpp"

#include "troupe/all.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(many_actors_test, 3000)
  TROUPE_ADD_ATOM(many_actors_test, fanout_start_atom)
  TROUPE_ADD_ATOM(many_actors_test, fanout_burst_atom)
  TROUPE_ADD_ATOM(many_actors_test, tree_report_atom)
TROUPE_END_TYPE_ID_BLOCK(many_actors_test)

using namespace troupe;
using stress::scaled;

namespace {

constexpr uint64_t splitmix64(uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// The receiver of message `seq` of `sender`: a random peer other than the
/// sender, but one the test can recompute.
uint32_t destination(uint32_t peers, uint32_t sender, uint32_t seq) noexcept {
  auto r = static_cast<uint32_t>(splitmix64((uint64_t{sender} << 32) | seq) % (peers - 1));
  return r >= sender ? r + 1 : r;
}

constexpr uint64_t entry(uint32_t sender, uint32_t seq) noexcept {
  return (uint64_t{sender} << 32) | seq;
}

struct workload {
  uint32_t peers;
  uint32_t per_peer;
  // A sender sends this many, then sends itself a burst message to send the
  // next ones: senders interleave with receivers instead of filling every
  // mailbox first.
  uint32_t burst = 16;
};

struct peer_state {
  uint32_t index = 0;
  uint32_t next_seq = 0;
  uint32_t expected = 0;
  std::vector<uint64_t> log;
  std::shared_ptr<const std::vector<actor>> peers;
  actor collector;
  workload load;
  bool reported = false;
};

/// Sends its share to random peers, logs what it receives, and once it
/// has sent everything and received all it expects, hands its log to the
/// collector and quits.
behavior peer(stateful_actor<peer_state>* self, uint32_t index, uint32_t expected,
              workload load, std::shared_ptr<const std::vector<actor>> peers,
              actor collector) {
  auto& st = self->state;
  st.index = index;
  st.expected = expected;
  st.log.reserve(expected);
  st.peers = std::move(peers);
  st.collector = std::move(collector);
  st.load = load;
  auto finish_if_done = [self] {
    auto& st = self->state;
    if (st.reported || st.next_seq < st.load.per_peer || st.log.size() < st.expected)
      return;
    st.reported = true;
    self->send(st.collector, st.index, std::move(st.log));
    self->quit();
  };
  auto send_burst = [self, finish_if_done] {
    auto& st = self->state;
    auto end = std::min(st.next_seq + st.load.burst, st.load.per_peer);
    for (; st.next_seq < end; ++st.next_seq)
      self->send((*st.peers)[destination(st.load.peers, st.index, st.next_seq)], st.index,
                 st.next_seq);
    if (st.next_seq < st.load.per_peer)
      self->send(self->self_handle(), fanout_burst_atom_v);
    else
      finish_if_done();
  };
  return {
    [send_burst](fanout_start_atom) { send_burst(); },
    [send_burst](fanout_burst_atom) { send_burst(); },
    [self, finish_if_done](uint32_t sender, uint32_t seq) {
      self->state.log.push_back(entry(sender, seq));
      finish_if_done();
    },
  };
}

struct node_state {
  uint32_t waiting = 0;
  uint64_t nodes = 1;
  uint64_t leaves = 0;
};

/// Spawns `fanout` children (from inside an actor, on a worker thread)
/// unless it is a leaf, adds up what they report, reports the sum of its
/// subtree to `parent` and quits.
behavior tree_node(stateful_actor<node_state>* self, uint32_t depth, uint32_t fanout,
                   actor parent) {
  auto& st = self->state;
  auto report = [self, parent] {
    auto& st = self->state;
    self->send(parent, tree_report_atom_v, st.nodes, st.leaves);
    self->quit();
  };
  if (depth == 0) {
    st.leaves = 1;
    report();
    return {};
  }
  st.waiting = fanout;
  for (uint32_t i = 0; i < fanout; ++i)
    self->system().spawn(tree_node, depth - 1, fanout, self->self_handle());
  return {
    [self, report](tree_report_atom, uint64_t nodes, uint64_t leaves) {
      auto& st = self->state;
      st.nodes += nodes;
      st.leaves += leaves;
      if (--st.waiting == 0)
        report();
    },
  };
}

class many_actors : public troupe::test::policy_test {
protected:
  void SetUp() override {
    sys_ = std::make_unique<actor_system>(cfg_);
  }

  void TearDown() override {
    stress::destroy(sys_, "many actors");
  }

  /// Runs `load`, collects every log and checks it.
  void run(const workload& load) {
    std::vector<uint32_t> expected(load.peers, 0);
    for (uint32_t s = 0; s < load.peers; ++s)
      for (uint32_t k = 0; k < load.per_peer; ++k)
        ++expected[destination(load.peers, s, k)];
    scoped_actor collector{*sys_};
    auto peers = std::make_shared<std::vector<actor>>();
    peers->reserve(load.peers);
    // The actors read `peers` only after their start message, which is sent
    // after the vector is complete.
    for (uint32_t i = 0; i < load.peers; ++i)
      peers->push_back(sys_->spawn(peer, i, expected[i], load,
                                   std::shared_ptr<const std::vector<actor>>{peers},
                                   collector.handle()));
    for (auto& p : *peers)
      collector->send(p, fanout_start_atom_v);
    peers.reset();
    std::vector<std::vector<uint64_t>> logs(load.peers);
    std::vector<int> reports(load.peers, 0);
    bool timed_out = false;
    auto deadline = std::chrono::steady_clock::now() + stress::patience;
    uint32_t received = 0;
    for (; received < load.peers && !timed_out; ++received)
      collector->receive(
        [&](uint32_t index, std::vector<uint64_t>& log) {
          ASSERT_LT(index, load.peers);
          ++reports[index];
          logs[index] = std::move(log);
        },
        after(deadline - std::chrono::steady_clock::now()) >> [&] { timed_out = true; });
    ASSERT_FALSE(timed_out) << "only " << received - 1 << " of " << load.peers
                            << " actors received everything they were sent";
    stress::await_all_done(*sys_, "peers after reporting");
    EXPECT_EQ(sys_->dead_letters(), 0u);
    check(load, logs, reports);
  }

  static void check(const workload& load, const std::vector<std::vector<uint64_t>>& logs,
                    const std::vector<int>& reports) {
    std::vector<uint32_t> per_sender(load.peers, 0);
    // The last sequence number receiver r saw from each sender, reset after
    // each receiver (only the touched entries).
    std::vector<int64_t> last_seq(load.peers, -1);
    std::vector<uint32_t> touched;
    uint64_t total = 0;
    int failures = 0;
    auto fail = [&](const std::string& what) {
      if (++failures <= 10)
        ADD_FAILURE() << what;
    };
    for (uint32_t r = 0; r < load.peers; ++r) {
      if (reports[r] != 1)
        fail("actor " + std::to_string(r) + " reported " + std::to_string(reports[r])
             + " times");
      for (auto e : logs[r]) {
        auto s = static_cast<uint32_t>(e >> 32);
        auto k = static_cast<uint32_t>(e);
        if (s >= load.peers || k >= load.per_peer) {
          fail("actor " + std::to_string(r) + " got a message nobody sent");
          continue;
        }
        if (destination(load.peers, s, k) != r)
          fail("message " + std::to_string(k) + " of " + std::to_string(s)
               + " reached the wrong actor " + std::to_string(r));
        if (last_seq[s] < 0)
          touched.push_back(s);
        else if (static_cast<int64_t>(k) <= last_seq[s])
          fail("actor " + std::to_string(r) + " got message " + std::to_string(k) + " of "
               + std::to_string(s) + " after message " + std::to_string(last_seq[s]));
        last_seq[s] = k;
        ++per_sender[s];
        ++total;
      }
      for (auto s : touched)
        last_seq[s] = -1;
      touched.clear();
    }
    for (uint32_t s = 0; s < load.peers; ++s)
      if (per_sender[s] != load.per_peer)
        fail("the messages of actor " + std::to_string(s) + " arrived "
             + std::to_string(per_sender[s]) + " times in all, expected "
             + std::to_string(load.per_peer));
    EXPECT_EQ(total, uint64_t{load.peers} * load.per_peer);
    EXPECT_EQ(failures, 0);
  }

  stress::config cfg_{GetParam()};
  std::unique_ptr<actor_system> sys_;
};

TEST_P(many_actors, every_message_between_random_peers_arrives_once_and_in_order_per_pair) {
  // Full size: 10,000 actors sending 200 messages each, 2,000,000 in all.
  run(workload{scaled<uint32_t>(10'000, 1'000), 200});
}

TEST_P(many_actors, one_message_per_turn_still_delivers_everything_in_order) {
  // A burst of one: every send is followed by a message to self, so each
  // actor goes back through the scheduler after every message it sends.
  run(workload{scaled<uint32_t>(2'000, 200), scaled<uint32_t>(100, 50), 1});
}

TEST_P(many_actors, a_tree_of_actors_spawned_by_actors_reports_every_node_once) {
  // Actors spawn actors on worker threads while others terminate: the
  // reports and the running-actor count must add up.
  constexpr uint32_t fanout = 4;
  constexpr uint32_t depth = scaled<uint32_t>(8, 6);
  uint64_t expected_leaves = 1;
  uint64_t expected_nodes = 1;
  for (uint32_t d = 0; d < depth; ++d) {
    expected_leaves *= fanout;
    expected_nodes += expected_leaves;
  }
  scoped_actor self{*sys_};
  sys_->spawn(tree_node, depth, fanout, self.handle());
  uint64_t nodes = 0;
  uint64_t leaves = 0;
  bool timed_out = false;
  self->receive(
    [&](tree_report_atom, uint64_t n, uint64_t l) {
      nodes = n;
      leaves = l;
    },
    after(stress::patience) >> [&] { timed_out = true; });
  ASSERT_FALSE(timed_out) << "the root never reported";
  EXPECT_EQ(nodes, expected_nodes);
  EXPECT_EQ(leaves, expected_leaves);
  stress::await_all_done(*sys_, "the tree");
  EXPECT_EQ(sys_->dead_letters(), 0u);
}

TROUPE_TEST_EVERY_POLICY(many_actors);

} // namespace
