#pragma once

// The fixture of the actor tests: an actor system running the policy under
// test and a scoped actor that talks to the actors a test spawns. Every wait
// is bounded by `patience`, so a lost message fails the test instead of
// hanging it.

#include "policies.hpp"

#include "troupe/actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/blocking_actor.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/scoped_actor.hpp"

#include <chrono>
#include <utility>

namespace troupe::test {

class actor_fixture : public policy_test {
protected:
  /// The next message of type T for `self`; fails the test (and returns T{})
  /// if none arrives in time. Messages of other types stay queued.
  template <class T>
  T next() {
    T result{};
    self->receive([&](T& x) { result = std::move(x); },
                  after(patience) >> [] { ADD_FAILURE() << "no message in time"; });
    return result;
  }

  /// True if a message of type T is already in the mailbox (consumes it).
  template <class T>
  bool has_queued() {
    bool found = false;
    self->receive([&](T&) { found = true; }, after(std::chrono::seconds{0}) >> [] {});
    return found;
  }

  /// Requests `xs...` from `dest` with `timeout` and waits for the response.
  template <class T, class Handle, class... Ts>
  expected<T> ask_within(timespan timeout, const Handle& dest, Ts&&... xs) {
    expected<T> result{make_error(errc::runtime_error, "the response handle never ran")};
    self->request(dest, timeout, std::forward<Ts>(xs)...)
      .receive([&](T& x) { result = std::move(x); },
               [&](const error& err) { result = err; });
    return result;
  }

  /// Requests `xs...` from `dest` and waits for the response.
  template <class T, class Handle, class... Ts>
  expected<T> ask(const Handle& dest, Ts&&... xs) {
    return ask_within<T>(patience, dest, std::forward<Ts>(xs)...);
  }

  policy_config cfg{GetParam()};
  actor_system sys{cfg};
  scoped_actor self{sys};
  /// `self` as a plain handle, for actors that report to the test.
  actor reporter = self;
};

} // namespace troupe::test
