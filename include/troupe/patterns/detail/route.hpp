#pragma once

// Routes: how a stage hands a result to the next one. A pattern is built from
// its last stage to its first; each stage gets the route into the stage after
// it and returns the route into itself. An item keeps the sender and message
// ID of the request that brought it in all the way through, so whichever
// stage produces the final result answers the requester directly (as CAF's
// delegate does), and a farm's emitter is just the route its upstream holds:
// two farms in a row need no router actor between them.
//
// Threads: a route is owned by one actor (each upstream actor gets its own
// clone), so its state (a round-robin counter, a random engine) needs no lock.

#include "troupe/actor_control_block.hpp"
#include "troupe/message.hpp"
#include "troupe/message_id.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace troupe {
class execution_unit;
class actor_system;
class local_actor;
} // namespace troupe

namespace troupe::patterns::detail {

class route {
public:
  virtual ~route() = default;

  virtual std::unique_ptr<route> clone() const = 0;

  /// Delivers one item on behalf of the request (`sender`, `mid`); `self`
  /// is the actor that owns the route.
  virtual void send(local_actor* self, strong_actor_ptr sender, message_id mid, message msg,
                    execution_unit* ctx) = 0;

  /// Delivers a stream marker (end of stream, drain) to every actor this
  /// route can reach.
  virtual void broadcast(local_actor* self, const strong_actor_ptr& sender,
                         const message& marker, execution_unit* ctx) = 0;
};

using route_ptr = std::unique_ptr<route>;

/// Into one actor.
class actor_route final : public route {
public:
  explicit actor_route(strong_actor_ptr dest) : dest_(std::move(dest)) {}

  std::unique_ptr<route> clone() const override;
  void send(local_actor* self, strong_actor_ptr sender, message_id mid, message msg,
            execution_unit* ctx) override;
  void broadcast(local_actor* self, const strong_actor_ptr& sender, const message& marker,
                 execution_unit* ctx) override;

private:
  strong_actor_ptr dest_;
};

/// Picks a replica for an item: `n` is the number of replicas. Called only
/// by the actor that owns the route.
using pick_fn = std::function<size_t(const message& msg, size_t n)>;

/// Into one of several replicas (a farm), chosen by a routing.
class farm_route final : public route {
public:
  farm_route(std::vector<route_ptr> replicas, pick_fn pick)
    : replicas_(std::move(replicas)), pick_(std::move(pick)) {}

  std::unique_ptr<route> clone() const override;
  void send(local_actor* self, strong_actor_ptr sender, message_id mid, message msg,
            execution_unit* ctx) override;
  void broadcast(local_actor* self, const strong_actor_ptr& sender, const message& marker,
                 execution_unit* ctx) override;

private:
  std::vector<route_ptr> replicas_;
  pick_fn pick_;
};

/// Answers the request (`sender`, `mid`) with `msg` from `self`: a response
/// for a request, an ordinary message for a plain send that has a sender (as
/// a handler's result would be), a dead letter if nobody can receive it.
void answer(actor_system& sys, const strong_actor_ptr& self, strong_actor_ptr sender,
            message_id mid, message msg, execution_unit* ctx);

} // namespace troupe::patterns::detail
