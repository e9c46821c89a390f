// map and div_conq: results, partitioning, empty and one-element inputs,
// exceptions, concurrent requests, and nesting in control patterns, under
// every scheduler policy.

#include "troupe/patterns.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/scoped_actor.hpp"

#include "../support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <memory>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <vector>

using namespace troupe;
using namespace troupe::patterns;

namespace {

using ints = std::vector<int32_t>;
using doubles = std::vector<double>;

class patterns_data : public troupe::test::actor_fixture {};

ints iota(size_t n) {
  ints xs(n);
  std::iota(xs.begin(), xs.end(), 0);
  return xs;
}

ints shuffled(size_t n, unsigned seed) {
  auto xs = iota(n);
  std::shuffle(xs.begin(), xs.end(), std::mt19937{seed});
  return xs;
}

auto squares() {
  return [](slice<ints> s) {
    for (auto& x : s)
      x = x * x;
  };
}

TEST_P(patterns_data, a_static_map_transforms_the_container_it_gets_back) {
  auto p = spawn_pattern(sys, map(squares()));
  auto r = ask<ints>(p, iota(1000));
  ASSERT_TRUE(r) << to_string(r.error());
  for (int32_t i = 0; i < 1000; ++i)
    ASSERT_EQ((*r)[i], i * i);
}

TEST_P(patterns_data, a_static_map_splits_into_one_slice_per_job) {
  std::atomic<size_t> calls{0};
  std::atomic<size_t> covered{0};
  auto p = spawn_pattern(sys, map([&](slice<ints> s) {
                                ++calls;
                                covered += s.size();
                              }).workers(3));
  ASSERT_TRUE(ask<ints>(p, iota(100)));
  EXPECT_EQ(calls.load(), 3u);
  EXPECT_EQ(covered.load(), 100u);
}

TEST_P(patterns_data, a_dynamic_map_hands_out_chunks_and_clamps_the_last) {
  std::atomic<size_t> calls{0};
  std::atomic<size_t> smallest{1000};
  auto p = spawn_pattern(sys, map(
                                [&](slice<ints> s) {
                                  ++calls;
                                  auto n = s.size();
                                  auto cur = smallest.load();
                                  while (n < cur && !smallest.compare_exchange_weak(cur, n)) {}
                                  for (auto& x : s)
                                    x += 1;
                                },
                                dynamic_partitioning{7}));
  auto r = ask<ints>(p, iota(100));
  ASSERT_TRUE(r);
  EXPECT_EQ(calls.load(), 15u); // 14 chunks of 7, then 2
  EXPECT_EQ(smallest.load(), 2u);
  for (int32_t i = 0; i < 100; ++i)
    ASSERT_EQ((*r)[i], i + 1);
}

TEST_P(patterns_data, a_map_of_an_empty_or_one_element_container_answers) {
  auto p = spawn_pattern(sys, map(squares(), dynamic_partitioning{4}));
  EXPECT_EQ(ask<ints>(p, ints{}), ints{});
  EXPECT_EQ(ask<ints>(p, ints{9}), ints{81});
  auto q = spawn_pattern(sys, map(squares()));
  EXPECT_EQ(ask<ints>(q, ints{}), ints{});
  EXPECT_EQ(ask<ints>(q, ints{3}), ints{9});
}

TEST_P(patterns_data, an_exception_in_a_map_fails_that_request_only) {
  auto p = spawn_pattern(sys, map(
                                [](slice<ints> s) {
                                  for (auto x : s)
                                    if (x < 0)
                                      throw std::domain_error("negative");
                                },
                                dynamic_partitioning{3}));
  auto bad = ask<ints>(p, ints{1, 2, -3, 4});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), errc::unhandled_exception);
  EXPECT_NE(bad.error().context().find("negative"), std::string::npos);
  EXPECT_EQ(ask<ints>(p, ints{1, 2}), (ints{1, 2}));
}

TEST_P(patterns_data, concurrent_requests_into_one_map_each_get_their_own_container) {
  auto p = spawn_pattern(sys, map(squares(), dynamic_partitioning{5}));
  int32_t n = 200;
  // A client with all n requests in flight at once; it reports the count of
  // correct answers.
  sys.spawn([p, n, this](event_based_actor* client) {
    auto good = std::make_shared<int32_t>(0);
    auto left = std::make_shared<int32_t>(n);
    for (int32_t i = 0; i < n; ++i)
      client->request(p, troupe::test::patience, ints(50, i))
        .then(
          [=, r = reporter](ints& xs) {
            *good += xs == ints(50, i * i);
            if (--*left == 0)
              client->send(r, *good);
          },
          [=, r = reporter](error&) {
            if (--*left == 0)
              client->send(r, *good);
          });
    return behavior{};
  });
  EXPECT_EQ(next<int32_t>(), n);
}

/// Quicksort as in the applications study: partition in two around the
/// median of three, sort below the cutoff.
auto quicksort(size_t cutoff) {
  return div_conq(
    [](slice<ints> s) {
      auto first = s.begin();
      auto last = s.end();
      auto mid = first + (last - first) / 2;
      auto pivot = std::max(std::min(*first, *mid), std::min(std::max(*first, *mid), *(last - 1)));
      auto m1 = std::partition(first, last, [&](int32_t x) { return x < pivot; });
      auto m2 = std::partition(m1, last, [&](int32_t x) { return !(pivot < x); });
      return std::array<slice<ints>, 2>{s.sub(0, m1 - first), s.sub(m2 - first, s.size())};
    },
    [](slice<ints>&, std::span<slice<ints>>) {},
    [](slice<ints> s) { std::sort(s.begin(), s.end()); },
    [cutoff](const slice<ints>& s) { return s.size() <= cutoff; });
}

TEST_P(patterns_data, div_conq_sorts_in_place) {
  auto p = spawn_pattern(sys, quicksort(64));
  auto r = ask<ints>(p, shuffled(20'000, 1));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, iota(20'000));
}

TEST_P(patterns_data, div_conq_of_empty_one_element_and_below_cutoff_inputs) {
  auto p = spawn_pattern(sys, quicksort(64));
  EXPECT_EQ(ask<ints>(p, ints{}), ints{});
  EXPECT_EQ(ask<ints>(p, ints{5}), ints{5});
  EXPECT_EQ(ask<ints>(p, ints{3, 1, 2}), (ints{1, 2, 3}));
}

TEST_P(patterns_data, div_conq_combines_each_node_after_its_parts) {
  // Merge sort: divide in halves, combine merges the sorted halves.
  auto p = spawn_pattern(sys, div_conq(
                                [](slice<ints> s) {
                                  auto h = s.size() / 2;
                                  return std::vector<slice<ints>>{s.sub(0, h), s.sub(h, s.size())};
                                },
                                [](slice<ints>& s, std::span<slice<ints>> parts) {
                                  ASSERT_EQ(parts.size(), 2u);
                                  std::inplace_merge(s.begin(), parts[1].begin(), s.end());
                                },
                                [](slice<ints> s) { std::sort(s.begin(), s.end()); },
                                [](const slice<ints>& s) { return s.size() <= 16; }));
  auto r = ask<ints>(p, shuffled(5'000, 2));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, iota(5'000));
}

TEST_P(patterns_data, div_conq_over_a_problem_type_of_the_users) {
  // Sum of 1..n by halving an interval [lo, hi): the problem is a plain value.
  struct interval {
    int64_t lo;
    int64_t hi;
  };
  // Not a message type: wrapped in a container that is, a vector of
  // {lo, hi, sum} triples, one per request.
  auto p = spawn_pattern(sys, div_conq(
                                [](slice<std::vector<int64_t>> s) {
                                  auto h = s.size() / 2;
                                  return std::array<slice<std::vector<int64_t>>, 2>{
                                    s.sub(0, h), s.sub(h, s.size())};
                                },
                                [](slice<std::vector<int64_t>>& s,
                                   std::span<slice<std::vector<int64_t>>> parts) {
                                  // The node's first element becomes the sum of its parts.
                                  s[0] = parts[0][0] + parts[1][0];
                                },
                                [](slice<std::vector<int64_t>> s) {
                                  int64_t sum = 0;
                                  for (auto x : s)
                                    sum += x;
                                  s[0] = sum;
                                },
                                [](const slice<std::vector<int64_t>>& s) { return s.size() <= 10; }));
  std::vector<int64_t> xs(1000);
  std::iota(xs.begin(), xs.end(), 1);
  auto r = ask<std::vector<int64_t>>(p, xs);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)[0], 1000 * 1001 / 2);
  static_cast<void>(interval{});
}

TEST_P(patterns_data, an_exception_in_div_conq_fails_that_request_and_the_pattern_goes_on) {
  auto p = spawn_pattern(sys, div_conq(
                                [](slice<ints> s) {
                                  auto h = s.size() / 2;
                                  return std::array<slice<ints>, 2>{s.sub(0, h), s.sub(h, s.size())};
                                },
                                [](slice<ints>&, std::span<slice<ints>>) {},
                                [](slice<ints> s) {
                                  for (auto x : s)
                                    if (x == 666)
                                      throw std::runtime_error("beast");
                                },
                                [](const slice<ints>& s) { return s.size() <= 8; }));
  auto bad = ask<ints>(p, iota(1000));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error(), errc::unhandled_exception);
  EXPECT_NE(bad.error().context().find("beast"), std::string::npos);
  EXPECT_TRUE(ask<ints>(p, iota(500)));
}

TEST_P(patterns_data, data_patterns_nest_in_pipelines_and_farms) {
  // A farm of div_conqs behind a map: every element squared, then sorted.
  auto p = spawn_pattern(sys, pipeline(map(squares(), dynamic_partitioning{100}),
                                       farm(quicksort(32), 2)));
  for (unsigned seed = 0; seed < 8; ++seed) {
    auto in = shuffled(3000, seed);
    auto expected = in;
    for (auto& x : expected)
      x = x * x;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(ask<ints>(p, in), expected);
  }
}

TROUPE_TEST_EVERY_POLICY(patterns_data);

} // namespace
