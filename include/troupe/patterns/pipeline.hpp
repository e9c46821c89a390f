#pragma once

// pipeline: stages in order, each any pattern. Item i+1 may be in stage 1
// while item i is in stage 2. Where both sides' types are known, the compiler
// checks that each stage's output is the next stage's input.
//
//   auto p = pipeline(seq(parse), farm(seq(enrich)), seq(format));

#include "troupe/patterns/detail/pattern.hpp"

#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace troupe::patterns {

template <pattern... Stages>
class pipeline_pattern {
public:
  static_assert(sizeof...(Stages) > 0, "troupe: a pipeline needs at least one stage");

  using stage_types = std::tuple<Stages...>;
  using input_type = typename std::tuple_element_t<0, stage_types>::input_type;
  using output_type =
    typename std::tuple_element_t<sizeof...(Stages) - 1, stage_types>::output_type;

  explicit pipeline_pattern(Stages... stages) : stages_(std::move(stages)...) {
    check_types(std::make_index_sequence<sizeof...(Stages) - 1>{});
  }

  pipeline_pattern name(std::string x) && {
    name_ = std::move(x);
    return std::move(*this);
  }

  detail::built build(detail::build_context& ctx, detail::route_ptr next,
                      const std::string& path) const {
    auto here = detail::join_path(path, name_);
    // Back to front: each stage needs the route into the one after it.
    detail::built result;
    result.exits = build_stage<sizeof...(Stages) - 1>(ctx, std::move(next), here, result);
    return result;
  }

private:
  template <size_t... Is>
  static constexpr void check_types(std::index_sequence<Is...>) {
    (check_pair<Is>(), ...);
  }

  template <size_t I>
  static constexpr void check_pair() {
    using out = typename std::tuple_element_t<I, stage_types>::output_type;
    using in = typename std::tuple_element_t<I + 1, stage_types>::input_type;
    static_assert(!std::is_void_v<out>,
                  "troupe: a pipeline stage returning void can only be the last one");
    static_assert(detail::feeds_v<out, in>,
                  "troupe: a pipeline stage's output type is not the next stage's input type");
  }

  /// Builds stage I, then the stages before it, and returns stage I's exits;
  /// `result` gets stage 0's entry.
  template <size_t I>
  size_t build_stage(detail::build_context& ctx, detail::route_ptr next,
                     const std::string& here, detail::built& result) const {
    auto b = std::get<I>(stages_).build(ctx, std::move(next), here + "[" + std::to_string(I) + "]");
    auto exits = b.exits;
    if constexpr (I == 0) {
      result.entry = std::move(b.entry);
      result.entry_fan_in = std::move(b.entry_fan_in);
    } else {
      // Stage I hears markers from each exit of stage I-1.
      auto cells = std::move(b.entry_fan_in);
      detail::set_fan_in(cells, build_stage<I - 1>(ctx, std::move(b.entry), here, result));
    }
    return exits;
  }

  std::tuple<Stages...> stages_;
  std::string name_ = "pipeline";
};

/// Stages in order; each is any pattern.
template <pattern... Stages>
auto pipeline(Stages... stages) {
  return pipeline_pattern<Stages...>{std::move(stages)...};
}

} // namespace troupe::patterns
