#include "troupe/typed_actor.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/type_id.hpp"
#include "troupe/scoped_actor.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::patience;

namespace {

using calculator
  = typed_actor<result<int>(add_atom, int, int), result<int>(sub_atom, int, int)>;

calculator::behavior_type calculator_impl() {
  return {
    [](add_atom, int x, int y) { return x + y; },
    [](sub_atom, int x, int y) { return x - y; },
  };
}

/// Adds what it is sent; tells the sum on request.
using counter = typed_actor<result<void>(int), result<int>(get_atom)>;

struct counter_state {
  int sum = 0;
  std::shared_ptr<int> destroyed;

  ~counter_state() {
    if (destroyed)
      ++*destroyed;
  }
};

counter::behavior_type counter_impl(counter::stateful_pointer<counter_state> self) {
  return {
    [self](int x) { self->state.sum += x; },
    [self](get_atom) { return self->state.sum; },
  };
}

class offset_calculator : public calculator::base {
public:
  offset_calculator(actor_config& cfg, int offset) : calculator::base(cfg), offset_(offset) {}

protected:
  behavior_type make_behavior() override {
    return {
      [this](add_atom, int x, int y) { return x + y + offset_; },
      [this](sub_atom, int x, int y) { return x - y + offset_; },
    };
  }

private:
  int offset_;
};

class typed_actors : public troupe::test::actor_fixture {
protected:
  /// The int answer of `dest` to `xs...`, or -1000 after a failure.
  template <class Handle, class... Ts>
  int ask(const Handle& dest, Ts&&... xs) {
    int result = -1000;
    self->request(dest, patience, std::forward<Ts>(xs)...)
      .receive([&](int x) { result = x; },
               [](const error& err) { ADD_FAILURE() << to_string(err); });
    return result;
  }
};

TEST_P(typed_actors, a_scoped_actor_gets_typed_responses) {
  auto calc = sys.spawn(calculator_impl);
  static_assert(std::is_same_v<decltype(calc), calculator>);
  EXPECT_EQ(ask(calc, add_atom_v, 1, 2), 3);
  EXPECT_EQ(ask(calc, sub_atom_v, 1, 2), -1);
}

TEST_P(typed_actors, an_event_based_actor_gets_typed_responses_with_then) {
  auto calc = sys.spawn(calculator_impl);
  sys.spawn([calc, r = reporter](event_based_actor* a) {
    a->request(calc, patience, add_atom_v, 20, 22).then([=](int x) {
      a->request(calc, patience, sub_atom_v, x, 2).then([=](int y) { a->send(r, x, y); });
    });
  });
  int sum = 0;
  int difference = 0;
  self->receive(
    [&](int x, int y) {
      sum = x;
      difference = y;
    },
    after(patience) >> [] { ADD_FAILURE() << "no responses reported"; });
  EXPECT_EQ(sum, 42);
  EXPECT_EQ(difference, 40);
}

TEST_P(typed_actors, a_typed_actor_answers_its_dynamically_typed_handle_too) {
  auto calc = sys.spawn(calculator_impl);
  const actor& untyped = calc.untyped();
  EXPECT_EQ(ask(untyped, add_atom_v, 2, 3), 5);
  error err;
  self->request(untyped, patience, "not in the interface"s)
    .receive([](int) { ADD_FAILURE() << "answered"; }, [&](const error& x) { err = x; });
  EXPECT_EQ(err, errc::unexpected_message);
}

TEST_P(typed_actors, sends_to_a_typed_handle_reach_the_handlers) {
  auto c = sys.spawn(counter_impl);
  self->send(c, 1);
  self->send(c, 2);
  anon_send(c, 3);
  EXPECT_EQ(ask(c, get_atom_v), 6);
}

TEST_P(typed_actors, a_typed_stateful_actor_keeps_its_state_until_it_terminates) {
  auto destroyed = std::make_shared<int>(0);
  auto c = sys.spawn([destroyed](counter::stateful_pointer<counter_state> self) {
    self->state.destroyed = destroyed;
    return counter_impl(self);
  });
  self->monitor(c);
  self->send(c, 5);
  EXPECT_EQ(ask(c, get_atom_v), 5);
  self->send(c, 5);
  EXPECT_EQ(ask(c, get_atom_v), 10);
  anon_send_exit(c, exit_reason::user_shutdown);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
  // Written by the actor's thread before it sent the down_msg.
  EXPECT_EQ(*destroyed, 1);
}

TEST_P(typed_actors, a_class_based_typed_actor_runs_its_make_behavior) {
  auto calc = sys.spawn<offset_calculator>(100);
  static_assert(std::is_same_v<decltype(calc), calculator>);
  EXPECT_EQ(ask(calc, add_atom_v, 1, 2), 103);
  EXPECT_EQ(ask(calc, sub_atom_v, 1, 2), 99);
}

TEST_P(typed_actors, a_typed_actor_can_become_another_typed_behavior) {
  // Adds first; after the first request it swaps the two operations.
  auto calc = sys.spawn([](calculator::pointer self) -> calculator::behavior_type {
    return {
      [self](add_atom, int x, int y) {
        self->become(calculator::behavior_type{
          [](add_atom, int a, int b) { return a - b; },
          [](sub_atom, int a, int b) { return a + b; },
        });
        return x + y;
      },
      [](sub_atom, int x, int y) { return x - y; },
    };
  });
  EXPECT_EQ(ask(calc, add_atom_v, 5, 3), 8);
  EXPECT_EQ(ask(calc, add_atom_v, 5, 3), 2);
  EXPECT_EQ(ask(calc, sub_atom_v, 5, 3), 8);
}

TEST_P(typed_actors, a_typed_response_promise_answers_later) {
  struct state {
    typed_response_promise<int> promise;
    int sum = 0;
  };
  using deferred = typed_actor<result<void>(int), result<int>(get_atom)>;
  // Answers get_atom once it got an int after the request.
  auto d = sys.spawn([](deferred::stateful_pointer<state> self) -> deferred::behavior_type {
    return {
      [self](int x) {
        self->state.sum += x;
        if (self->state.promise.pending()) {
          self->state.promise.deliver(self->state.sum);
          self->state.promise = {};
        }
      },
      [self](get_atom) {
        self->state.promise = self->make_response_promise<int>();
        return self->state.promise;
      },
    };
  });
  auto pending = self->request(d, patience, get_atom_v);
  self->send(d, 7);
  int value = 0;
  pending.receive([&](int x) { value = x; },
                  [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(value, 7);
}

TEST_P(typed_actors, typed_handles_compare_by_the_actor_they_name) {
  auto a = sys.spawn(calculator_impl);
  auto b = sys.spawn(calculator_impl);
  calculator copy = a;
  EXPECT_TRUE(copy == a);
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.id(), a.untyped().id());
  EXPECT_TRUE(a.address() == a.untyped().address());
  EXPECT_FALSE(static_cast<bool>(calculator{}));
}

} // namespace

TROUPE_TEST_EVERY_POLICY(typed_actors);
