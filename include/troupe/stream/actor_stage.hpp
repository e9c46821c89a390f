#pragma once

// An ordinary actor as a stage of a stream graph (SeqActor of seed 002, the
// streaming paper):
//
//   auto scale = g.add_actor<int64_t, double>(scaler);   // scaler answers int64_t with double
//   auto log = g.add_actor<double>(logger);              // a stage that emits nothing
//   g.connect(src, scale);
//   g.connect(scale, log);
//
// Each tuple becomes a request to the actor; its response is the stage's
// output, emitted in input order. A stage with output void takes the empty
// response as an acknowledgement, so a plain handler `[](double x) { ... }`
// is a sink. At most max_in_flight requests wait for their responses (and
// for room downstream) at once: a slow actor slows the graph down and its
// mailbox stays bounded. An error response (the actor died, did not
// understand the tuple, answered with another type) stops the graph with
// that error, naming the stage.
//
// The stage runs in an actor of its own (the bridge) that reads the input
// rings, sends the requests and writes the output rings, so the target may
// be any actor, in any state: the graph never calls into it. The requests,
// their order and the errors' names are troupe::detail::actor_stage_core,
// shared with the patterns' seq of an actor; the bridge is the glue to the
// rings.

#include "troupe/detail/actor_stage_core.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/stream/detail/actor_waker.hpp"
#include "troupe/stream/detail/runner.hpp"
#include "troupe/stream/detail/runtime_emitter.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::stream {

/// The node type of an actor stage, as node_ref names it.
template <class In, class Out = void>
struct actor_stage {
  static_assert(!std::is_void_v<In>, "troupe: an actor stage takes input");
  using input_type = In;
  using output_type = Out;
};

namespace detail {

/// What the graph wires and the bridge reads: input rings, output edges and
/// the waker. The graph keeps it, so a ring may still wake the bridge
/// after the bridge has gone.
template <class In, class Out>
struct stage_ports {
  std::vector<spsc_ring<In>*> inputs; // one per upstream replica
  std::conditional_t<std::is_void_v<Out>, int, runtime_emitter<Out>> out;
  actor_waker waker;
};

template <class In, class Out>
class stage_bridge final : public event_based_actor {
public:
  static constexpr bool is_sink = std::is_void_v<Out>;

  stage_bridge(actor_config& cfg, std::shared_ptr<graph_state> graph,
               std::shared_ptr<stage_ports<In, Out>> ports, actor target, std::string name,
               size_t max_in_flight)
    : event_based_actor(cfg),
      graph_(std::move(graph)),
      ports_(std::move(ports)),
      target_(std::move(target)),
      core_("stream actor stage " + name, max_in_flight) {}

  const char* name() const noexcept override {
    return "stream actor stage";
  }

  behavior make_behavior() override {
    return {
      [this](pull_atom) {
        ports_->waker.taken();
        pump();
      },
    };
  }

  void on_cleanup(const error& reason, execution_unit* ctx) override {
    if (!finished_) {
      // Killed, or the system shut down: the graph stops with us.
      auto err = reason ? reason : error{exit_reason::unknown};
      core_.name_error(err);
      graph_->fail(std::move(err));
      finish();
    }
    // The graph keeps the ports and their waker keeps this object: what it
    // holds must go now (the cycle through the graph, the target's handle).
    graph_.reset();
    ports_.reset();
    target_ = actor{};
    event_based_actor::on_cleanup(reason, ctx);
  }

private:
  /// A response, or nothing yet.
  struct slot {
    std::optional<Out> answer;

    bool ready() const noexcept {
      return answer.has_value();
    }
  };

  /// A sink stage's: whether the (empty) response came.
  struct ack_slot {
    bool answered = false;

    bool ready() const noexcept {
      return answered;
    }
  };

  /// Emits what came back in order, asks about new tuples, finishes at
  /// the end of stream. Called on every pull and every response.
  void pump() {
    if (finished_)
      return;
    if (graph_->failed()) {
      finish();
      quit();
      return;
    }
    if (!emit_ready())
      return; // the output is full: its consumer wakes us
    auto& inputs = ports_->inputs;
    auto n = inputs.size();
    bool took = true;
    while (took && core_.has_room()) {
      took = false;
      for (size_t k = 0; k < n && core_.has_room(); ++k) {
        auto& r = *inputs[(next_input_ + k) % n];
        if (r.readable() == 0)
          continue;
        ask(std::move(r.front()));
        r.pop();
        took = true;
      }
      ++next_input_;
    }
    for (auto* r : inputs)
      r->release();
    if (!core_.idle())
      return;
    for (auto* r : inputs)
      if (!r->drained())
        return;
    // End of stream: every request answered, every answer out.
    if constexpr (!is_sink)
      ports_->out.close();
    finish();
    quit();
  }

  /// Moves the answers at the front into the output; false if it is full.
  bool emit_ready() {
    if constexpr (is_sink) {
      while (core_.front_ready())
        core_.take_front();
      return true;
    } else {
      auto& out = ports_->out;
      if (!out.flush())
        return false;
      while (core_.front_ready() && !out.blocked())
        out.emit(std::move(*core_.take_front().answer));
      out.publish();
      return out.flush();
    }
  }

  void ask(In&& x) {
    auto on_error = [this](auto&, error& err) {
      graph_->fail(std::move(err));
      pump();
    };
    if constexpr (is_sink) {
      core_.ask(
        this, target_, make_message(std::move(x)), ack_slot{},
        [this](ack_slot& s) {
          s.answered = true;
          pump();
        },
        on_error);
    } else {
      core_.template ask<Out>(
        this, target_, make_message(std::move(x)), slot{},
        [this](slot& s, Out& y) {
          s.answer = std::move(y);
          pump();
        },
        on_error);
    }
  }

  /// Leaves the graph: once, after the output was closed (or the graph
  /// failed; the responses still owed are ignored).
  void finish() {
    finished_ = true;
    if constexpr (!is_sink)
      if (graph_->failed())
        ports_->out.discard();
    graph_->remove_external(&ports_->waker);
    graph_->runner_finished();
  }

  std::shared_ptr<graph_state> graph_;
  std::shared_ptr<stage_ports<In, Out>> ports_;
  actor target_;
  troupe::detail::actor_stage_core<std::conditional_t<is_sink, ack_slot, slot>> core_;
  size_t next_input_ = 0;
  bool finished_ = false;
};

} // namespace detail

} // namespace troupe::stream
