#pragma once

// farm: replicas of a worker pattern, each item to one of them (or to all,
// with broadcast). Replicas default to the number of scheduler workers.
//
//   farm(seq(score))                                   // round-robin
//   farm(seq(score), 4, by_key([](const trade& t) { return t.account; }))
//   farm(pipeline(seq(a), seq(b))).ordered()           // results in input order
//
// Routing:
//   round_robin         replicas in turn (the default)
//   random_replica      a uniformly random replica
//   by_key(key)         equal keys always reach the same replica, so a
//                       replica may keep per-key state
//   broadcast           every replica gets every item; the item's result is
//                       the vector of the replicas' results, in replica order
//   custom(fn)          fn(item, replicas) returns the replica's index
//
// An unordered farm has no actor of its own: whoever sends into it (the
// pattern's handle, or each replica of an upstream stage) picks the replica,
// so two farms in a row need no router between them. An ordered or
// broadcast farm has one actor that sends each item to its replicas as a
// request and sends the results on in input order.

#include "troupe/patterns/detail/gather.hpp"
#include "troupe/patterns/detail/pattern.hpp"
#include "troupe/routing.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::patterns {

// The routing types are troupe's (troupe/routing.hpp), which streams use
// too.
using troupe::broadcast;
using troupe::by_key;
using troupe::custom;
using troupe::random_replica;
using troupe::round_robin;

namespace detail {

using troupe::detail::routing_arg_t;

/// The replica for a message under a routing that looks at no item.
template <class Routing>
pick_fn make_untyped_pick(Routing p) {
  return [pick = troupe::detail::replica_picker<message, Routing>{p}](
           const message& msg, size_t n) mutable { return pick(msg, n); };
}

/// The replica for a message: the routing's choice for its item of type
/// `Arg`; anything else goes to replica 0, which rejects it.
template <class Arg, class Routing>
pick_fn make_typed_pick(Routing p) {
  if constexpr (std::is_same_v<Arg, message>) {
    return make_untyped_pick(std::move(p));
  } else {
    return [pick = troupe::detail::replica_picker<Arg, Routing>{std::move(p)}](
             const message& msg, size_t n) mutable -> size_t {
      return msg.match_elements<Arg>() ? pick(msg.get_as<Arg>(0), n) : 0;
    };
  }
}

inline pick_fn make_pick(round_robin p) {
  return make_untyped_pick(p);
}

inline pick_fn make_pick(random_replica p) {
  return make_untyped_pick(p);
}

template <class F>
pick_fn make_pick(by_key<F> p) {
  return make_typed_pick<routing_arg_t<F>>(std::move(p));
}

template <class F>
pick_fn make_pick(custom<F> p) {
  return make_typed_pick<routing_arg_t<F>>(std::move(p));
}

} // namespace detail

template <pattern Worker, class Routing = round_robin>
class farm_pattern {
public:
  static constexpr bool is_broadcast = std::is_same_v<Routing, broadcast>;

  using input_type = typename Worker::input_type;
  using worker_output = typename Worker::output_type;
  using output_type
    = std::conditional_t<is_broadcast, std::vector<worker_output>, worker_output>;

  static_assert(!is_broadcast
                  || (!std::is_same_v<worker_output, unknown_type>
                      && !std::is_void_v<worker_output>),
                "troupe: a broadcast farm needs a worker whose output type is known");

  farm_pattern(Worker worker, size_t replicas, Routing routing)
    : worker_(std::move(worker)), replicas_(replicas), routing_(std::move(routing)) {}

  /// Number of replicas; 0 (the default) means one per scheduler worker.
  farm_pattern replicas(size_t n) && {
    replicas_ = n;
    return std::move(*this);
  }

  /// Results leave in the order the items came in.
  farm_pattern ordered(bool value = true) && {
    ordered_ = value;
    return std::move(*this);
  }

  farm_pattern name(std::string x) && {
    name_ = std::move(x);
    return std::move(*this);
  }

  template <class P>
  farm_pattern<Worker, P> routing(P p) && {
    farm_pattern<Worker, P> result{std::move(worker_), replicas_, std::move(p)};
    return std::move(result).ordered(ordered_).name(std::move(name_));
  }

  detail::built build(detail::build_context& ctx, detail::route_ptr next,
                      const std::string& path) const {
    auto here = detail::join_path(path, name_);
    auto n = replicas_ != 0 ? replicas_ : std::max<size_t>(ctx.sys.scheduler().num_workers(), 1);
    if constexpr (is_broadcast) {
      return build_gather(ctx, std::move(next), here, n);
    } else {
      if (ordered_)
        return build_gather(ctx, std::move(next), here, n);
      return build_direct(ctx, std::move(next), here, n);
    }
  }

private:
  detail::built build_direct(detail::build_context& ctx, detail::route_ptr next,
                             const std::string& here, size_t n) const {
    // Every replica sends to `next` itself.
    detail::built result;
    std::vector<detail::route_ptr> entries;
    for (size_t i = 0; i < n; ++i) {
      auto b = worker_.build(ctx, next ? next->clone() : nullptr,
                             here + "[" + std::to_string(i) + "]");
      entries.push_back(std::move(b.entry));
      result.exits += b.exits;
      for (auto& cell : b.entry_fan_in)
        result.entry_fan_in.push_back(std::move(cell));
    }
    result.entry = std::make_unique<detail::farm_route>(std::move(entries),
                                                        detail::make_pick(routing_));
    return result;
  }

  detail::built build_gather(detail::build_context& ctx, detail::route_ptr next,
                             const std::string& here, size_t n) const {
    // The replicas answer the gather actor's requests; it alone sends on.
    std::vector<detail::route_ptr> entries;
    for (size_t i = 0; i < n; ++i) {
      auto b = worker_.build(ctx, nullptr, here + "[" + std::to_string(i) + "]");
      detail::set_fan_in(b.entry_fan_in, 1);
      entries.push_back(std::move(b.entry));
    }
    if constexpr (is_broadcast)
      return ctx.single<detail::broadcast_stage<worker_output>>(here, std::move(next),
                                                                std::move(entries));
    else
      return ctx.single<detail::ordered_stage>(here, std::move(next), std::move(entries),
                                               detail::make_pick(routing_));
  }

  Worker worker_;
  size_t replicas_ = 0;
  Routing routing_;
  bool ordered_ = false;
  std::string name_ = "farm";
};

/// Replicas of `worker`: `replicas` 0 means one per scheduler worker.
template <pattern Worker, class Routing = round_robin>
auto farm(Worker worker, size_t replicas = 0, Routing routing = {}) {
  return farm_pattern<Worker, Routing>{std::move(worker), replicas, std::move(routing)};
}

} // namespace troupe::patterns
