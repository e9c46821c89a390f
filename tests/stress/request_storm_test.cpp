// Request storms: many requesters send many requests with timeouts to a few
// responders, some answering at once, some later but in time, some just
// about at the timeout, some long after it, and one never. Each request must
// end exactly once, with its value or with request_timeout, whatever
// arrives first; a late answer must not reach a handler that already
// timed out.

#include "stress_support.hpp"

#include "troupe/all.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <string_view>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(request_storm_test, 3100)
  TROUPE_ADD_ATOM(request_storm_test, storm_release_atom)
TROUPE_END_TYPE_ID_BLOCK(request_storm_test)

using namespace troupe;
using namespace std::chrono_literals;
using stress::scaled;

namespace {

// -- responders -------------------------------------------------------------------

enum class kind : uint8_t {
  // Answers at once; requested with a timeout only a hang reaches.
  prompt,
  // Answers after a short delay; requested with a timeout only a hang reaches.
  in_time,
  // Answers after about the request's own timeout: either outcome is fine.
  racy,
  // Answers long after the request timed out.
  late,
  // Never answers.
  never,
};

constexpr int kinds = 5;

constexpr timespan short_timeout = 20ms;

/// The timeout a requester gives a request to a responder of kind `k`.
constexpr timespan timeout_for(kind k) noexcept {
  return k == kind::prompt || k == kind::in_time ? timespan{stress::patience}
                                                 : short_timeout;
}

behavior prompt_responder() {
  return {[](int x) { return x + 1; }};
}

struct delayed_state {
  uint64_t next_id = 0;
  std::unordered_map<uint64_t, std::pair<response_promise, int>> waiting;
};

/// Answers each request `delay` after it arrived, with a response promise
/// and a delayed message to itself; counts its answers in `delivered`.
behavior delayed_responder(stateful_actor<delayed_state>* self, timespan delay,
                           std::atomic<int>* delivered) {
  return {
    [self, delay](int x) {
      auto id = self->state.next_id++;
      auto rp = self->make_response_promise();
      self->state.waiting.emplace(id, std::pair{rp, x});
      self->delayed_send(self->self_handle(), delay, storm_release_atom_v, id);
      return rp;
    },
    [self, delivered](storm_release_atom, uint64_t id) {
      auto i = self->state.waiting.find(id);
      if (i == self->state.waiting.end())
        return;
      i->second.first.deliver(i->second.second + 1);
      self->state.waiting.erase(i);
      if (delivered != nullptr)
        delivered->fetch_add(1);
    },
  };
}

behavior silent_responder() {
  // Takes the request and never answers it (no promise, so no
  // broken_promise error either).
  return {[](int) { return delegated<int>{}; }};
}

// -- requesters -------------------------------------------------------------------

/// Outcomes of one requester's requests, written only by that requester and
/// read by the test once every requester has terminated.
struct outcomes {
  std::vector<uint8_t> values;
  std::vector<uint8_t> timeouts;
  // actor_down or broken_promise: the responder died first.
  std::vector<uint8_t> lost;
  std::vector<uint8_t> other_errors;
  std::vector<uint8_t> wrong_values;

  explicit outcomes(size_t n)
    : values(n), timeouts(n), lost(n), other_errors(n), wrong_values(n) {}

  uint32_t ends(uint32_t j) const noexcept {
    return values[j] + timeouts[j] + lost[j] + other_errors[j];
  }
};

kind kind_of(uint32_t requester, uint32_t request) noexcept {
  return static_cast<kind>((requester + request) % kinds);
}

int payload(uint32_t requester, uint32_t request, uint32_t per_requester) noexcept {
  return static_cast<int>(requester * per_requester + request);
}

/// Callbacks for request `j`: record how it ended.
auto on_value(outcomes* out, uint32_t j, int x) {
  return [out, j, x](int y) {
    ++out->values[j];
    if (y != x + 1)
      ++out->wrong_values[j];
  };
}

auto on_error(outcomes* out, uint32_t j) {
  return [out, j](error& err) {
    if (err == errc::request_timeout)
      ++out->timeouts[j];
    else if (err == errc::actor_down || err == errc::broken_promise)
      ++out->lost[j];
    else
      ++out->other_errors[j];
  };
}

/// Sends all its requests at once, handling responses with `then`; with no
/// behavior of its own it terminates once the last request has ended.
void then_requester(event_based_actor* self, std::vector<actor> responders, uint32_t index,
                    uint32_t per_requester, outcomes* out) {
  for (uint32_t j = 0; j < per_requester; ++j) {
    auto k = kind_of(index, j);
    auto x = payload(index, j, per_requester);
    self->request(responders[static_cast<int>(k)], timeout_for(k), x)
      .then(on_value(out, j, x), on_error(out, j));
  }
}

/// Like then_requester, but with `await`: only the most recent awaited
/// request may complete with a value, earlier responses wait in the stash
/// while timeouts still fire in any order.
void await_requester(event_based_actor* self, std::vector<actor> responders, uint32_t index,
                     uint32_t per_requester, outcomes* out) {
  for (uint32_t j = 0; j < per_requester; ++j) {
    auto k = kind_of(index, j);
    auto x = payload(index, j, per_requester);
    self->request(responders[static_cast<int>(k)], timeout_for(k), x)
      .await(on_value(out, j, x), on_error(out, j));
  }
}

/// One request at a time, waiting for each in `receive`.
void blocking_requester(blocking_actor* self, std::vector<actor> responders, uint32_t index,
                        uint32_t per_requester, outcomes* out) {
  for (uint32_t j = 0; j < per_requester; ++j) {
    auto k = kind_of(index, j);
    auto x = payload(index, j, per_requester);
    self->request(responders[static_cast<int>(k)], timeout_for(k), x)
      .receive(on_value(out, j, x), on_error(out, j));
  }
}

/// Sends requests to `targets` in turn, each with a timeout only a hang
/// reaches, and counts every request that ended in `ended`.
void volatile_requester(event_based_actor* self, std::vector<actor> targets, uint32_t index,
                        uint32_t per_requester, outcomes* out, std::atomic<uint32_t>* ended) {
  for (uint32_t j = 0; j < per_requester; ++j) {
    auto x = payload(index, j, per_requester);
    self->request(targets[(index + j) % targets.size()], stress::patience, x)
      .then(
        [f = on_value(out, j, x), ended](int y) mutable {
          f(y);
          ended->fetch_add(1);
        },
        [f = on_error(out, j), ended](error& err) mutable {
          f(err);
          ended->fetch_add(1);
        });
  }
}

class request_storm : public troupe::test::policy_test {
protected:
  void SetUp() override {
    sys_ = std::make_unique<actor_system>(cfg_);
    responders_.push_back(sys_->spawn(prompt_responder));
    std::atomic<int>* no_count = nullptr;
    responders_.push_back(sys_->spawn(delayed_responder, timespan{1ms}, no_count));
    responders_.push_back(sys_->spawn(delayed_responder, short_timeout, no_count));
    responders_.push_back(sys_->spawn(delayed_responder, 5 * short_timeout, no_count));
    responders_.push_back(sys_->spawn(silent_responder));
  }

  void TearDown() override {
    // Without handles the responders become unreachable once their last
    // delayed answer went out.
    responders_.clear();
    stress::destroy(sys_, "request storm");
  }

  /// Spawns `requesters` requesters with `spawn_one(index, outcomes*)`,
  /// waits until all have terminated and checks every request's outcome.
  /// Event-based requesters always see a late answer's timeout first (the
  /// timer service sends it before the answer even leaves); a blocking
  /// requester takes an answer that is already in its mailbox when it
  /// looks, even after the deadline, so for it `late` may end either way.
  template <class Spawn>
  void run(uint32_t requesters, uint32_t per_requester, bool late_is_timeout,
           Spawn spawn_one) {
    std::vector<std::unique_ptr<outcomes>> results;
    for (uint32_t i = 0; i < requesters; ++i)
      results.push_back(std::make_unique<outcomes>(per_requester));
    for (uint32_t i = 0; i < requesters; ++i)
      spawn_one(i, results[i].get());
    // The responders count as running actors and never finish on their own.
    auto responders = responders_.size();
    ASSERT_TRUE(stress::wait_until([&] { return sys_->running_actors() == responders; }))
      << sys_->running_actors() - responders << " of " << requesters
      << " requesters still wait for responses";
    check(per_requester, results, late_is_timeout);
  }

  static void check(uint32_t per_requester,
                    const std::vector<std::unique_ptr<outcomes>>& results,
                    bool late_is_timeout) {
    uint64_t values = 0;
    uint64_t timeouts = 0;
    uint64_t by_kind_values[kinds] = {};
    uint64_t by_kind_timeouts[kinds] = {};
    int failures = 0;
    for (uint32_t i = 0; i < results.size(); ++i) {
      auto& out = *results[i];
      for (uint32_t j = 0; j < per_requester; ++j) {
        auto k = static_cast<int>(kind_of(i, j));
        values += out.values[j];
        timeouts += out.timeouts[j];
        by_kind_values[k] += out.values[j];
        by_kind_timeouts[k] += out.timeouts[j];
        if ((out.ends(j) != 1 || out.lost[j] != 0 || out.other_errors[j] != 0
             || out.wrong_values[j] != 0)
            && ++failures <= 10)
          ADD_FAILURE() << "request " << j << " of requester " << i << " (kind " << k
                        << ") ended with " << int{out.values[j]} << " values ("
                        << int{out.wrong_values[j]} << " wrong), " << int{out.timeouts[j]}
                        << " timeouts, " << int{out.lost[j]} << " lost and "
                        << int{out.other_errors[j]} << " other errors";
      }
    }
    uint64_t total = uint64_t{per_requester} * results.size();
    EXPECT_EQ(failures, 0);
    EXPECT_EQ(values + timeouts, total);
    // Where the outcome does not depend on timing, it must be the one
    // expected: answered requests with a hang-only timeout get their value,
    // and a request timed out before its answer was even sent never sees it.
    auto per_kind = total / kinds;
    EXPECT_EQ(by_kind_values[static_cast<int>(kind::prompt)], per_kind);
    EXPECT_EQ(by_kind_values[static_cast<int>(kind::in_time)], per_kind);
    EXPECT_EQ(by_kind_timeouts[static_cast<int>(kind::never)], per_kind);
    for (auto k : {kind::racy, kind::late})
      EXPECT_EQ(by_kind_values[static_cast<int>(k)] + by_kind_timeouts[static_cast<int>(k)],
                per_kind);
    if (late_is_timeout) {
      EXPECT_EQ(by_kind_timeouts[static_cast<int>(kind::late)], per_kind);
    }
  }

  stress::config cfg_{GetParam()};
  std::unique_ptr<actor_system> sys_;
  std::vector<actor> responders_;
};

// Multiples of `kinds`, so every kind gets the same share.
constexpr uint32_t storm_requesters = scaled<uint32_t>(50, 10);
constexpr uint32_t storm_requests = scaled<uint32_t>(500, 100);
// Sequential: each request that times out costs a full short timeout.
constexpr uint32_t blocking_requests = scaled<uint32_t>(50, 20);
constexpr uint32_t mixed_requests = scaled<uint32_t>(100, 25);

TEST_P(request_storm, every_request_handled_with_then_ends_once_with_value_or_timeout) {
  run(storm_requesters, storm_requests, true, [this](uint32_t i, outcomes* out) {
    sys_->spawn(then_requester, responders_, i, storm_requests, out);
  });
}

TEST_P(request_storm, every_awaited_request_ends_once_with_value_or_timeout) {
  run(storm_requesters / 2, storm_requests / 5, true, [this](uint32_t i, outcomes* out) {
    sys_->spawn(await_requester, responders_, i, storm_requests / 5, out);
  });
}

TEST_P(request_storm, every_request_of_blocking_requesters_ends_once_with_value_or_timeout) {
  run(scaled<uint32_t>(10, 5), blocking_requests, false, [this](uint32_t i, outcomes* out) {
    sys_->spawn(blocking_requester, responders_, i, blocking_requests, out);
  });
}

TEST_P(request_storm, requests_from_many_kinds_of_requesters_at_once_each_end_once) {
  run(scaled<uint32_t>(30, 6), mixed_requests, true, [this](uint32_t i, outcomes* out) {
    switch (i % 3) {
      case 0:
        sys_->spawn(then_requester, responders_, i, mixed_requests, out);
        break;
      case 1:
        sys_->spawn(await_requester, responders_, i, mixed_requests, out);
        break;
      default:
        sys_->spawn<detached>(then_requester, responders_, i, mixed_requests, out);
    }
  });
}

TEST_P(request_storm, a_blocking_requester_drops_answers_that_come_after_the_timeout) {
  // Answers that come after the timeout must not pile up in the requester
  // (they did, in the stash of skipped messages, until it terminated and
  // bounced them all as dead letters).
  constexpr int requests = scaled(200, 50);
  std::atomic<int> delivered{0};
  auto late = sys_->spawn(delayed_responder, timespan{5ms}, &delivered);
  auto dead_before = sys_->dead_letters();
  int values = 0;
  int timeouts = 0;
  {
    scoped_actor self{*sys_};
    for (int i = 0; i < requests; ++i)
      self->request(late, 1ms, i).receive([&](int) { ++values; },
                                          [&](error& err) {
                                            if (err == errc::request_timeout)
                                              ++timeouts;
                                          });
    ASSERT_TRUE(stress::wait_until([&] { return delivered.load() == requests; }));
    // One more request makes the requester read its mailbox to the end.
    bool done = false;
    self->request(responders_[static_cast<int>(kind::prompt)], stress::patience, 0)
      .receive([&](int) { done = true; }, [](error&) {});
    ASSERT_TRUE(done);
  }
  EXPECT_EQ(values + timeouts, requests);
  EXPECT_GT(timeouts, 0);
  EXPECT_EQ(sys_->dead_letters(), dead_before);
}

TEST_P(request_storm, requests_to_responders_that_die_mid_storm_each_end_once) {
  // Responders die with requests queued in their mailboxes and promises
  // pending in their state: queued requests bounce with actor_down, dropped
  // promises answer broken_promise, and no request ends twice or never.
  constexpr uint32_t requesters = scaled<uint32_t>(40, 8);
  constexpr uint32_t per_requester = scaled<uint32_t>(450, 90);
  std::atomic<int>* no_count = nullptr;
  std::vector<actor> targets;
  for (int i = 0; i < 4; ++i) {
    targets.push_back(sys_->spawn(prompt_responder));
    targets.push_back(sys_->spawn(delayed_responder, timespan{2ms}, no_count));
  }
  // Dead before the first request: every request to it must bounce.
  auto dead = sys_->spawn(prompt_responder);
  anon_send_exit(dead, exit_reason::kill);
  auto alive = responders_.size() + targets.size();
  ASSERT_TRUE(stress::wait_until([&] { return sys_->running_actors() == alive; }));
  targets.push_back(dead);
  std::vector<std::unique_ptr<outcomes>> results;
  std::atomic<uint32_t> ended{0};
  for (uint32_t i = 0; i < requesters; ++i) {
    results.push_back(std::make_unique<outcomes>(per_requester));
    sys_->spawn(volatile_requester, targets, i, per_requester, results.back().get(), &ended);
  }
  constexpr uint32_t total = requesters * per_requester;
  ASSERT_TRUE(stress::wait_until([&] { return ended.load() >= total / 3; }));
  std::mt19937_64 rng{5};
  targets.pop_back();
  std::shuffle(targets.begin(), targets.end(), rng);
  for (auto& t : targets)
    anon_send_exit(t, exit_reason::user_shutdown);
  targets.clear();
  ASSERT_TRUE(stress::wait_until([&] { return sys_->running_actors() == responders_.size(); }))
    << "requesters still wait for " << total - ended.load() << " responses";
  uint64_t values = 0;
  uint64_t lost = 0;
  int failures = 0;
  for (uint32_t i = 0; i < requesters; ++i) {
    auto& out = *results[i];
    for (uint32_t j = 0; j < per_requester; ++j) {
      values += out.values[j];
      lost += out.lost[j];
      bool to_dead = (i + j) % 9 == 8;
      if ((out.ends(j) != 1 || out.timeouts[j] != 0 || out.other_errors[j] != 0
           || out.wrong_values[j] != 0 || (to_dead && out.lost[j] != 1))
          && ++failures <= 10)
        ADD_FAILURE() << "request " << j << " of requester " << i << " ended with "
                      << int{out.values[j]} << " values (" << int{out.wrong_values[j]}
                      << " wrong), " << int{out.timeouts[j]} << " timeouts, "
                      << int{out.lost[j]} << " lost and " << int{out.other_errors[j]}
                      << " other errors" << (to_dead ? " (sent to the dead responder)" : "");
    }
  }
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(values + lost, total);
  EXPECT_EQ(ended.load(), total);
  EXPECT_GE(lost, total / 9);
}

TROUPE_TEST_EVERY_POLICY(request_storm);

} // namespace
