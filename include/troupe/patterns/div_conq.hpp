#pragma once

// div_conq: divide and conquer over ranges of a shared container (or over
// any problem type of the user's), in place.
//
//   auto sort = div_conq(
//     [](slice<V> s) { return partition_in_two(s); },            // divide
//     [](slice<V>&, std::span<slice<V>>) {},                     // combine
//     [](slice<V> s) { std::sort(s.begin(), s.end()); },         // base_case
//     [](const slice<V>& s) { return s.size() <= 2000; });       // is_base
//
// The problem type R is base_case's parameter: with R = slice<C> the pattern
// takes a C (moved in) and answers with it; with any other R it takes an R
// and answers with it. divide returns the sub-problems (any range of R);
// combine gets the problem and its sub-problems once all are solved.
//
// The recursion runs as jobs on the scheduler's workers: a job divides, hands
// every sub-problem but the first to its worker's queue (thieves take the
// oldest, i.e. the largest), and goes on with the first itself, so a worker
// walks depth first and never waits; the last sub-problem to finish combines
// its parent. Below the cutoff a problem is solved sequentially on the worker
// it landed on.

#include "troupe/detail/callable_trait.hpp"
#include "troupe/patterns/detail/job.hpp"
#include "troupe/patterns/detail/pattern.hpp"
#include "troupe/patterns/slice.hpp"

#include <atomic>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::patterns {

namespace detail {

/// What a div_conq over problems R takes: the container of a slice, or R.
template <class R>
struct dc_input {
  using type = R;
};

template <class Container>
struct dc_input<slice<Container>> {
  using type = Container;
};

/// The functions of a div_conq, shared by its stage and all its jobs.
template <class R, class Divide, class Combine, class Base, class IsBase>
struct dc_functions {
  Divide divide;
  Combine combine;
  Base base_case;
  IsBase is_base;
};

template <class R>
struct dc_node {
  R problem;
  dc_node* parent;
  std::vector<R> parts;
  std::atomic<size_t> pending;

  dc_node(R p, dc_node* up, std::vector<R> xs)
    : problem(std::move(p)), parent(up), parts(std::move(xs)), pending(parts.size()) {}
};

template <class Input, class R, class Fns>
struct dc_request : request_state {
  Input data;
  const Fns* fns = nullptr;
};

template <class Input, class R, class Fns>
class dc_job final : public job {
public:
  using request = dc_request<Input, R, Fns>;

  dc_job(std::shared_ptr<request> req, R problem, dc_node<R>* parent)
    : req_(std::move(req)), problem_(std::move(problem)), parent_(parent) {}

protected:
  void run(execution_unit* ctx) override {
    auto& r = *req_;
    auto& f = *r.fns;
    auto problem = std::move(problem_);
    auto* parent = parent_;
    for (;;) {
      if (r.failed.load(std::memory_order_relaxed))
        break;
      try {
        if (f.is_base(std::as_const(problem))) {
          f.base_case(problem);
          break;
        }
        auto divided = f.divide(problem);
        std::vector<R> parts;
        if constexpr (std::is_same_v<std::decay_t<decltype(divided)>, std::vector<R>>)
          parts = std::move(divided);
        else
          parts.assign(std::make_move_iterator(std::begin(divided)),
                       std::make_move_iterator(std::end(divided)));
        if (parts.empty()) {
          // Nothing to split into: the problem combines from no parts.
          f.combine(problem, std::span<R>{});
          break;
        }
        auto* node = new dc_node<R>(std::move(problem), parent, std::move(parts));
        for (size_t i = node->parts.size() - 1; i > 0; --i)
          submit(ctx, new dc_job(req_, node->parts[i], node));
        problem = node->parts[0];
        parent = node;
      } catch (...) {
        r.record(std::current_exception());
        break;
      }
    }
    complete(parent, ctx);
  }

private:
  /// One sub-problem of `node` is solved: the last one combines the node and
  /// moves up; past the root the request is done.
  void complete(dc_node<R>* node, execution_unit* ctx) {
    auto& r = *req_;
    while (node != nullptr) {
      if (node->pending.fetch_sub(1, std::memory_order_acq_rel) != 1)
        return;
      if (!r.failed.load(std::memory_order_relaxed)) {
        try {
          r.fns->combine(node->problem, std::span<R>{node->parts});
        } catch (...) {
          r.record(std::current_exception());
        }
      }
      auto* up = node->parent;
      delete node;
      node = up;
    }
    r.tell_done(ctx);
  }

  std::shared_ptr<request> req_;
  R problem_;
  dc_node<R>* parent_;
};

template <class Input, class R, class Fns>
class dc_stage final : public job_stage<dc_request<Input, R, Fns>> {
public:
  using request = dc_request<Input, R, Fns>;
  using base = job_stage<request>;

  dc_stage(actor_config& cfg, stage_config sc, std::shared_ptr<const Fns> fns)
    : base(cfg, std::move(sc)), fns_(std::move(fns)) {}

protected:
  behavior make_behavior() override {
    return {
      [this](Input& data) -> result<void> {
        auto req = this->open_request();
        req->data = std::move(data);
        req->fns = fns_.get();
        submit(this->context(), new dc_job<Input, R, Fns>(req, root_of(req->data), nullptr));
        return delegated<>{};
      },
      [this](job_done_atom, uint64_t id) { this->on_job_done(id); },
      [this](close_atom) { this->on_end_of_stream(); },
      [this](drain_atom) { this->on_drain(); },
    };
  }

private:
  static R root_of(Input& data) {
    if constexpr (is_slice<R>::value)
      return R{data};
    else
      return data;
  }

  std::shared_ptr<const Fns> fns_;
};

} // namespace detail

template <class R, class Divide, class Combine, class Base, class IsBase>
class div_conq_pattern {
public:
  using problem_type = R;
  using input_type = typename detail::dc_input<R>::type;
  using output_type = input_type;
  using functions = detail::dc_functions<R, Divide, Combine, Base, IsBase>;

  explicit div_conq_pattern(functions fns)
    : fns_(std::make_shared<const functions>(std::move(fns))) {}

  div_conq_pattern name(std::string x) && {
    name_ = std::move(x);
    return std::move(*this);
  }

  detail::built build(detail::build_context& ctx, detail::route_ptr next,
                      const std::string& path) const {
    return ctx.single<detail::dc_stage<input_type, R, functions>>(
      detail::join_path(path, name_), std::move(next), fns_);
  }

private:
  std::shared_ptr<const functions> fns_;
  std::string name_ = "div_conq";
};

/// Divide and conquer; the problem type is base_case's parameter type.
template <class Divide, class Combine, class Base, class IsBase>
auto div_conq(Divide divide, Combine combine, Base base_case, IsBase is_base) {
  using R = std::decay_t<typename troupe::detail::type_list_head<
    typename troupe::detail::callable_trait_t<Base>::arg_types>::type>;
  using pattern_type = div_conq_pattern<R, Divide, Combine, Base, IsBase>;
  return pattern_type{typename pattern_type::functions{std::move(divide), std::move(combine),
                                                       std::move(base_case),
                                                       std::move(is_base)}};
}

} // namespace troupe::patterns
