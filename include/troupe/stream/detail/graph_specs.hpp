#pragma once

// What stream::graph keeps of its nodes and edges until start(): the
// builder's side, out of the public header.

#include "troupe/actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/error.hpp"
#include "troupe/stream/actor_input.hpp"
#include "troupe/stream/actor_stage.hpp"
#include "troupe/stream/detail/node_runner.hpp"
#include "troupe/stream/detail/runner.hpp"
#include "troupe/stream/detail/runtime_emitter.hpp"
#include "troupe/stream/input.hpp"
#include "troupe/stream/seq_node.hpp"

#include <concepts>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace troupe::stream {

namespace detail {

/// A node as the builder keeps it until start().
struct node_spec {
  std::string name;
  size_t replicas = 1;
  bool takes_input = true;
  bool emits = true;
  size_t in_edges = 0;
  size_t out_edges = 0;

  virtual ~node_spec() = default;

  /// Creates the runners.
  virtual void build(const std::shared_ptr<graph_state>& st, size_t replicas) = 0;

  /// Once the edges are wired: an input starts taking pushes.
  virtual void attach() {}
};

template <class N>
struct typed_node_spec final : node_spec {
  std::function<std::unique_ptr<N>()> make;
  std::vector<node_runner<N>*> runners; // after build; the graph state owns them

  void build(const std::shared_ptr<graph_state>& st, size_t n) override {
    for (size_t i = 0; i < n; ++i) {
      auto* r = new node_runner<N>(st, name + "[" + std::to_string(i) + "]", make());
      st->add(r);
      runners.push_back(r);
    }
  }

  size_t producers() const noexcept {
    return runners.size();
  }

  waker* producer(size_t i) noexcept {
    return runners[i];
  }

  auto& emitter_of(size_t i) noexcept {
    return runners[i]->out();
  }

  size_t consumers() const noexcept {
    return runners.size();
  }

  waker* consumer(size_t i) noexcept {
    return runners[i];
  }

  template <class In>
  void add_input(size_t i, spsc_ring<In>* r) {
    runners[i]->add_input(r);
  }
};

template <class T>
struct input_spec final : node_spec {
  std::shared_ptr<input_state<T>> state;

  void build(const std::shared_ptr<graph_state>&, size_t) override {}

  void attach() override {
    state->attach();
    state.reset(); // the input<T> handles alone keep it
  }

  size_t producers() const noexcept {
    return 1;
  }

  waker* producer(size_t) noexcept {
    return state.get();
  }

  runtime_emitter<T>& emitter_of(size_t) noexcept {
    return state->out();
  }
};

/// An actor as a stage: one bridge actor, spawned when the graph starts.
template <class In, class Out>
struct actor_stage_spec final : node_spec {
  actor target;
  size_t max_in_flight = 0; // 0: not set, troupe.stream.edge-capacity
  std::shared_ptr<stage_ports<In, Out>> ports = std::make_shared<stage_ports<In, Out>>();

  void build(const std::shared_ptr<graph_state>& st, size_t) override {
    st->keep(ports);
    auto limit = max_in_flight != 0 ? max_in_flight
                                    : st->system().config().stream.edge_capacity;
    auto hdl = st->system().spawn<stage_bridge<In, Out>>(st, ports, target, name, limit);
    ports->waker.set(hdl);
    st->add_member(&ports->waker, true);
  }

  size_t producers() const noexcept {
    return 1;
  }

  waker* producer(size_t) noexcept {
    return &ports->waker;
  }

  auto& emitter_of(size_t) noexcept {
    return ports->out;
  }

  size_t consumers() const noexcept {
    return 1;
  }

  waker* consumer(size_t) noexcept {
    return &ports->waker;
  }

  void add_input(size_t, spsc_ring<In>* r) {
    ports->inputs.push_back(r);
  }
};

/// An input for actors: its actor exists from add_actor_input on, so
/// tuples may come before the graph starts.
template <class T>
struct actor_input_spec final : node_spec {
  std::shared_ptr<graph_state> state;
  std::shared_ptr<input_ports<T>> ports = std::make_shared<input_ports<T>>();
  actor bridge;
  bool attached = false;

  ~actor_input_spec() override {
    if (!attached && bridge)
      anon_send(bridge, graph_done_atom{},
                error{errc::invalid_argument,
                      "stream actor input: its graph was destroyed before it started"});
  }

  void build(const std::shared_ptr<graph_state>& st, size_t) override {
    st->keep(ports);
  }

  void attach() override {
    attached = true;
    std::lock_guard guard{ports->mtx};
    if (ports->gone) {
      state->fail(error{errc::invalid_argument,
                        "stream actor input: its actor terminated before the graph started"});
      return;
    }
    ports->attached = true;
    state->add_member(&ports->waker, false);
  }

  size_t producers() const noexcept {
    return 1;
  }

  waker* producer(size_t) noexcept {
    return &ports->waker;
  }

  runtime_emitter<T>& emitter_of(size_t) noexcept {
    return ports->out;
  }
};

struct edge_spec {
  size_t from;
  size_t to;
  size_t capacity; // 0: the configured default
  std::function<void(node_spec& from, node_spec& to, graph_state& st, size_t capacity)> wire;
};

template <class N>
inline constexpr bool is_actor_stage_v = false;

template <class In, class Out>
inline constexpr bool is_actor_stage_v<actor_stage<In, Out>> = true;

/// The node types a graph takes.
template <class N>
concept stream_node = requires {
  typename N::input_type;
  typename N::output_type;
} && (std::derived_from<N, seq_node<typename N::input_type, typename N::output_type>>
      || std::derived_from<N, source_node<typename N::output_type>>
      || std::derived_from<N, sink_node<typename N::input_type>>);

} // namespace detail

} // namespace troupe::stream
