#include "troupe/stream/graph.hpp"

#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/stream/detail/graph_messages.hpp"
#include "troupe/system_messages.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace troupe::stream {

namespace {

/// The actor a running graph is: it terminates with the graph's result,
/// and a graph whose actor terminates first (killed, system shutdown) stops.
class graph_actor final : public event_based_actor {
public:
  graph_actor(actor_config& cfg, std::shared_ptr<detail::graph_state> st)
    : event_based_actor(cfg), state_(std::move(st)) {
    may_hold_exit_notice_ = true;
  }

  behavior make_behavior() override {
    return {
      [this](detail::graph_done_atom, const error& reason) {
        done_ = true;
        quit(reason ? reason : error{exit_reason::normal});
      },
    };
  }

  /// Its nodes run on runners of their own, not in this actor's handlers.
  bool active() const noexcept override {
    return event_based_actor::active() || state_->working();
  }

  /// Input pushed from outside the system shows as runners that ran.
  uint64_t messages_taken() const noexcept override {
    return event_based_actor::messages_taken() + state_->resumes();
  }

  void on_cleanup(const error& reason, execution_unit* ctx) override {
    event_based_actor::on_cleanup(reason, ctx);
    if (done_)
      return;
    // Whoever waits for this actor may free what the nodes touch: it hears
    // of the exit once they stopped.
    hold_exit_notice();
    if (!state_->coordinator_exited(reason ? reason : error{exit_reason::unknown}))
      release_exit_notice(ctx);
  }

private:
  std::shared_ptr<detail::graph_state> state_;
  bool done_ = false;
};

} // namespace

edge_ref& edge_ref::capacity(size_t n) {
  auto& g = *graph_;
  if (n < defaults::stream::min_edge_capacity || n > defaults::stream::max_edge_capacity) {
    if (!g.config_error_)
      g.config_error_ = error{errc::invalid_argument,
                              "stream graph: edge capacity " + std::to_string(n)
                                + " is out of range [2, "
                                + std::to_string(defaults::stream::max_edge_capacity) + "]"};
    return *this;
  }
  if (id_ < g.edges_.size())
    g.edges_[id_].capacity = n;
  return *this;
}

graph::graph(actor_system& sys)
  : sys_(sys),
    state_(std::make_shared<detail::graph_state>(
      sys, sys.config().stream.execution == stream_execution::threads)) {}

graph::~graph() = default;

size_t graph::add_spec(std::unique_ptr<detail::node_spec> spec) {
  auto id = nodes_.size();
  if (spec->name.empty())
    spec->name = "node " + std::to_string(id);
  nodes_.push_back(std::move(spec));
  return id;
}

size_t graph::add_edge(size_t from, size_t to, edge_spec_wire_fn wire) {
  auto id = edges_.size();
  edges_.push_back(detail::edge_spec{from, to, 0, std::move(wire)});
  return id;
}

error graph::check() const {
  auto fail = [](std::string what) {
    return error{errc::invalid_argument, "stream graph: " + std::move(what)};
  };
  if (started_)
    return fail("started already");
  if (config_error_)
    return config_error_;
  if (nodes_.empty())
    return fail("no nodes");
  for (const auto& e : edges_)
    if (e.from >= nodes_.size() || e.to >= nodes_.size())
      return fail("an edge names a node of another graph");
  for (const auto& n : nodes_) {
    if (n->takes_input && n->in_edges == 0)
      return fail("'" + n->name + "' takes input but no edge leads to it");
    if (n->emits && n->out_edges == 0)
      return fail("'" + n->name + "' emits but no edge leads from it");
  }
  // A cycle would never see its end of stream: depth-first search, colours
  // 0 (new), 1 (on the path), 2 (done).
  std::vector<int> colour(nodes_.size(), 0);
  std::vector<std::vector<size_t>> next(nodes_.size());
  for (const auto& e : edges_)
    next[e.from].push_back(e.to);
  std::vector<std::pair<size_t, size_t>> stack;
  for (size_t root = 0; root < nodes_.size(); ++root) {
    if (colour[root] != 0)
      continue;
    stack.emplace_back(root, 0);
    colour[root] = 1;
    while (!stack.empty()) {
      auto& [node, i] = stack.back();
      if (i == next[node].size()) {
        colour[node] = 2;
        stack.pop_back();
        continue;
      }
      auto to = next[node][i++];
      if (colour[to] == 1)
        return fail("a cycle through '" + nodes_[to]->name + "'");
      if (colour[to] == 0) {
        colour[to] = 1;
        stack.emplace_back(to, 0);
      }
    }
  }
  return {};
}

expected<actor> graph::start() {
  // Edge counts first: check() reads them.
  for (auto& n : nodes_)
    n->in_edges = n->out_edges = 0;
  for (const auto& e : edges_) {
    if (e.from < nodes_.size() && e.to < nodes_.size()) {
      ++nodes_[e.from]->out_edges;
      ++nodes_[e.to]->in_edges;
    }
  }
  if (auto err = check())
    return err;
  started_ = true;
  auto workers = std::max<size_t>(sys_.scheduler().num_workers(), 1);
  for (auto& n : nodes_)
    n->build(state_, n->replicas != 0 ? n->replicas : workers);
  for (auto& e : edges_) {
    auto capacity = e.capacity != 0 ? e.capacity : sys_.config().stream.edge_capacity;
    e.wire(*nodes_[e.from], *nodes_[e.to], *state_, capacity);
  }
  auto hdl = sys_.spawn<graph_actor>(state_);
  for (auto& n : nodes_)
    n->attach();
  state_->start(hdl.ptr());
  // The runners and rings live in the graph state now; the inputs belong
  // to their handles alone.
  nodes_.clear();
  edges_.clear();
  return hdl;
}

error graph::run() {
  auto hdl = start();
  if (!hdl)
    return hdl.error();
  scoped_actor self{sys_};
  self->monitor(*hdl);
  error result;
  self->receive([&](down_msg& msg) {
    if (msg.reason != error{exit_reason::normal})
      result = std::move(msg.reason);
  });
  return result;
}

} // namespace troupe::stream
