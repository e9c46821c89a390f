#pragma once

// stream::graph: wires sources, nodes and sinks with typed edges, then runs
// them on the actor system's workers.
//
//   troupe::stream::graph g{sys};
//   auto lines = g.add<line_reader>(path);
//   auto split = g.add<splitter>().replicas(2);
//   auto count = g.add<counter>().replicas(2);
//   auto print = g.add<printer>();
//   g.connect(lines, split);                              // round-robin
//   g.connect(split, count, troupe::by_key{[](const std::string& w) { return w; }});
//   g.connect(count, print);
//   if (auto err = g.run())
//     ...
//
// connect checks at compile time that the producer's output type converts
// to the consumer's input type; start() checks the rest (every node that
// takes input has some, every node that emits has somewhere to emit to, no
// cycle) and says what is wrong. Each edge is a set of bounded rings, one
// per pair of producer and consumer replicas, of troupe.stream.edge-capacity
// tuples (per edge: connect(...).capacity(n)). A node fed by several edges
// takes from them in turns.
//
// A running graph is an actor: start() returns its handle, which terminates
// when the graph has finished (exit reason normal) or failed (the error:
// a node threw, or the actor was killed or the system shut down, which
// stops the graph). Links and monitors hear of it once no node runs any
// more. run() is start() and waiting for that.
//
// Threads: build and start a graph from one thread.

#include "troupe/actor.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/error.hpp"
#include "troupe/expected.hpp"
#include "troupe/routing.hpp"
#include "troupe/stream/actor_input.hpp"
#include "troupe/stream/actor_stage.hpp"
#include "troupe/stream/detail/graph_specs.hpp"
#include "troupe/stream/detail/runner.hpp"
#include "troupe/stream/input.hpp"

#include <concepts>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::stream {

class graph;

/// A node added to a graph: configures it, and names it in connect().
template <class N>
class node_ref {
public:
  using input_type = typename N::input_type;
  using output_type = typename N::output_type;

  /// Runs `n` replicas of the node, each its own object (0: one per
  /// scheduler worker). Tuples reach them as the connecting edge's routing
  /// says. (An actor stage is one actor: add a stage per actor instead.)
  node_ref& replicas(size_t n)
    requires(!detail::is_actor_stage_v<N>);

  /// An actor stage: the requests that may wait for their responses (and
  /// for room downstream) at once; default troupe.stream.edge-capacity.
  node_ref& max_in_flight(size_t n)
    requires detail::is_actor_stage_v<N>;

  /// The node's name in errors (default: the order it was added in).
  node_ref& name(std::string x);

  size_t id() const noexcept {
    return id_;
  }

private:
  friend class graph;

  node_ref(graph* g, size_t id) : graph_(g), id_(id) {}

  graph* graph_;
  size_t id_;
};

/// An edge added to a graph.
class edge_ref {
public:
  /// Tuples each of the edge's rings holds (one ring per pair of producer
  /// and consumer replicas); at least 2.
  edge_ref& capacity(size_t n);

private:
  friend class graph;

  edge_ref(graph* g, size_t id) : graph_(g), id_(id) {}

  graph* graph_;
  size_t id_;
};

class graph {
public:
  explicit graph(actor_system& sys);

  graph(const graph&) = delete;
  graph& operator=(const graph&) = delete;

  ~graph();

  /// Adds a node of type N (a seq_node, source_node or sink_node); each
  /// replica is constructed from copies of `xs`.
  template <detail::stream_node N, class... Ts>
  node_ref<N> add(Ts&&... xs) {
    auto spec = std::make_unique<detail::typed_node_spec<N>>();
    spec->make = [args = std::make_tuple(std::decay_t<Ts>(std::forward<Ts>(xs))...)] {
      return std::apply([](const auto&... ys) { return std::make_unique<N>(ys...); }, args);
    };
    spec->takes_input = !std::is_void_v<typename N::input_type>;
    spec->emits = !std::is_void_v<typename N::output_type>;
    return node_ref<N>{this, add_spec(std::move(spec))};
  }

  /// Adds an input that callers outside the graph push tuples into.
  template <class T>
  input<T> add_input() {
    auto spec = std::make_unique<detail::input_spec<T>>();
    spec->state = std::make_shared<detail::input_state<T>>(state_);
    spec->takes_input = false;
    auto state = spec->state;
    auto id = add_spec(std::move(spec));
    return input<T>{std::move(state), id};
  }

  /// Adds an input that actors send tuples to (see actor_input.hpp).
  template <class T>
  actor_input<T> add_actor_input() {
    auto spec = std::make_unique<detail::actor_input_spec<T>>();
    spec->state = state_;
    spec->takes_input = false;
    auto hdl = sys_.spawn<detail::input_bridge<T>>(state_, spec->ports);
    spec->ports->waker.set(hdl);
    spec->bridge = hdl;
    return actor_input<T>{std::move(hdl), add_spec(std::move(spec))};
  }

  /// Adds an actor as a stage (see actor_stage.hpp): each input tuple is a
  /// request to `target`, whose response of type Out is emitted in input
  /// order (Out void: the stage emits nothing). `target` may be typed.
  template <class In, class Out = void, class Handle>
  node_ref<actor_stage<In, Out>> add_actor(const Handle& target) {
    auto spec = std::make_unique<detail::actor_stage_spec<In, Out>>();
    if constexpr (std::is_same_v<Handle, actor>)
      spec->target = target;
    else
      spec->target = target.untyped();
    spec->emits = !std::is_void_v<Out>;
    return node_ref<actor_stage<In, Out>>{this, add_spec(std::move(spec))};
  }

  /// An edge from `from` (a node or an input) to `to`: each output tuple of
  /// `from` reaches one replica of `to`, as `routing` picks (round_robin,
  /// random_replica, by_key, custom), or each replica (broadcast).
  template <class From, class N, class Routing = round_robin>
  edge_ref connect(const From& from, const node_ref<N>& to, Routing routing = {}) {
    using out = typename From::output_type;
    using in = typename N::input_type;
    static_assert(!std::is_void_v<out>, "troupe: a sink emits nothing to connect");
    static_assert(!std::is_void_v<in>, "troupe: a source takes no input");
    static_assert(std::is_convertible_v<out, in>,
                  "troupe: the producer's output type does not convert to the consumer's "
                  "input type");
    using from_spec = spec_of_t<From>;
    edge_spec_wire_fn wire = [routing](detail::node_spec& f, detail::node_spec& t,
                                      detail::graph_state& st, size_t capacity) {
      auto& producers = static_cast<from_spec&>(f);
      auto& consumers = static_cast<spec_of_t<node_ref<N>>&>(t);
      for (size_t p = 0; p < producers.producers(); ++p) {
        std::vector<detail::spsc_ring<in>*> rings;
        for (size_t c = 0; c < consumers.consumers(); ++c) {
          auto* r = st.make_ring<in>(capacity);
          r->connect(producers.producer(p), consumers.consumer(c));
          consumers.add_input(c, r);
          rings.push_back(r);
        }
        producers.emitter_of(p).add_edge(
          std::make_unique<detail::edge_sender<out, in, Routing>>(std::move(rings), routing));
      }
    };
    return edge_ref{this, add_edge(from.id(), to.id(), std::move(wire))};
  }

  /// Starts the graph: its handle, or why it cannot start.
  expected<actor> start();

  /// Starts the graph and waits until it has finished: none, or why it
  /// failed.
  error run();

private:
  template <class N>
  friend class node_ref;
  friend class edge_ref;

  using edge_spec_wire_fn = decltype(detail::edge_spec::wire);

  template <class From>
  struct spec_of;

  template <class M>
  struct spec_of<node_ref<M>> {
    using type = detail::typed_node_spec<M>;
  };

  template <class In, class Out>
  struct spec_of<node_ref<actor_stage<In, Out>>> {
    using type = detail::actor_stage_spec<In, Out>;
  };

  template <class T>
  struct spec_of<input<T>> {
    using type = detail::input_spec<T>;
  };

  template <class T>
  struct spec_of<actor_input<T>> {
    using type = detail::actor_input_spec<T>;
  };

  template <class From>
  using spec_of_t = typename spec_of<From>::type;

  size_t add_spec(std::unique_ptr<detail::node_spec> spec);

  size_t add_edge(size_t from, size_t to, edge_spec_wire_fn wire);

  /// Why the graph can't start; none if it can.
  error check() const;

  actor_system& sys_;
  std::shared_ptr<detail::graph_state> state_;
  std::vector<std::unique_ptr<detail::node_spec>> nodes_;
  std::vector<detail::edge_spec> edges_;
  bool started_ = false;
  error config_error_; // a bad replicas() or capacity(), reported by start()
};

// After start() the graph has handed its nodes over: changes do nothing.

template <class N>
node_ref<N>& node_ref<N>::replicas(size_t n)
  requires(!detail::is_actor_stage_v<N>)
{
  if (id_ < graph_->nodes_.size())
    graph_->nodes_[id_]->replicas = n;
  return *this;
}

template <class N>
node_ref<N>& node_ref<N>::max_in_flight(size_t n)
  requires detail::is_actor_stage_v<N>
{
  if (n == 0) {
    if (!graph_->config_error_)
      graph_->config_error_ = error{errc::invalid_argument,
                                    "stream graph: max_in_flight must be at least 1"};
    return *this;
  }
  if (id_ < graph_->nodes_.size())
    static_cast<graph::spec_of_t<node_ref<N>>&>(*graph_->nodes_[id_]).max_in_flight = n;
  return *this;
}

template <class N>
node_ref<N>& node_ref<N>::name(std::string x) {
  if (id_ < graph_->nodes_.size())
    graph_->nodes_[id_]->name = std::move(x);
  return *this;
}

} // namespace troupe::stream
