// The actors of request_response.cpp, in a header of their own so that
// testing/request_response_test.cpp can test them step by step.

#pragma once

#include <troupe/all.hpp>

#include <chrono>
#include <iostream>
#include <string>

using namespace troupe;
using namespace std::chrono_literals;

// A tiny key-value store. An unknown key is an error value, which the
// requester receives instead of a result.
inline behavior store() {
  return {
    [](get_atom, const std::string& key) -> result<int> {
      if (key == "answer")
        return 42;
      return error{errc::invalid_argument, "no such key: " + key};
    },
  };
}

// Asks the store on the requester's behalf and adds one. The answer comes
// from the store later, so the handler hands back a promise and keeps a
// copy to deliver to once the store has answered.
inline behavior incrementer(event_based_actor* self, actor db) {
  return {
    [self, db](get_atom, const std::string& key) {
      auto promise = self->make_response_promise();
      self->request(db, 1s, get_atom_v, key)
        .then([promise](int x) mutable { promise.deliver(x + 1); },
              [promise](error& err) mutable { promise.deliver(std::move(err)); });
      return promise;
    },
  };
}

// Takes every request and never answers: only the timeout ends the wait.
inline behavior forgetful() {
  return {
    [](get_atom, const std::string&) { return delegated<int>{}; },
  };
}

// Sends three requests at once from its spawn function. Answers arrive in
// any order. With no behavior of its own, the client terminates when the
// last request has been answered or has timed out.
inline void client(event_based_actor* self, actor db, actor inc, actor absent_minded) {
  auto on_error = [](const char* what) {
    return [what](error& err) { std::cout << what << " failed: " << to_string(err) << '\n'; };
  };
  self->request(db, 1s, get_atom_v, std::string{"question"})
    .then([](int x) { std::cout << "question = " << x << '\n'; }, on_error("get question"));
  self->request(inc, 1s, get_atom_v, std::string{"answer"})
    .then([](int x) { std::cout << "answer + 1 = " << x << '\n'; },
          on_error("get answer + 1"));
  self->request(absent_minded, 100ms, get_atom_v, std::string{"answer"})
    .then([](int x) { std::cout << "forgetful answered " << x << '\n'; },
          on_error("asking the forgetful actor"));
}

