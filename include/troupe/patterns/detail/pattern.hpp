#pragma once

// What every pattern type provides (seq, pipeline, farm, map, div_conq):
//
//   using input_type = ...;   // what it takes, or unknown_type
//   using output_type = ...;  // what it answers, void, or unknown_type
//   built build(build_context& ctx, route_ptr next, const std::string& path) const;
//
// build spawns the pattern's actors, wired so that its results go to `next`
// (nullptr: they answer the requests), and returns the route into it.

#include "troupe/patterns/detail/stage.hpp"

#include <string>
#include <type_traits>

namespace troupe::patterns {

/// The input or output type of a stage that the compiler cannot see, such as
/// an untyped actor's.
struct unknown_type {};

template <class P>
concept pattern = requires(const P& p, detail::build_context& ctx, detail::route_ptr next,
                           const std::string& path) {
  typename P::input_type;
  typename P::output_type;
  { p.build(ctx, std::move(next), path) } -> std::same_as<detail::built>;
};

} // namespace troupe::patterns

namespace troupe::patterns::detail {

/// True if `Out` may feed a stage taking `In` (unknown on either side is
/// checked at run time).
template <class Out, class In>
inline constexpr bool feeds_v = std::is_same_v<Out, unknown_type>
                                || std::is_same_v<In, unknown_type>
                                || std::is_same_v<Out, In>;

/// `path` + "/" + `part`, or `part` alone at the top.
inline std::string join_path(const std::string& path, const std::string& part) {
  return path.empty() ? part : path + "/" + part;
}

} // namespace troupe::patterns::detail
