#pragma once

// A blocking actor on the caller's thread, for talking to actors from code
// that is not an actor (main, tests). Hidden: await_all_actors_done does not
// wait for it. It terminates when it goes out of scope.
//
//   scoped_actor self{sys};
//   self->request(worker, std::chrono::seconds(1), 42).receive(
//     [](int result) { ... },
//     [](const error& err) { ... });

#include "troupe/actor.hpp"
#include "troupe/blocking_actor.hpp"

namespace troupe {

class actor_system;

class scoped_actor {
public:
  explicit scoped_actor(actor_system& sys);

  scoped_actor(const scoped_actor&) = delete;
  scoped_actor& operator=(const scoped_actor&) = delete;

  ~scoped_actor();

  blocking_actor* operator->() const noexcept {
    return self_;
  }

  blocking_actor* ptr() const noexcept {
    return self_;
  }

  actor_control_block* ctrl() const noexcept {
    return handle_.ctrl();
  }

  /// A handle to this actor.
  const actor& handle() const noexcept {
    return handle_;
  }

  operator actor() const noexcept {
    return handle_;
  }

private:
  actor handle_;
  blocking_actor* self_;
};

} // namespace troupe
