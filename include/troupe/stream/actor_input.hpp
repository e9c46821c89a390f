#pragma once

// actor_input<T>: a graph's entry for ordinary actors. Its handle() is an
// actor that takes T and hands each to the graph, as a source would emit it:
//
//   auto lines = g.add_actor_input<std::string>();
//   g.connect(lines, split);
//   auto reader = sys.spawn(read_file, lines.handle(), path);
//   g.start();
//   // reader: self->request(lines, infinite, line).then([=] { ...next line... });
//   //         and at the end self->mail(close_atom_v).send(lines);
//
// A request is answered (with no value) once its tuple is in the graph, so
// a producer that waits for the answer, or keeps a window of requests open,
// is paced by the graph: back-pressure reaches the actor without blocking
// its worker. Tuples that find the edge full, or arrive before the graph
// starts, wait in the input in order. close_atom ends the stream once every
// tuple sent before it is in the graph (a request for it is answered then).
// A tuple after close_atom, or after the graph failed, is refused with an
// error; if the input's actor is killed, the graph stops with that reason.

#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/stream/detail/actor_waker.hpp"
#include "troupe/stream/detail/runner.hpp"
#include "troupe/stream/detail/runtime_emitter.hpp"

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>

namespace troupe::stream {

class graph;

namespace detail {

/// What the graph wires and the input's actor writes.
template <class T>
struct input_ports {
  runtime_emitter<T> out;
  actor_waker waker;
  // The graph starting and the actor terminating may meet: the one that
  // comes second sees the other's flag and stops the graph.
  std::mutex mtx;
  bool attached = false; // guarded by mtx
  bool gone = false;     // guarded by mtx
};

template <class T>
class input_bridge final : public event_based_actor {
public:
  input_bridge(actor_config& cfg, std::shared_ptr<graph_state> graph,
               std::shared_ptr<input_ports<T>> ports)
    : event_based_actor(cfg), graph_(std::move(graph)), ports_(std::move(ports)) {}

  const char* name() const noexcept override {
    return "stream actor input";
  }

  behavior make_behavior() override {
    return {
      [this](T& x) -> result<void> {
        if (auto err = refusal())
          return err;
        if (started_ && waiting_.empty() && ports_->out.flush()) {
          ports_->out.emit(std::move(x));
          ports_->out.publish();
          return {};
        }
        auto rp = make_response_promise();
        waiting_.emplace_back(std::move(x), rp);
        return rp;
      },
      [this](close_atom) -> result<void> {
        if (auto err = refusal())
          return err;
        closing_ = make_response_promise();
        closed_ = true;
        auto rp = closing_;
        pump();
        return rp;
      },
      [this](pull_atom) {
        ports_->waker.taken();
        started_ = true;
        pump();
      },
      [this](graph_done_atom, error& reason) {
        // The graph went away without starting.
        refuse_all(reason);
        quit();
      },
    };
  }

  void on_cleanup(const error& reason, execution_unit* ctx) override {
    bool attached;
    {
      std::lock_guard guard{ports_->mtx};
      ports_->gone = true;
      attached = ports_->attached;
    }
    if (!finished_) {
      auto err = reason ? reason : error{exit_reason::unknown};
      err.prepend_context("stream actor input: ");
      refuse_all(err);
      if (attached) {
        graph_->fail(std::move(err));
        leave();
      }
    }
    // The graph keeps the ports and their waker keeps this object: what it
    // holds must go now (the cycle through the graph, promises naming us).
    graph_.reset();
    ports_.reset();
    waiting_.clear();
    closing_ = response_promise{};
    event_based_actor::on_cleanup(reason, ctx);
  }

private:
  /// Why a tuple or close_atom can't be taken now; none if it can.
  error refusal() const {
    if (closed_ || finished_)
      return error{errc::invalid_argument, "stream actor input: sent after close"};
    if (graph_->failed())
      return graph_->reason();
    return {};
  }

  /// Moves waiting tuples into the graph while it has room; ends the
  /// stream once closed and empty.
  void pump() {
    if (finished_ || !started_)
      return;
    auto& out = ports_->out;
    if (graph_->failed()) {
      out.discard();
      refuse_all(graph_->reason());
      leave();
      quit();
      return;
    }
    for (;;) {
      if (!out.flush())
        return; // the consumer wakes us when it has drained half
      if (waiting_.empty())
        break;
      while (!waiting_.empty() && !out.blocked()) {
        auto& [x, rp] = waiting_.front();
        out.emit(std::move(x));
        rp.deliver();
        waiting_.pop_front();
      }
      out.publish();
    }
    if (!closed_)
      return;
    out.close();
    closing_.deliver();
    leave();
    quit();
  }

  void refuse_all(const error& reason) {
    for (auto& [x, rp] : waiting_)
      rp.deliver(reason);
    waiting_.clear();
    if (closing_.pending())
      closing_.deliver(reason);
  }

  void leave() {
    finished_ = true;
    graph_->remove_external(&ports_->waker);
  }

  std::shared_ptr<graph_state> graph_;
  std::shared_ptr<input_ports<T>> ports_;
  std::deque<std::pair<T, response_promise>> waiting_; // not in the graph yet, in order
  response_promise closing_; // answers close_atom once the stream has ended
  bool started_ = false;     // the graph has started (the first pull came)
  bool closed_ = false;      // close_atom came
  bool finished_ = false;    // the stream ended or the graph failed
};

} // namespace detail

template <class T>
class actor_input {
public:
  using output_type = T;

  /// The actor to send tuples (and close_atom) to; valid from the start.
  const actor& handle() const noexcept {
    return handle_;
  }

private:
  // Made and named by the graph builder only.
  friend class graph;

  actor_input(actor handle, size_t id) : handle_(std::move(handle)), id_(id) {}

  size_t id() const noexcept {
    return id_;
  }

  actor handle_;
  size_t id_;
};

} // namespace troupe::stream
