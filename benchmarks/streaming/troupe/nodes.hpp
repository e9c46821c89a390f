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
#include <type_traits>
#include <utility>
#include <vector>

namespace streaming::troupe_stream {

inline void configure(troupe::actor_system_config& cfg, size_t threads) {
  cfg.scheduler.max_threads = threads;
}

/// Whether tuple `i` of a paced source is due: a source returns from
/// generate without emitting until it is, so the runtime can run the nodes
/// downstream on the same worker meanwhile.
inline bool due(const pacer& p, uint64_t i) noexcept {
  return !p.paced() || now_ns() >= p.due(i);
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
    if (!due(pacer_, next_))
      return true; // gives the worker back instead of spinning on it
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

/// Replays its part of an input: replica i (claimed when it starts) emits
/// make(parts[i][k], ts) for k = 0, 1, ..., as the other versions' source
/// replica i does.
template <class Out, class Make>
class partitioned_source : public troupe::stream::source_node<Out> {
public:
  partitioned_source(const std::vector<std::vector<uint32_t>>* parts, std::atomic<size_t>* claimed,
                     uint64_t rate, Make make)
    : parts_(parts), claimed_(claimed), rate_(rate), make_(std::move(make)) {}

  void on_start() override {
    part_ = &(*parts_)[claimed_->fetch_add(1)];
    pacer_ = pacer{rate_};
  }

  bool generate(troupe::stream::emitter<Out>& out) override {
    if (next_ == part_->size())
      return false;
    if (!due(pacer_, next_))
      return true;
    out.emit(make_((*part_)[next_], pacer_.stamp(next_)));
    ++next_;
    return true;
  }

private:
  const std::vector<std::vector<uint32_t>>* parts_;
  std::atomic<size_t>* claimed_;
  uint64_t rate_;
  Make make_;
  const std::vector<uint32_t>* part_ = nullptr;
  pacer pacer_{0};
  size_t next_ = 0;
};

/// What an operator calls to emit: hands the tuple to `out`, which builds
/// it in the ring without a copy on the way.
template <class Out>
auto emit_into(troupe::stream::emitter<Out>& out) {
  return [&out]<class T>(T&& y) {
    if constexpr (std::is_same_v<std::remove_cvref_t<T>, Out>)
      out.emit(std::forward<T>(y));
    else
      out.emit(Out(std::forward<T>(y)));
  };
}

/// One of the study's operator classes (consume(const In&, emit)) as a node.
template <class Op, class In, class Out>
class op_node : public troupe::stream::seq_node<In, Out> {
public:
  template <class... Ts>
  explicit op_node(Ts&&... xs) : op_(std::forward<Ts>(xs)...) {}

  void consume(In&& x, troupe::stream::emitter<Out>& out) override {
    op_.consume(x, emit_into(out));
  }

  void on_stop(troupe::stream::emitter<Out>& out) override {
    auto emit = emit_into(out);
    if constexpr (requires { op_.on_stop(emit); })
      op_.on_stop(emit);
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
