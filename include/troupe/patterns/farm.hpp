#pragma once

// farm: replicas of a worker pattern, each item to one of them (or to all,
// with broadcast). Replicas default to the number of scheduler workers.
//
//   farm(seq(score))                                   // round-robin
//   farm(seq(score), 4, by_key([](const trade& t) { return t.account; }))
//   farm(pipeline(seq(a), seq(b))).ordered()           // results in input order
//
// Policies:
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

#include <cstddef>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::patterns {

/// Replicas in turn.
struct round_robin {};

/// A uniformly random replica per item.
struct random_replica {};

/// Every replica gets every item.
struct broadcast {};

/// Equal keys reach the same replica: `key` maps an item to a hashable key.
template <class F>
struct by_key {
  F key;
};

template <class F>
by_key(F) -> by_key<F>;

/// The user's choice: `fn(item, replicas)` returns a replica index (taken
/// modulo the number of replicas). `item` is the input type, or `const
/// message&`.
template <class F>
struct custom {
  F fn;
};

template <class F>
custom(F) -> custom<F>;

namespace detail {

/// The argument type of a key extractor or custom policy.
template <class F>
using policy_arg_t = std::decay_t<
  typename troupe::detail::type_list_head<typename troupe::detail::callable_trait_t<F>::arg_types>::type>;

inline pick_fn make_pick(round_robin) {
  return [next = size_t{0}](const message&, size_t n) mutable { return next++ % n; };
}

inline pick_fn make_pick(random_replica) {
  return [](const message&, size_t n) {
    thread_local std::minstd_rand engine{std::random_device{}()};
    return std::uniform_int_distribution<size_t>{0, n - 1}(engine);
  };
}

template <class F>
pick_fn make_pick(by_key<F> p) {
  using arg = policy_arg_t<F>;
  return [key = std::move(p.key)](const message& msg, size_t n) -> size_t {
    // Anything else goes to replica 0, which rejects it.
    if (!msg.match_elements<arg>())
      return 0;
    using key_type = std::decay_t<decltype(key(msg.get_as<arg>(0)))>;
    return std::hash<key_type>{}(key(msg.get_as<arg>(0))) % n;
  };
}

template <class F>
pick_fn make_pick(custom<F> p) {
  using arg = policy_arg_t<F>;
  if constexpr (std::is_same_v<arg, message>) {
    return [fn = std::move(p.fn)](const message& msg, size_t n) -> size_t { return fn(msg, n); };
  } else {
    return [fn = std::move(p.fn)](const message& msg, size_t n) -> size_t {
      return msg.match_elements<arg>() ? fn(msg.get_as<arg>(0), n) : 0;
    };
  }
}

} // namespace detail

template <pattern Worker, class Policy = round_robin>
class farm_pattern {
public:
  static constexpr bool is_broadcast = std::is_same_v<Policy, broadcast>;

  using input_type = typename Worker::input_type;
  using worker_output = typename Worker::output_type;
  using output_type
    = std::conditional_t<is_broadcast, std::vector<worker_output>, worker_output>;

  static_assert(!is_broadcast
                  || (!std::is_same_v<worker_output, unknown_type>
                      && !std::is_void_v<worker_output>),
                "troupe: a broadcast farm needs a worker whose output type is known");

  farm_pattern(Worker worker, size_t replicas, Policy policy)
    : worker_(std::move(worker)), replicas_(replicas), policy_(std::move(policy)) {}

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
  farm_pattern<Worker, P> policy(P p) && {
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
                                                        detail::make_pick(policy_));
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
                                               detail::make_pick(policy_));
  }

  Worker worker_;
  size_t replicas_ = 0;
  Policy policy_;
  bool ordered_ = false;
  std::string name_ = "farm";
};

/// Replicas of `worker`: `replicas` 0 means one per scheduler worker.
template <pattern Worker, class Policy = round_robin>
auto farm(Worker worker, size_t replicas = 0, Policy policy = {}) {
  return farm_pattern<Worker, Policy>{std::move(worker), replicas, std::move(policy)};
}

} // namespace troupe::patterns
