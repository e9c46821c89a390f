#pragma once

// Actor types a program may spawn by name, as CAF's add_actor_type: what
// troupe::net's remote_spawn starts on another node.
//
//   cfg.add_actor_type("calculator", calculator_impl);   // any spawnable function
//   ...
//   auto calc = mm.remote_spawn<calculator>(node, "calculator", 2s);
//
// The arguments of a spawn by name come as a message and must be exactly
// the function's parameters (after its self pointer, if it takes one).

#include "troupe/actor_system.hpp"
#include "troupe/actor_system_config.hpp"
#include "troupe/detail/callable_trait.hpp"
#include "troupe/detail/interface.hpp"
#include "troupe/message.hpp"

#include <string>
#include <type_traits>
#include <utility>

namespace troupe {

namespace detail {

/// The arguments spawn() passes `F` after its self pointer.
template <class F, bool HasSelf = spawn_fun_trait<F>::has_self>
struct spawn_arguments {
  using type = typename callable_trait_t<F>::decayed_arg_types;
};

template <class F>
struct spawn_arguments<F, true> {
  using type = typename type_list_tail<typename callable_trait_t<F>::decayed_arg_types>::type;
};

template <class F, class... Args>
actor_system_config::actor_factory make_actor_factory(std::string name, F fn, type_list<Args...>) {
  return [name = std::move(name), fn = std::move(fn)](actor_system& sys,
                                                     const message& args) -> expected<spawned_actor> {
    if (!args.match_elements<Args...>())
      return make_error(errc::invalid_argument,
                        "actor type '" + name + "' takes (" + type_names(type_list<Args...>{})
                          + "), not " + to_string(args));
    auto hdl = [&]<size_t... Is>(std::index_sequence<Is...>) {
      return sys.spawn(fn, args.get_as<Args>(Is)...);
    }(std::index_sequence_for<Args...>{});
    return spawned_actor{strong_actor_ptr{handle_ctrl(hdl)},
                         interface_of<std::decay_t<decltype(hdl)>>()};
  };
}

} // namespace detail

template <class F>
actor_system_config& actor_system_config::add_actor_type(std::string name, F fn) {
  auto factory = detail::make_actor_factory(name, std::move(fn),
                                            typename detail::spawn_arguments<F>::type{});
  add_actor_factory(std::move(name), std::move(factory));
  return *this;
}

} // namespace troupe
