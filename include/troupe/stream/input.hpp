#pragma once

// input<T>: a graph's entry for tuples that come from outside it (a thread
// reading a socket, a test, an actor). It is a source node whose producer is
// the caller: push() writes into the edge's rings as a node's emitter does,
// and waits while they are full (back-pressure reaches the caller).
//
//   auto in = g.add_input<std::string>();
//   g.connect(in, split);
//   auto running = g.start();
//   in.push("to be or not to be");
//   in.close(); // end of stream
//
// Threads: push, try_push and close may be called from any thread (one at a
// time: a mutex orders them). An actor must not wait in push (it would
// block its worker): it calls try_push and retries later on false.
// The handle closes the input when it goes away.

#include "troupe/error.hpp"
#include "troupe/stream/detail/runner.hpp"
#include "troupe/stream/detail/runtime_emitter.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>

namespace troupe::stream {

class graph;

namespace detail {

template <class T>
class input_state final : public waker {
public:
  explicit input_state(std::shared_ptr<graph_state> graph) : graph_(std::move(graph)) {}

  ~input_state() override {
    close();
  }

  runtime_emitter<T>& out() noexcept {
    return out_;
  }

  void attach() {
    std::lock_guard guard{mtx_};
    graph_->add_external(this);
    attached_ = true;
  }

  error push(T&& x) {
    std::lock_guard guard{mtx_};
    if (auto err = check())
      return err;
    out_.emit(std::move(x));
    out_.publish();
    while (!out_.flush()) {
      signal_.wait(0, std::memory_order_acquire);
      signal_.store(0, std::memory_order_relaxed);
      if (graph_->failed()) {
        out_.discard();
        return graph_->reason();
      }
    }
    return {};
  }

  bool try_push(T& x, size_t max_queued) {
    std::lock_guard guard{mtx_};
    if (check())
      return false;
    if (!out_.send_next_if(x, max_queued))
      return false;
    out_.publish();
    return true;
  }

  void close() {
    std::lock_guard guard{mtx_};
    if (closed_)
      return;
    closed_ = true;
    if (!attached_)
      return;
    // The tuples still staged go out first (unless the graph failed).
    while (!graph_->failed() && !out_.flush()) {
      signal_.wait(0, std::memory_order_acquire);
      signal_.store(0, std::memory_order_relaxed);
    }
    if (graph_->failed())
      out_.discard();
    else
      out_.close();
    // Last: while added, the graph keeps the runners the rings wake.
    graph_->remove_external(this);
  }

  void wake() override {
    signal_.store(1, std::memory_order_release);
    signal_.notify_one();
  }

private:
  error check() const {
    if (!attached_)
      return error{errc::invalid_argument, "stream input: the graph has not started"};
    if (closed_)
      return error{errc::invalid_argument, "stream input: pushed after close"};
    if (graph_->failed())
      return graph_->reason();
    return {};
  }

  std::shared_ptr<graph_state> graph_;
  std::mutex mtx_;
  runtime_emitter<T> out_;            // guarded by mtx_
  bool attached_ = false;      // guarded by mtx_: set when the graph starts
  bool closed_ = false;        // guarded by mtx_
  std::atomic<uint32_t> signal_{0};
};

} // namespace detail

template <class T>
class input {
public:
  using output_type = T;

  input() = default;
  input(input&&) noexcept = default;
  input& operator=(input&&) noexcept = default;

  /// Closes the input (end of stream) if it is the last handle.
  ~input() = default;

  /// Sends `x` into the graph, waiting while the edge is full. The error
  /// says why it could not: the graph has not started, the input was
  /// closed, or the graph failed (its reason).
  error push(T x) {
    if (!state_)
      return error{errc::invalid_argument, "stream input: no graph"};
    return state_->push(std::move(x));
  }

  /// send_next_if of seed 002 (the streaming paper), for callers that must
  /// not wait (actors): sends `x` only if its queue holds at most
  /// `max_queued` tuples, and says whether it did (`x` is left alone
  /// otherwise).
  bool try_push(T& x, size_t max_queued) {
    return state_ && state_->try_push(x, max_queued);
  }

  /// End of stream: what was pushed still reaches the graph.
  void close() {
    if (state_)
      state_->close();
  }

private:
  // Made and named by the graph builder only.
  friend class graph;

  explicit input(std::shared_ptr<detail::input_state<T>> state, size_t id)
    : state_(std::move(state)), id_(id) {}

  size_t id() const noexcept {
    return id_;
  }

  std::shared_ptr<detail::input_state<T>> state_;
  size_t id_ = 0;
};

} // namespace troupe::stream
