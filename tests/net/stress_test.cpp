// Many actors on two nodes flooding each other across one connection:
// nothing lost, nothing duplicated, each sender's messages to each receiver
// in the order sent.

#include "../support/sanitizers.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/net/middleman.hpp"
#include "troupe/scoped_actor.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace troupe;

namespace {

constexpr uint32_t actors_per_node = 100;
// Both directions together.
constexpr uint64_t total_messages = troupe::test::scaled<uint64_t>(1'000'000, 100'000);
constexpr uint32_t per_pair
  = static_cast<uint32_t>(total_messages / 2 / actors_per_node / actors_per_node);

struct tally {
  std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> out_of_order{0};
};

/// A receiver: checks that each sender's sequence numbers come 0, 1, 2, ...
behavior receiver(event_based_actor*, std::shared_ptr<tally> t) {
  auto next = std::make_shared<std::vector<uint32_t>>(actors_per_node, 0);
  return {[t, next](uint32_t from, uint32_t seq) {
    if (from >= actors_per_node || seq != (*next)[from])
      t->out_of_order.fetch_add(1, std::memory_order_relaxed);
    else
      ++(*next)[from];
    t->received.fetch_add(1, std::memory_order_relaxed);
  }};
}

/// One side: its receivers, and a directory that hands them out.
struct side {
  side() {
    cfg.load<net::middleman>();
    cfg.shutdown.grace_period = 200ms;
    sys = std::make_unique<actor_system>(cfg);
    for (uint32_t i = 0; i < actors_per_node; ++i)
      receivers.push_back(sys->spawn(receiver, counts));
    directory = sys->spawn([rs = receivers](event_based_actor*) {
      return behavior{[rs](get_atom, uint32_t i) { return rs.at(i); }};
    });
  }

  ~side() {
    for (auto& r : receivers)
      anon_send_exit(r, exit_reason::user_shutdown);
    anon_send_exit(directory, exit_reason::user_shutdown);
  }

  /// The other side's receivers, through its directory.
  std::vector<actor> fetch(const actor& remote_directory) {
    scoped_actor self{*sys};
    std::vector<actor> result;
    for (uint32_t i = 0; i < actors_per_node; ++i)
      self->request(remote_directory, 10s, get_atom_v, i)
        .receive([&](const actor& a) { result.push_back(a); },
                 [](const error& err) { FAIL() << to_string(err); });
    return result;
  }

  void flood(const std::vector<actor>& targets) {
    for (uint32_t i = 0; i < actors_per_node; ++i)
      sys->spawn([i, targets](event_based_actor* self) {
        // Interleaved over the receivers, in rounds, so that every pair's
        // messages mix with the others' on the wire.
        for (uint32_t seq = 0; seq < per_pair; ++seq)
          for (auto& t : targets)
            self->send(t, i, seq);
        self->quit();
      });
  }

  actor_system_config cfg;
  std::unique_ptr<actor_system> sys;
  std::shared_ptr<tally> counts = std::make_shared<tally>();
  std::vector<actor> receivers;
  actor directory;
};

} // namespace

TEST(net_stress, a_hundred_actors_per_node_flood_each_other_without_loss_or_reordering) {
  side a;
  side b;
  auto port_a = a.sys->middleman().publish(a.directory, 0);
  auto port_b = b.sys->middleman().publish(b.directory, 0);
  ASSERT_TRUE(port_a && port_b);
  auto dir_b = a.sys->middleman().remote_actor("127.0.0.1", *port_b);
  auto dir_a = b.sys->middleman().remote_actor("127.0.0.1", *port_a);
  ASSERT_TRUE(dir_a && dir_b);
  auto targets_in_b = a.fetch(*dir_b);
  auto targets_in_a = b.fetch(*dir_a);
  ASSERT_EQ(targets_in_b.size(), actors_per_node);
  ASSERT_EQ(targets_in_a.size(), actors_per_node);
  a.flood(targets_in_b);
  b.flood(targets_in_a);
  const uint64_t each = uint64_t{per_pair} * actors_per_node * actors_per_node;
  auto deadline = std::chrono::steady_clock::now() + 100s;
  while ((a.counts->received.load() < each || b.counts->received.load() < each)
         && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  // A duplicate would push a count past `each`: give it the chance.
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(a.counts->received.load(), each);
  EXPECT_EQ(b.counts->received.load(), each);
  EXPECT_EQ(a.counts->out_of_order.load(), 0u);
  EXPECT_EQ(b.counts->out_of_order.load(), 0u);
}
