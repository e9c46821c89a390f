#pragma once

// Output that waits until the running actor yields its worker. A network
// connection buffers what a handler sends and writes it when the worker's
// resume() returns: a handler that sends many messages makes one write,
// and a ping-pong handler still writes as soon as it returns. Outside a
// resume (main, a blocking actor, a detached actor's thread) nothing is
// deferred: the caller writes at once.
//
// Thread-local; each function acts on the calling thread's list only.

#include <memory>

namespace troupe::detail {

class flushable {
public:
  virtual ~flushable() = default;

  /// Writes what was buffered; called on the thread that deferred it.
  virtual void flush() noexcept = 0;
};

/// True while the calling thread runs an actor's resume().
extern constinit thread_local bool flushes_deferred;

/// True if the calling thread's list is not empty.
extern constinit thread_local bool has_deferred_flushes;

/// The last one added to the calling thread's list, or null: a sender that
/// is already there need not make a shared_ptr to itself.
extern constinit thread_local const flushable* last_deferred;

/// Adds `x` to the calling thread's list (once, if it is the last added).
void defer_flush(std::shared_ptr<flushable> x);

/// Flushes and empties the calling thread's list.
void run_deferred_flushes() noexcept;

} // namespace troupe::detail
