#pragma once

// seq: one sequential stage. It wraps
//   - a plain callable `Out(In)`: run by a stage actor of the pattern; a
//     `void` result ends the item (a request gets an empty response);
//   - a behavior function (`behavior f()` or `behavior f(event_based_actor*)`,
//     typed ones too) or an actor class, `seq<my_actor>(args...)`: each
//     replica spawns its own actor, which the stage sends every item to as a
//     request and whose response goes on. If that actor dies, the stage
//     spawns a fresh one for the next items.
//
//   auto parse = seq([](const std::string& line) { return to_record(line); })
//                  .name("parse");
//
// An exception thrown by the callable fails that item's request with
// errc::unhandled_exception naming the stage; the stage keeps serving the
// others.

#include "troupe/actor_system.hpp"
#include "troupe/behavior.hpp"
#include "troupe/detail/actor_stage_core.hpp"
#include "troupe/detail/callable_trait.hpp"
#include "troupe/patterns/detail/pattern.hpp"
#include "troupe/typed_actor.hpp"

#include <functional>
#include <string>
#include <type_traits>
#include <utility>

namespace troupe::patterns {

namespace detail {

template <class F, class In, class Out>
class fn_stage final : public stage_actor {
public:
  fn_stage(actor_config& cfg, stage_config sc, F fn)
    : stage_actor(cfg, std::move(sc)), fn_(std::move(fn)) {}

protected:
  behavior make_behavior() override {
    return {
      [this](In& x) -> result<void> {
        message out;
        try {
          if constexpr (std::is_void_v<Out>)
            fn_(std::move(x));
          else
            out = make_message(fn_(std::move(x)));
        } catch (...) {
          return failure(std::current_exception());
        }
        emit_current(std::move(out));
        return delegated<>{};
      },
      [this](close_atom) { on_end_of_stream(); },
      [this](drain_atom) { on_drain(); },
    };
  }

private:
  F fn_;
};

/// Forwards every item to an actor of the user's as a request; the results
/// leave in input order. The mechanism is troupe::detail::actor_stage_core,
/// shared with stream::graph::add_actor; this is the glue for items that
/// come and go as messages.
class actor_stage final : public stage_actor {
public:
  using factory = std::function<actor(actor_system&)>;

  actor_stage(actor_config& cfg, stage_config sc, factory make);

protected:
  behavior make_behavior() override;

private:
  void flush();

  factory make_;
  actor worker_;
  troupe::detail::actor_stage_core<pending_request> core_;
};

template <class R>
struct is_behavior_type : std::false_type {};

template <>
struct is_behavior_type<behavior> : std::true_type {};

template <class... Sigs>
struct is_behavior_type<typed_behavior<Sigs...>> : std::true_type {};

/// The one parameter of a stage's callable.
template <class List>
struct single_arg : std::false_type {};

template <class T>
struct single_arg<troupe::detail::type_list<T>> : std::true_type {
  using type = T;
};

/// Any actor handle as an untyped one.
template <class Handle>
actor to_actor(const Handle& h) {
  return actor{strong_actor_ptr{troupe::detail::handle_ctrl(h)}};
}

template <class F>
inline constexpr bool is_behavior_fn_v
  = is_behavior_type<std::decay_t<typename troupe::detail::callable_trait_t<F>::result_type>>::value;

} // namespace detail

/// A stage running a plain callable `Out(In)`.
template <class F>
class seq_fn {
public:
  using trait = troupe::detail::callable_trait_t<F>;
  static_assert(detail::single_arg<typename trait::arg_types>::value,
                "troupe: seq takes a callable with exactly one parameter");
  using input_type = std::decay_t<typename detail::single_arg<typename trait::arg_types>::type>;
  using output_type = std::decay_t<typename trait::result_type>;

  explicit seq_fn(F fn) : fn_(std::move(fn)) {}

  /// Names the stage in error messages and in the actors' names.
  seq_fn name(std::string x) && {
    name_ = std::move(x);
    return std::move(*this);
  }

  detail::built build(detail::build_context& ctx, detail::route_ptr next,
                      const std::string& path) const {
    return ctx.single<detail::fn_stage<F, input_type, output_type>>(
      detail::join_path(path, name_), std::move(next), fn_);
  }

private:
  F fn_;
  std::string name_ = "seq";
};

/// A stage made of an actor of the user's (one per replica).
class seq_actor {
public:
  using input_type = unknown_type;
  using output_type = unknown_type;

  explicit seq_actor(detail::actor_stage::factory make) : make_(std::move(make)) {}

  seq_actor name(std::string x) && {
    name_ = std::move(x);
    return std::move(*this);
  }

  detail::built build(detail::build_context& ctx, detail::route_ptr next,
                      const std::string& path) const;

private:
  detail::actor_stage::factory make_;
  std::string name_ = "seq";
};

/// A stage from a plain callable, or from a function returning a behavior.
template <class F>
auto seq(F fn) {
  if constexpr (detail::is_behavior_fn_v<F>)
    return seq_actor{[fn = std::move(fn)](actor_system& sys) { return detail::to_actor(sys.spawn(fn)); }};
  else
    return seq_fn<F>{std::move(fn)};
}

/// A stage from an actor class, spawned with `xs` for each replica.
template <class A, class... Ts>
seq_actor seq(Ts... xs) {
  return seq_actor{[... xs = std::move(xs)](actor_system& sys) {
    return detail::to_actor(sys.spawn<A>(xs...));
  }};
}

} // namespace troupe::patterns
