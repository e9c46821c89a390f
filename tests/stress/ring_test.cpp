// A ring of actors passes tokens around: every hop is a send to a mailbox
// that is usually empty, so each one goes through the blocked -> scheduled
// transition, the path most prone to lost wake-ups. The tests count every
// hop at every member exactly.

#include "stress_support.hpp"

#include "troupe/all.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(ring_test, 3050)
  TROUPE_ADD_ATOM(ring_test, ring_token_atom)
  TROUPE_ADD_ATOM(ring_test, ring_done_atom)
  TROUPE_ADD_ATOM(ring_test, ring_count_atom)
TROUPE_END_TYPE_ID_BLOCK(ring_test)

using namespace troupe;
using stress::scaled;

namespace {

constexpr uint32_t ring_size = 1'000;
constexpr uint64_t total_hops = scaled<uint64_t>(1'000'000, 100'000);

struct member_state {
  actor next;
  // Tokens this member received, from its predecessor or injected.
  uint64_t received = 0;
};

/// Forwards each token to `next` until the token has no hops left, then
/// tells `reporter` where the token stopped.
behavior ring_member(stateful_actor<member_state>* self, uint32_t index, actor reporter) {
  return {
    [self](const actor& next) { self->state.next = next; },
    [self, index, reporter](ring_token_atom, uint32_t token, uint64_t hops_left) {
      ++self->state.received;
      if (hops_left == 0)
        self->send(reporter, ring_done_atom_v, token, index);
      else
        self->send(self->state.next, ring_token_atom_v, token, hops_left - 1);
    },
    [self](ring_count_atom) { return self->state.received; },
  };
}

class ring : public troupe::test::policy_test {
protected:
  void SetUp() override {
    sys_ = std::make_unique<actor_system>(cfg_);
    self_ = std::make_unique<scoped_actor>(*sys_);
    for (uint32_t i = 0; i < ring_size; ++i)
      members_.push_back(sys_->spawn(ring_member, i, self_->handle()));
    for (uint32_t i = 0; i < ring_size; ++i)
      (*self_)->send(members_[i], members_[(i + 1) % ring_size]);
  }

  void TearDown() override {
    for (auto& m : members_)
      anon_send_exit(m, exit_reason::user_shutdown);
    members_.clear();
    stress::await_all_done(*sys_, "ring members after user_shutdown");
    EXPECT_EQ(sys_->dead_letters(), 0u);
    self_.reset();
    stress::destroy(sys_, "ring");
  }

  /// Sends `tokens` tokens on their way: token t starts at member
  /// starts[t] with hops[t] hops. Waits for every token's done report and
  /// checks it came from the member the token must end at, then checks each
  /// member's count of received tokens.
  void run(const std::vector<uint32_t>& starts, const std::vector<uint64_t>& hops) {
    auto tokens = static_cast<uint32_t>(starts.size());
    std::vector<uint64_t> expected_counts(ring_size, 0);
    std::vector<uint32_t> expected_end(tokens);
    for (uint32_t t = 0; t < tokens; ++t) {
      // A token with h hops visits h + 1 members, wrapping around.
      uint64_t visits = hops[t] + 1;
      for (uint32_t m = 0; m < ring_size; ++m)
        expected_counts[(starts[t] + m) % ring_size] += visits / ring_size;
      for (uint64_t m = 0; m < visits % ring_size; ++m)
        ++expected_counts[(starts[t] + m) % ring_size];
      expected_end[t] = static_cast<uint32_t>((starts[t] + hops[t]) % ring_size);
    }
    for (uint32_t t = 0; t < tokens; ++t)
      (*self_)->send(members_[starts[t]], ring_token_atom_v, t, hops[t]);
    std::map<uint32_t, uint32_t> ended_at;
    std::map<uint32_t, int> reports;
    bool timed_out = false;
    for (uint32_t i = 0; i < tokens && !timed_out; ++i)
      (*self_)->receive(
        [&](ring_done_atom, uint32_t token, uint32_t index) {
          ++reports[token];
          ended_at[token] = index;
        },
        after(stress::patience) >> [&] { timed_out = true; });
    ASSERT_FALSE(timed_out) << "only " << reports.size() << " of " << tokens
                            << " tokens finished";
    for (uint32_t t = 0; t < tokens; ++t) {
      EXPECT_EQ(reports[t], 1) << "token " << t;
      EXPECT_EQ(ended_at[t], expected_end[t]) << "token " << t;
    }
    uint64_t total = 0;
    uint32_t wrong = 0;
    for (uint32_t i = 0; i < ring_size; ++i) {
      uint64_t count = 0;
      bool failed = false;
      (*self_)->request(members_[i], stress::patience, ring_count_atom_v)
        .receive([&](uint64_t n) { count = n; }, [&](const error&) { failed = true; });
      ASSERT_FALSE(failed) << "member " << i << " did not report its count";
      total += count;
      if (count != expected_counts[i]) {
        ++wrong;
        ADD_FAILURE() << "member " << i << " received " << count << " tokens, expected "
                      << expected_counts[i];
        if (wrong > 10)
          return;
      }
    }
    uint64_t all_hops = 0;
    for (auto h : hops)
      all_hops += h;
    // Every hop lands at one member; each token's injection adds one more.
    EXPECT_EQ(total, all_hops + tokens);
  }

  stress::config cfg_{GetParam()};
  std::unique_ptr<actor_system> sys_;
  std::unique_ptr<scoped_actor> self_;
  std::vector<actor> members_;
};

TEST_P(ring, one_token_makes_every_hop_and_each_member_sees_it_equally_often) {
  run({0}, {total_hops});
}

TEST_P(ring, many_tokens_circling_at_once_each_make_exactly_their_hops) {
  // Tokens start at spread-out members with different hop counts, so
  // several members are busy at once and tokens overtake each other.
  constexpr uint32_t tokens = 50;
  std::vector<uint32_t> starts;
  std::vector<uint64_t> hops;
  uint64_t left = total_hops;
  for (uint32_t t = 0; t < tokens; ++t) {
    starts.push_back((t * 37) % ring_size);
    uint64_t h = t + 1 == tokens ? left : total_hops / tokens - 39 + (t % 7) * 13;
    hops.push_back(h);
    left -= h;
  }
  run(starts, hops);
}

TROUPE_TEST_EVERY_POLICY(ring);

} // namespace
