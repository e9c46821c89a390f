#pragma once

// A part of the actor system that a program loads when it needs it, as
// CAF's modules: `cfg.load<troupe::net::middleman>()`. The actor system
// builds each loaded module after its scheduler starts, starts them in load
// order, and stops them in reverse order once every actor has finished,
// before the scheduler and the clock stop: a module's threads may send to
// actors until then.

#include <string>
#include <string_view>
#include <vector>

namespace troupe {

class actor_system;

class actor_system_module {
public:
  virtual ~actor_system_module() = default;

  /// The module's name, the same as its type's `module_name`.
  virtual std::string_view name() const noexcept = 0;

  /// Called once, by the actor system's constructor.
  virtual void start() = 0;

  /// Called once, by the actor system's destructor (after every actor has
  /// finished) or by its shutdown().
  virtual void stop() noexcept = 0;

  /// What the module holds open that can still make an actor run (a
  /// listening port, say), one short line each; none by default. The
  /// actor system's destructor waits while there is any
  /// (actor_system::activity). Any thread.
  virtual std::vector<std::string> activity() const {
    return {};
  }
};

} // namespace troupe
