#pragma once

// pipeline: stages in order, each any pattern. Item i+1 may be in stage 1
// while item i is in stage 2. Where both sides' types are known, the compiler
// checks that each stage's output is the next stage's input.
//
//   auto p = pipeline(seq(parse), farm(seq(enrich)), seq(format));
//
// feedback(pred) closes a loop: a result for which pred holds goes back into
// the first stage instead of out, so an item goes round until the user's
// condition lets it leave; feedback<I>(pred) sends it back into stage I, so
// the stages before I run once per item and the rest run every round.
// Markers (end of stream) wait until no item is inside the loop.
//
//   auto collatz = pipeline(seq(step)).feedback([](const state& s) { return s.n != 1; });
//   auto refine = pipeline(seq(parse), seq(improve)).feedback<1>(not_good_enough);

#include "troupe/detail/callable_trait.hpp"
#include "troupe/patterns/detail/loop.hpp"
#include "troupe/patterns/detail/pattern.hpp"

#include <functional>
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

  /// Sends a result back into stage `To` (the first by default) while
  /// `pred(result)` holds.
  template <size_t To = 0, class Pred>
  pipeline_pattern feedback(Pred pred) && {
    static_assert(To < sizeof...(Stages), "troupe: feedback<I> needs a stage I of the pipeline");
    using arg = std::decay_t<typename troupe::detail::type_list_head<
      typename troupe::detail::callable_trait_t<Pred>::arg_types>::type>;
    using target_input = typename std::tuple_element_t<To, stage_types>::input_type;
    static_assert(detail::feeds_v<output_type, arg> && detail::feeds_v<arg, target_input>,
                  "troupe: feedback needs a pipeline whose results it can feed back into "
                  "the stage it names (the condition takes the output type, which is that "
                  "stage's input type)");
    again_ = [pred = std::move(pred)](const message& msg) {
      return msg.match_elements<arg>() && pred(msg.get_as<arg>(0));
    };
    loop_to_ = To;
    return std::move(*this);
  }

  detail::built build(detail::build_context& ctx, detail::route_ptr next,
                      const std::string& path) const {
    auto here = detail::join_path(path, name_);
    // Back to front: each stage needs the route into the one after it.
    detail::built result;
    detail::loop_state_ptr loop;
    if (again_) {
      loop = std::make_shared<detail::loop_state>();
      loop->again = again_;
      loop->handle = ctx.handle;
      next = std::make_unique<detail::loop_exit>(loop, std::move(next));
    }
    result.exits = build_stage<sizeof...(Stages) - 1>(ctx, std::move(next), here, result, loop);
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
  /// `result` gets stage 0's entry. With a loop, the loop's entry wraps the
  /// entry of the stage results go back to.
  template <size_t I>
  size_t build_stage(detail::build_context& ctx, detail::route_ptr next, const std::string& here,
                     detail::built& result, const detail::loop_state_ptr& loop) const {
    auto b = std::get<I>(stages_).build(ctx, std::move(next), here + "[" + std::to_string(I) + "]");
    if (loop && I == loop_to_) {
      loop->first = std::move(b.entry);
      b.entry = std::make_unique<detail::loop_entry>(loop);
    }
    auto exits = b.exits;
    if constexpr (I == 0) {
      result.entry = std::move(b.entry);
      result.entry_fan_in = std::move(b.entry_fan_in);
    } else {
      // Stage I hears markers from each exit of stage I-1.
      auto cells = std::move(b.entry_fan_in);
      detail::set_fan_in(cells, build_stage<I - 1>(ctx, std::move(b.entry), here, result, loop));
    }
    return exits;
  }

  std::tuple<Stages...> stages_;
  std::string name_ = "pipeline";
  std::function<bool(const message&)> again_;
  size_t loop_to_ = 0; // the stage again_ sends results back to
};

/// Stages in order; each is any pattern.
template <pattern... Stages>
auto pipeline(Stages... stages) {
  return pipeline_pattern<Stages...>{std::move(stages)...};
}

} // namespace troupe::patterns
