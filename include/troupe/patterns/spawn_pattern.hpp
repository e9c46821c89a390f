#pragma once

// spawn_pattern: builds a pattern's actors and returns one handle for all of
// them, an ordinary actor: request it, send to it, link to it, monitor it,
// spawn it detached (`spawn_pattern<detached>(sys, p)`). Where the pattern's
// input and output types are known the handle is typed,
// `typed_actor<result<Out>(In), result<void>(close_atom)>`.
//
// Each request gets its own answer, from whichever stage finishes the item.
// The result of a plain send goes back to its sender, or to `sink` if one is
// given; after `close_atom` the sink (or the sender of the end of
// stream) gets `close_atom` once every earlier item's result is out.
//
// The handle watches the actors of its pattern: if one dies, the handle dies
// with the same reason and takes the rest with it; if the handle is stopped,
// so are they. Once no handle remains, the pattern finishes the items inside
// and stops.

#include "troupe/abstract_actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/patterns/detail/handle_actor.hpp"
#include "troupe/patterns/detail/pattern.hpp"
#include "troupe/typed_actor.hpp"

#include <memory>
#include <string>
#include <type_traits>

namespace troupe::patterns {

namespace detail {

template <class In, class Out>
struct pattern_handle {
  using type = typed_actor<result<Out>(In), result<void>(close_atom)>;
};

template <class In>
struct pattern_handle<In, void> {
  using type = typed_actor<result<void>(In), result<void>(close_atom)>;
};

template <class Out>
struct pattern_handle<unknown_type, Out> {
  using type = actor;
};

template <class In>
struct pattern_handle<In, unknown_type> {
  using type = actor;
};

template <>
struct pattern_handle<unknown_type, unknown_type> {
  using type = actor;
};

} // namespace detail

/// The handle type spawn_pattern returns for `P`.
template <pattern P>
using pattern_handle_t =
  typename detail::pattern_handle<typename P::input_type, typename P::output_type>::type;

template <spawn_options Os = no_spawn_options, pattern P>
pattern_handle_t<P> spawn_pattern(actor_system& sys, const P& p, const actor& sink = {}) {
  using in = typename P::input_type;
  auto st = std::make_shared<detail::handle_state>();
  st->name = "troupe.pattern";
  auto hdl = sys.spawn<detail::handle_actor, Os>(st);
  detail::build_context ctx{sys, hdl.address(), {}};
  auto b = p.build(ctx, nullptr, "");
  detail::set_fan_in(b.entry_fan_in, 1);
  st->entry = std::move(b.entry);
  st->exits = b.exits;
  st->sink = sink.ptr();
  if constexpr (!std::is_same_v<in, unknown_type>) {
    st->accepts = [](const message& msg) { return msg.match_elements<in>(); };
    st->input_names = std::string{type_name_v<in>};
  }
  // Monitored, not linked: a link would take the actors down with the handle
  // at once, where a handle that merely went out of scope drains them.
  for (const auto& a : ctx.actors)
    actor_cast_raw(a)->add_monitor(hdl.address());
  st->actors = std::move(ctx.actors);
  if constexpr (std::is_same_v<pattern_handle_t<P>, actor>)
    return hdl;
  else
    return pattern_handle_t<P>{hdl};
}

} // namespace troupe::patterns
