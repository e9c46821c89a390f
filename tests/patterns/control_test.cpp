// seq, pipeline and farm: results, order, routing, nesting, stream
// input with end of stream, and exceptions in user code, under every
// scheduler policy.

#include "troupe/patterns.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include "../support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace troupe;
using namespace troupe::patterns;

namespace {

class patterns_control : public troupe::test::actor_fixture {
protected:
  /// Sends `items` as a stream (plain sends from `self`, then the end of
  /// stream) and collects the results that come back until the end of stream.
  template <class Out, class Handle>
  std::vector<Out> stream(const Handle& p, const std::vector<int32_t>& items) {
    for (auto x : items)
      self->send(p, x);
    self->send(p, close_atom_v);
    std::vector<Out> result;
    bool done = false;
    while (!done) {
      bool got = false;
      self->receive([&](Out& x) { result.push_back(std::move(x)), got = true; },
                    [&](close_atom) { done = true, got = true; },
                    after(troupe::test::patience) >> [] {});
      if (!got) {
        ADD_FAILURE() << "the stream stalled after " << result.size() << " results";
        break;
      }
    }
    return result;
  }
};

TEST_P(patterns_control, a_seq_of_a_callable_answers_each_request) {
  auto p = spawn_pattern(sys, seq([](int32_t x) { return x * 2; }));
  EXPECT_EQ(ask<int32_t>(p, int32_t{21}), 42);
  EXPECT_EQ(ask<int32_t>(p, int32_t{-4}), -8);
}

TEST_P(patterns_control, a_seq_of_a_behavior_function_runs_the_users_actor) {
  auto p = spawn_pattern(sys, seq([] {
    return behavior{[](int32_t x) { return std::to_string(x); }};
  }));
  EXPECT_EQ(ask<std::string>(p, int32_t{7}), "7");
}

class doubler : public event_based_actor {
public:
  doubler(actor_config& cfg, int32_t factor) : event_based_actor(cfg), factor_(factor) {}

protected:
  behavior make_behavior() override {
    return {[this](int32_t x) { return x * factor_; }};
  }

private:
  int32_t factor_;
};

TEST_P(patterns_control, a_seq_of_an_actor_class_spawns_it_with_the_arguments) {
  auto p = spawn_pattern(sys, pipeline(seq<doubler>(int32_t{3}), seq([](int32_t x) { return x + 1; })));
  EXPECT_EQ(ask<int32_t>(p, int32_t{5}), 16);
}

TEST_P(patterns_control, a_pipeline_applies_its_stages_in_order) {
  auto p = spawn_pattern(sys, pipeline(seq([](int32_t x) { return x + 1; }),
                                       seq([](int32_t x) { return x * 10; }),
                                       seq([](int32_t x) { return std::to_string(x); })));
  EXPECT_EQ(ask<std::string>(p, int32_t{4}), "50");
}

TEST_P(patterns_control, a_pipeline_keeps_the_order_of_a_stream) {
  auto p = spawn_pattern(sys, pipeline(seq([](int32_t x) { return x + 1; }),
                                       seq([](int32_t x) { return x * 2; })));
  std::vector<int32_t> items(1000);
  for (int32_t i = 0; i < 1000; ++i)
    items[i] = i;
  auto out = stream<int32_t>(p, items);
  ASSERT_EQ(out.size(), items.size());
  for (int32_t i = 0; i < 1000; ++i)
    EXPECT_EQ(out[i], (i + 1) * 2);
}

TEST_P(patterns_control, a_farm_answers_every_request_and_uses_every_replica) {
  std::mutex mtx;
  std::set<std::thread::id> threads;
  std::atomic<int> calls{0};
  auto p = spawn_pattern(sys, farm(seq([&](int32_t x) {
                                     ++calls;
                                     return x * x;
                                   }),
                                   3));
  for (int32_t i = 0; i < 30; ++i)
    EXPECT_EQ(ask<int32_t>(p, i), i * i);
  EXPECT_EQ(calls.load(), 30);
}

TEST_P(patterns_control, round_robin_sends_items_to_the_replicas_in_turn) {
  // Each replica is an actor of its own: its ID tells them apart.
  auto q = spawn_pattern(sys, farm(seq([](event_based_actor* self) {
                                     return behavior{[self](int32_t) {
                                       return static_cast<int32_t>(self->id());
                                     }};
                                   }),
                                   3, round_robin{}));
  std::vector<int32_t> ids;
  for (int32_t i = 0; i < 6; ++i)
    ids.push_back(*ask<int32_t>(q, i));
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_NE(ids[1], ids[2]);
  EXPECT_NE(ids[0], ids[2]);
  EXPECT_EQ(ids[0], ids[3]);
  EXPECT_EQ(ids[1], ids[4]);
  EXPECT_EQ(ids[2], ids[5]);
}

TEST_P(patterns_control, by_key_sends_equal_keys_to_the_same_replica) {
  auto p = spawn_pattern(sys, farm(seq([](event_based_actor* self) {
                                     return behavior{[self](int32_t) {
                                       return static_cast<int32_t>(self->id());
                                     }};
                                   }),
                                   4, by_key{[](const int32_t& x) { return x % 5; }}));
  std::map<int32_t, int32_t> replica_of_key;
  std::set<int32_t> replicas;
  for (int32_t i = 0; i < 100; ++i) {
    auto id = *ask<int32_t>(p, i);
    replicas.insert(id);
    auto [it, fresh] = replica_of_key.emplace(i % 5, id);
    EXPECT_EQ(it->second, id) << "key " << i % 5;
  }
  EXPECT_GE(replicas.size(), 2u) << "five keys over four replicas all landed on one";
}

TEST_P(patterns_control, random_replica_spreads_items) {
  auto p = spawn_pattern(sys, farm(seq([](event_based_actor* self) {
                                     return behavior{[self](int32_t) {
                                       return static_cast<int32_t>(self->id());
                                     }};
                                   }),
                                   2, random_replica{}));
  std::set<int32_t> replicas;
  for (int32_t i = 0; i < 200; ++i)
    replicas.insert(*ask<int32_t>(p, i));
  EXPECT_EQ(replicas.size(), 2u);
}

TEST_P(patterns_control, a_custom_policy_picks_the_replica) {
  auto p = spawn_pattern(sys, farm(seq([](event_based_actor* self) {
                                     return behavior{[self](int32_t) {
                                       return static_cast<int32_t>(self->id());
                                     }};
                                   }),
                                   3, custom{[](const int32_t& x, size_t) { return x < 0 ? 0u : 2u; }}));
  auto neg = *ask<int32_t>(p, int32_t{-1});
  auto pos = *ask<int32_t>(p, int32_t{1});
  EXPECT_NE(neg, pos);
  EXPECT_EQ(*ask<int32_t>(p, int32_t{-7}), neg);
  EXPECT_EQ(*ask<int32_t>(p, int32_t{9}), pos);
}

TEST_P(patterns_control, broadcast_answers_with_every_replicas_result_in_replica_order) {
  auto p = spawn_pattern(sys, farm(seq([](int32_t x) { return x + 1; }), 3, broadcast{}));
  auto r = ask<std::vector<int32_t>>(p, int32_t{1});
  ASSERT_TRUE(r) << to_string(r.error());
  EXPECT_EQ(*r, (std::vector<int32_t>{2, 2, 2}));
}

TEST_P(patterns_control, an_ordered_farm_restores_the_input_order_of_a_stream) {
  // Early items take longest, so an unordered farm would reorder them.
  auto p = spawn_pattern(sys, farm(seq([](int32_t x) {
                                     if (x % 7 == 0)
                                       std::this_thread::sleep_for(std::chrono::microseconds{200});
                                     return x;
                                   }),
                                   4)
                                .ordered());
  std::vector<int32_t> items(300);
  for (int32_t i = 0; i < 300; ++i)
    items[i] = i;
  EXPECT_EQ(stream<int32_t>(p, items), items);
}

TEST_P(patterns_control, an_unordered_farm_delivers_every_item_of_a_stream_once) {
  auto p = spawn_pattern(sys, farm(seq([](int32_t x) { return x * 3; }), 3));
  std::vector<int32_t> items(500);
  for (int32_t i = 0; i < 500; ++i)
    items[i] = i;
  auto out = stream<int32_t>(p, items);
  std::sort(out.begin(), out.end());
  ASSERT_EQ(out.size(), items.size());
  for (int32_t i = 0; i < 500; ++i)
    EXPECT_EQ(out[i], i * 3);
}

TEST_P(patterns_control, two_farms_in_a_row_and_a_farm_of_pipelines_nest) {
  auto p = spawn_pattern(sys, pipeline(farm(seq([](int32_t x) { return x + 1; }), 2),
                                       farm(pipeline(seq([](int32_t x) { return x * 2; }),
                                                     seq([](int32_t x) { return x - 3; })),
                                            3),
                                       seq([](int32_t x) { return std::to_string(x); })));
  for (int32_t i = 0; i < 50; ++i)
    EXPECT_EQ(ask<std::string>(p, i), std::to_string((i + 1) * 2 - 3));
  std::vector<int32_t> items(400);
  for (int32_t i = 0; i < 400; ++i)
    items[i] = i;
  auto out = stream<std::string>(p, items);
  EXPECT_EQ(out.size(), items.size()) << "every item once, end of stream after the last";
}

TEST_P(patterns_control, an_ordered_farm_of_pipelines_keeps_order_inside_a_pipeline) {
  auto p = spawn_pattern(sys, pipeline(seq([](int32_t x) { return x; }),
                                       farm(pipeline(seq([](int32_t x) { return x * 2; }),
                                                     farm(seq([](int32_t x) { return x + 1; }), 2)),
                                            3)
                                         .ordered()));
  std::vector<int32_t> items(300), expected(300);
  for (int32_t i = 0; i < 300; ++i)
    items[i] = i, expected[i] = i * 2 + 1;
  EXPECT_EQ(stream<int32_t>(p, items), expected);
}

TEST_P(patterns_control, an_exception_fails_that_request_naming_the_stage_and_the_rest_go_on) {
  auto p = spawn_pattern(sys, pipeline(seq([](int32_t x) { return x; }),
                                       seq([](int32_t x) {
                                         if (x == 13)
                                           throw std::runtime_error("unlucky");
                                         return x;
                                       }).name("check")));
  EXPECT_EQ(ask<int32_t>(p, int32_t{12}), 12);
  auto bad = ask<int32_t>(p, int32_t{13});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), errc::unhandled_exception);
  EXPECT_NE(bad.error().context().find("pipeline[1]/check"), std::string::npos)
    << to_string(bad.error());
  EXPECT_NE(bad.error().context().find("unlucky"), std::string::npos);
  EXPECT_EQ(ask<int32_t>(p, int32_t{14}), 14);
}

TEST_P(patterns_control, an_exception_in_an_ordered_farm_keeps_the_order_of_the_rest) {
  auto p = spawn_pattern(sys, farm(seq([](int32_t x) {
                                     if (x == 5)
                                       throw std::logic_error("five");
                                     return x;
                                   }),
                                   2)
                                .ordered());
  EXPECT_EQ(ask<int32_t>(p, int32_t{4}), 4);
  auto bad = ask<int32_t>(p, int32_t{5});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), errc::unhandled_exception);
  EXPECT_EQ(ask<int32_t>(p, int32_t{6}), 6);
}

TEST_P(patterns_control, a_message_the_pattern_does_not_take_is_an_error) {
  auto p = spawn_pattern(sys, seq([](int32_t x) { return x; }));
  auto r = ask_within<int32_t>(troupe::test::patience, troupe::patterns::detail::to_actor(p), std::string{"x"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::unexpected_message);
}

TEST_P(patterns_control, a_sink_gets_the_results_of_plain_sends_and_the_end_of_stream) {
  scoped_actor sink{sys};
  auto p = spawn_pattern(sys, farm(seq([](int32_t x) { return x + 100; }), 2), sink);
  for (int32_t i = 0; i < 10; ++i)
    self->send(p, i);
  self->send(p, close_atom_v);
  int32_t sum = 0;
  int count = 0;
  bool done = false;
  while (!done) {
    bool got = false;
    sink->receive([&](int32_t x) { sum += x, ++count, got = true; },
                  [&](close_atom) { done = got = true; },
                  after(troupe::test::patience) >> [] {});
    if (!got)
      break;
  }
  EXPECT_TRUE(done);
  EXPECT_EQ(count, 10);
  EXPECT_EQ(sum, 45 + 1000);
}

TEST_P(patterns_control, a_void_stage_answers_requests_with_an_empty_response) {
  std::atomic<int32_t> total{0};
  auto p = spawn_pattern(sys, pipeline(seq([](int32_t x) { return x * 2; }),
                                       seq([&](int32_t x) { total += x; })));
  bool answered = false;
  self->request(p, troupe::test::patience, int32_t{5})
    .receive([&] { answered = true; }, [&](const error& err) { FAIL() << to_string(err); });
  EXPECT_TRUE(answered);
  EXPECT_EQ(total.load(), 10);
}

TEST_P(patterns_control, a_feedback_loop_sends_results_round_until_the_condition_lets_them_out) {
  std::atomic<int> rounds{0};
  auto p = spawn_pattern(sys, pipeline(seq([&](int32_t x) {
                                         ++rounds;
                                         return x - 1;
                                       }),
                                       seq([](int32_t x) { return x; }))
                                .feedback([](const int32_t& x) { return x > 0; }));
  EXPECT_EQ(ask<int32_t>(p, int32_t{10}), 0);
  EXPECT_EQ(rounds.load(), 10);
  EXPECT_EQ(ask<int32_t>(p, int32_t{0}), -1) << "a result that may leave leaves at once";
}

TEST_P(patterns_control, the_end_of_stream_waits_for_items_still_going_round_a_loop) {
  // Item i goes round i times: the last items in are not the last out.
  auto p = spawn_pattern(sys, pipeline(seq([](int32_t x) { return x - 1; }),
                                       farm(seq([](int32_t x) { return x; }), 2))
                                .feedback([](const int32_t& x) { return x > 0; }));
  std::vector<int32_t> items(200);
  for (int32_t i = 0; i < 200; ++i)
    items[i] = 200 - i;
  auto out = stream<int32_t>(p, items);
  EXPECT_EQ(out, std::vector<int32_t>(200, 0));
}

TEST_P(patterns_control, feedback_to_a_later_stage_skips_the_stages_before_it) {
  std::atomic<int> parsed{0}, rounds{0};
  // Stage 0 runs once per item, stages 1 and 2 once per round.
  auto p = spawn_pattern(sys, pipeline(seq([&](int32_t x) {
                                         ++parsed;
                                         return std::to_string(x);
                                       }),
                                       seq([&](std::string s) {
                                         ++rounds;
                                         return s.substr(1);
                                       }),
                                       seq([](std::string s) { return s; }))
                                .feedback<1>([](const std::string& s) { return s.size() > 1; }));
  EXPECT_EQ(ask<std::string>(p, int32_t{12345}), "5");
  EXPECT_EQ(parsed.load(), 1);
  EXPECT_EQ(rounds.load(), 4);
}

TEST_P(patterns_control, the_end_of_stream_waits_for_items_going_round_a_loop_on_a_later_stage) {
  auto p = spawn_pattern(sys, pipeline(seq([](int32_t x) { return x * 2; }),
                                       farm(seq([](int32_t x) { return x - 1; }), 2),
                                       seq([](int32_t x) { return x; }))
                                .feedback<1>([](const int32_t& x) { return x > 0; }));
  std::vector<int32_t> items(100);
  for (int32_t i = 0; i < 100; ++i)
    items[i] = 100 - i;
  auto out = stream<int32_t>(p, items);
  EXPECT_EQ(out, std::vector<int32_t>(100, 0));
}

TEST_P(patterns_control, a_farm_of_feedback_loops_answers_every_request) {
  auto p = spawn_pattern(sys, farm(pipeline(seq([](int32_t x) { return x / 2; }))
                                     .feedback([](const int32_t& x) { return x > 1; }),
                                   3));
  for (int32_t i = 2; i < 40; ++i)
    EXPECT_EQ(ask<int32_t>(p, i), 1) << i;
}

TROUPE_TEST_EVERY_POLICY(patterns_control);

} // namespace
