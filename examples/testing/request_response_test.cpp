// Tests of the actors in ../request_response.hpp with the deterministic
// fixture: no threads, every message handled when the test says so, and a
// virtual clock, so that the forgetful actor's timeout takes no time and
// comes exactly when it should.

#include "../request_response.hpp"

#include <troupe/test/fixture/deterministic.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using fixture = troupe::test::fixture::deterministic;

/// What an asker got back.
struct answers {
  std::vector<int> values;
  std::vector<error> errors;
};

/// Asks `db` for each of `keys` and records what comes back.
behavior asker(event_based_actor* self, actor db, std::vector<std::string> keys, answers* out) {
  for (auto& key : keys)
    self->request(db, 1s, get_atom_v, key)
      .then([out](int x) { out->values.push_back(x); },
            [out](error& err) { out->errors.push_back(err); });
  return {};
}

TEST_F(fixture, the_store_answers_a_known_key_and_refuses_an_unknown_one) {
  auto db = sys.spawn(store);
  answers got;
  auto a = sys.spawn(asker, db, std::vector<std::string>{"answer", "question"}, &got);
  // Both requests wait in the store's mailbox, in the order they were sent.
  expect<get_atom, std::string>().with(get_atom_v, "answer").from(a).to(db);
  expect<get_atom, std::string>().with(get_atom_v, "question").from(a).to(db);
  expect<int>().with(42).from(db).to(a);
  expect<error>().from(db).to(a);
  EXPECT_EQ(got.values, std::vector<int>{42});
  ASSERT_EQ(got.errors.size(), 1u);
  EXPECT_EQ(got.errors[0], errc::invalid_argument);
  EXPECT_TRUE(terminated(a));
}

TEST_F(fixture, the_incrementer_asks_the_store_and_adds_one) {
  auto db = sys.spawn(store);
  auto inc = sys.spawn(incrementer, db);
  answers got;
  auto a = sys.spawn(asker, inc, std::vector<std::string>{"answer"}, &got);
  expect<get_atom, std::string>().from(a).to(inc);
  expect<get_atom, std::string>().from(inc).to(db);
  expect<int>().with(42).from(db).to(inc);
  expect<int>().with(43).from(inc).to(a);
  EXPECT_EQ(got.values, std::vector<int>{43});
}

TEST_F(fixture, a_request_to_the_forgetful_actor_times_out_after_exactly_its_timeout) {
  auto db = sys.spawn(store);
  auto inc = sys.spawn(incrementer, db);
  auto absent_minded = sys.spawn(forgetful);
  auto c = sys.spawn(client, db, inc, absent_minded);
  // Everything but the timeout: the client still waits for one answer.
  dispatch_messages();
  EXPECT_FALSE(terminated(c));
  advance_time(99ms);
  dispatch_messages();
  EXPECT_FALSE(terminated(c));
  // At 100ms the timeout arrives; with no request left, the client ends.
  advance_time(1ms);
  EXPECT_EQ(dispatch_messages(), 1u);
  EXPECT_TRUE(terminated(c));
}

} // namespace
