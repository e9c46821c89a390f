#pragma once

// The runner of one replica of a node type N (a seq_node, source_node or
// sink_node): takes tuples from its input rings in turns, calls the node,
// and stops taking input while its emitter holds staged tuples (a full
// edge), so back-pressure travels upstream ring by ring.
//
// Lifecycle: on_start before the first tuple; once every input ring is
// closed and drained (a source: generate returned false), on_stop, then the
// staged tuples are flushed and the output rings closed, which is the end
// of stream for the nodes downstream.

#include "troupe/stream/detail/runner.hpp"
#include "troupe/stream/detail/runtime_emitter.hpp"
#include "troupe/stream/seq_node.hpp"

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::stream::detail {

/// Input tuples one turn takes from one ring before looking at the next.
inline constexpr size_t turn_batch = 256;

template <class N>
class node_runner final : public runner {
public:
  using input_type = typename N::input_type;
  using output_type = typename N::output_type;

  static constexpr bool is_source = std::is_void_v<input_type>;
  static constexpr bool is_sink = std::is_void_v<output_type>;

  using emitter_type = std::conditional_t<is_sink, int, runtime_emitter<output_type>>;
  using ring_type = spsc_ring<std::conditional_t<is_source, int, input_type>>;

  node_runner(std::shared_ptr<graph_state> graph, std::string name, std::unique_ptr<N> node)
    : runner(std::move(graph), std::move(name)), node_(std::move(node)) {}

  void add_input(ring_type* r) {
    inputs_.push_back(r);
  }

  emitter_type& out() noexcept {
    return out_;
  }

protected:
  step run_some(size_t budget) override {
    if (graph().failed())
      return abandon();
    try {
      if (state_ == state::starting) {
        node_->on_start();
        state_ = state::running;
      }
      if constexpr (!is_sink) {
        if (!out_.flush())
          return step::idle;
      }
      if (state_ == state::running) {
        auto result = is_source ? generate(budget) : consume(budget);
        if (result != step::finished)
          return result;
        state_ = state::stopping;
        if constexpr (is_sink)
          node_->on_stop();
        else
          node_->on_stop(out_);
      }
    } catch (...) {
      fail_with(std::current_exception());
      return abandon();
    }
    // Stopping: the last results go out, then the end of stream.
    if constexpr (!is_sink) {
      if (!out_.flush())
        return step::idle;
      out_.close();
    }
    return step::finished;
  }

private:
  enum class state { starting, running, stopping };

  /// A source's turn: `finished` once generate returned false.
  step generate(size_t budget) {
    if constexpr (is_source) {
      // A failed graph stops at the next call, not at the budget's end: a
      // slow source would keep its monitors waiting for a whole budget.
      for (size_t i = 0; i < budget && !graph().failed(); ++i) {
        auto before = out_.emitted();
        if (!node_->generate(out_)) {
          out_.publish();
          return step::finished;
        }
        if (out_.emitted() == before) {
          // The source has nothing yet (it waits for time or input): what
          // it emitted goes out now, and the worker runs others meanwhile.
          out_.publish();
          return step::more;
        }
        if (out_.blocked()) {
          out_.publish();
          return out_.flush() ? step::more : step::idle;
        }
      }
      out_.publish();
    }
    return step::more;
  }

  /// A node's turn over its inputs: `finished` once all ended.
  step consume(size_t budget) {
    if constexpr (!is_source) {
      size_t done = 0;
      auto n = inputs_.size();
      while (done < budget && !graph().failed()) {
        bool any = false;
        for (size_t k = 0; k < n && done < budget; ++k) {
          auto& r = *inputs_[(next_input_ + k) % n];
          auto take = std::min({r.readable(), budget - done, turn_batch});
          if (take == 0)
            continue;
          any = true;
          size_t i = 0;
          // The node takes the tuple in its slot; the slot is freed after.
          while (i < take) {
            popper pop_after{r};
            ++i;
            if constexpr (is_sink) {
              node_->consume(std::move(r.front()));
            } else {
              node_->consume(std::move(r.front()), out_);
              if (out_.blocked())
                break;
            }
          }
          done += i;
          r.release();
          if constexpr (!is_sink) {
            if (out_.blocked()) {
              out_.publish();
              if (!out_.flush())
                return step::idle;
            }
          }
        }
        ++next_input_;
        if (!any)
          break;
      }
      if constexpr (!is_sink)
        out_.publish();
      // Failed: the next turn abandons.
      if (done == budget || graph().failed())
        return step::more;
      for (auto* r : inputs_)
        if (!r->drained())
          return step::idle;
    }
    return step::finished;
  }

  /// Pops the front tuple of `ring` when it goes, whether consume returned
  /// or threw (the tuple counts as taken either way).
  struct popper {
    ring_type& ring;
    ~popper() {
      ring.pop();
    }
  };

  /// The graph failed: drop everything, finish.
  step abandon() {
    if constexpr (!is_sink)
      out_.discard();
    return step::finished;
  }

  std::unique_ptr<N> node_;
  std::vector<ring_type*> inputs_; // one per upstream replica
  size_t next_input_ = 0;          // the ring the next turn starts at
  emitter_type out_;
  state state_ = state::starting;
};

} // namespace troupe::stream::detail
