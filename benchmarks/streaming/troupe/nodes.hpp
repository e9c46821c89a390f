#pragma once

// The Troupe streaming versions' building blocks: the study's operators
// (common/) as seq_nodes, a source that replays tuples (paced at --rate,
// else at full speed) and a sink that feeds the study's checksum.

#include "streaming/common/stream.hpp"

#include <troupe/all.hpp>
#include <troupe/stream.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

namespace streaming::troupe_stream {

inline void configure(troupe::actor_system_config& cfg, size_t threads) {
  cfg.scheduler.max_threads = threads;
}

/// Replays `count` tuples made by `make(k, ts)`.
template <class Out, class Make>
class replay_source : public troupe::stream::source_node<Out> {
public:
  replay_source(uint64_t count, uint64_t rate, Make make)
    : count_(count), rate_(rate), make_(std::move(make)) {}

  void on_start() override {
    pacer_ = pacer{rate_}; // the clock starts when the graph does
  }

  bool generate(troupe::stream::emitter<Out>& out) override {
    if (next_ == count_)
      return false;
    out.emit(make_(next_, pacer_.stamp(next_)));
    ++next_;
    return true;
  }

private:
  uint64_t count_;
  uint64_t rate_;
  Make make_;
  pacer pacer_{0};
  uint64_t next_ = 0;
};

/// One of the study's operator classes (consume(const In&, emit)) as a node.
template <class Op, class In, class Out>
class op_node : public troupe::stream::seq_node<In, Out> {
public:
  template <class... Ts>
  explicit op_node(Ts&&... xs) : op_(std::forward<Ts>(xs)...) {}

  void consume(In&& x, troupe::stream::emitter<Out>& out) override {
    op_.consume(x, [&out](Out y) { out.emit(std::move(y)); });
  }

private:
  Op op_;
};

/// Feeds the study's sinks: each replica claims one of `results` when it
/// starts (merged afterwards).
template <class In>
class result_sink : public troupe::stream::sink_node<In> {
public:
  result_sink(std::vector<sink>* results, std::atomic<size_t>* claimed)
    : results_(results), claimed_(claimed) {}

  void on_start() override {
    result_ = &(*results_)[claimed_->fetch_add(1)];
  }

  void consume(In&& x) override {
    result_->consume(x);
  }

private:
  std::vector<sink>* results_;
  std::atomic<size_t>* claimed_;
  sink* result_ = nullptr;
};

/// Runs `g`; false (after printing why) if it failed.
inline bool run(troupe::stream::graph& g) {
  if (auto err = g.run()) {
    std::fprintf(stderr, "the graph failed: %s\n", to_string(err).c_str());
    return false;
  }
  return true;
}

} // namespace streaming::troupe_stream
