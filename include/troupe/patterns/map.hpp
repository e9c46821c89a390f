#pragma once

// map: applies `fn` in place to slices of a container, in parallel. The
// container comes in as the message (moved, not copied), the workers share
// it, and the request gets it back transformed.
//
//   auto scale = map([](slice<std::vector<double>> s) { for (auto& x : s) x *= 2; });
//   auto shade = map(render_rows, dynamic_partitioning{1});
//
// Partitioning:
//   static_partitioning{}       one equal slice per job (the default)
//   dynamic_partitioning{chunk} jobs take `chunk` elements at a time from a
//                               shared counter until none are left (the last
//                               chunk is clamped to the end): for uneven work
//
// The jobs run on the scheduler's workers (`workers(n)`, default one per
// worker). Concurrent requests each get their own jobs and their own answer.
// An exception in `fn` fails that request with errc::unhandled_exception.

#include "troupe/detail/callable_trait.hpp"
#include "troupe/patterns/detail/job.hpp"
#include "troupe/patterns/detail/pattern.hpp"
#include "troupe/patterns/slice.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace troupe::patterns {

/// One equal slice per job.
struct static_partitioning {};

/// Jobs take `chunk` elements at a time until none are left.
struct dynamic_partitioning {
  size_t chunk = 1;
};

namespace detail {

template <class Container, class F>
struct map_request : request_state {
  Container data;
  const F* fn = nullptr;
  size_t size = 0;
  size_t jobs = 0;
  size_t chunk = 0; // 0: static
  std::atomic<size_t> next{0};
};

template <class Container, class F>
class map_job final : public job {
public:
  map_job(std::shared_ptr<map_request<Container, F>> req, size_t index)
    : req_(std::move(req)), index_(index) {}

protected:
  void run(execution_unit* ctx) override {
    auto& r = *req_;
    try {
      if (r.chunk == 0) {
        auto first = r.size * index_ / r.jobs;
        auto last = r.size * (index_ + 1) / r.jobs;
        if (!r.failed.load(std::memory_order_relaxed))
          (*r.fn)(slice<Container>{r.data, first, last});
      } else {
        for (;;) {
          auto first = r.next.fetch_add(r.chunk, std::memory_order_relaxed);
          if (first >= r.size || r.failed.load(std::memory_order_relaxed))
            break;
          (*r.fn)(slice<Container>{r.data, first, std::min(first + r.chunk, r.size)});
        }
      }
    } catch (...) {
      r.record(std::current_exception());
    }
    r.job_finished(ctx);
  }

private:
  std::shared_ptr<map_request<Container, F>> req_;
  size_t index_;
};

template <class Container, class F>
class map_stage final : public job_stage<map_request<Container, F>> {
public:
  using base = job_stage<map_request<Container, F>>;

  map_stage(actor_config& cfg, stage_config sc, F fn, size_t jobs, size_t chunk)
    : base(cfg, std::move(sc)), fn_(std::move(fn)), jobs_(jobs), chunk_(chunk) {}

protected:
  behavior make_behavior() override {
    return {
      [this](Container& data) -> result<void> {
        auto req = this->open_request();
        req->data = std::move(data);
        req->fn = &fn_;
        req->size = req->data.size();
        req->chunk = chunk_;
        auto workers
          = jobs_ != 0 ? jobs_ : std::max<size_t>(this->system().scheduler().num_workers(), 1);
        auto pieces = chunk_ == 0 ? req->size : (req->size + chunk_ - 1) / chunk_;
        req->jobs = std::min(workers, pieces);
        if (req->jobs == 0) {
          req->tell_done(this->context());
          return delegated<>{};
        }
        req->running.store(req->jobs, std::memory_order_relaxed);
        for (size_t i = 0; i < req->jobs; ++i)
          submit(this->context(), new map_job<Container, F>(req, i));
        return delegated<>{};
      },
      [this](job_done_atom, uint64_t id) { this->on_job_done(id); },
      [this](close_atom) { this->on_end_of_stream(); },
      [this](drain_atom) { this->on_drain(); },
    };
  }

private:
  F fn_;
  size_t jobs_;
  size_t chunk_;
};

} // namespace detail

template <class Container, class F>
class map_pattern {
public:
  using input_type = Container;
  using output_type = Container;

  map_pattern(F fn, size_t chunk) : fn_(std::move(fn)), chunk_(chunk) {}

  /// Number of jobs per request; 0 (the default) means one per worker.
  map_pattern workers(size_t n) && {
    jobs_ = n;
    return std::move(*this);
  }

  map_pattern name(std::string x) && {
    name_ = std::move(x);
    return std::move(*this);
  }

  detail::built build(detail::build_context& ctx, detail::route_ptr next,
                      const std::string& path) const {
    return ctx.single<detail::map_stage<Container, F>>(detail::join_path(path, name_),
                                                       std::move(next), fn_, jobs_, chunk_);
  }

private:
  F fn_;
  size_t chunk_;
  size_t jobs_ = 0;
  std::string name_ = "map";
};

namespace detail {

template <class F>
using map_container_t = typename std::decay_t<typename troupe::detail::type_list_head<
  typename troupe::detail::callable_trait_t<F>::arg_types>::type>::container_type;

} // namespace detail

/// `fn(slice<Container>)` over static slices.
template <class F>
auto map(F fn, static_partitioning = {}) {
  return map_pattern<detail::map_container_t<F>, F>{std::move(fn), 0};
}

/// `fn(slice<Container>)` over chunks handed out as the jobs ask.
template <class F>
auto map(F fn, dynamic_partitioning p) {
  if (p.chunk == 0)
    throw std::invalid_argument("troupe: dynamic_partitioning needs a chunk of at least 1");
  return map_pattern<detail::map_container_t<F>, F>{std::move(fn), p.chunk};
}

} // namespace troupe::patterns
