#pragma once

// emitter<Out>: what a node writes its results into. It belongs to one
// replica of the node, which alone calls it, so it takes no lock: each
// outgoing edge has its own routing state and one ring into each replica of
// the downstream node (the emitter is the "router in the upstream replica"
// of seed 002, the streaming paper: farm -> farm needs no router node in
// between).
//
// A full ring never blocks emit(): the tuple waits in the edge's staging
// buffer, and the node's runner stops taking input and sleeps until the
// downstream replica drained half the ring. So a node may emit any number
// of tuples per input, and memory per edge stays bounded by the ring plus
// what one call of consume emitted.

#include "troupe/routing.hpp"
#include "troupe/stream/detail/spsc_ring.hpp"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

namespace troupe::stream {

namespace detail {

/// Tuples written into a ring before the producer publishes them.
inline constexpr size_t publish_batch = 64;

/// One outgoing edge of one producer replica, for results of type Out.
template <class Out>
class out_edge {
public:
  virtual ~out_edge() = default;

  virtual void emit(Out&& x) = 0;

  virtual void emit_copy(const Out& x) = 0;

  /// What target_below returns when no queue qualifies.
  static constexpr size_t no_target = static_cast<size_t>(-1);

  /// For send_next_if: the ring `x` would go to if its queue holds at most
  /// `max_queued` tuples (round-robin and random: the first such replica
  /// from the one the routing picks; broadcast: any value if every queue
  /// qualifies), or no_target.
  virtual size_t target_below(const Out& x, size_t max_queued) = 0;

  /// Emits `x` into the ring target_below chose.
  virtual void emit_to(size_t target, Out&& x) = 0;

  /// True if tuples wait in the staging buffer.
  virtual bool blocked() const noexcept = 0;

  /// Where the edge counts the tuples it stages, so that the emitter asks
  /// one number per tuple instead of every edge (set by add_edge).
  void count_staged_in(size_t* counter) noexcept {
    staged_total_ = counter;
  }

  /// Moves staged tuples into their rings. False if some still wait: then
  /// the producer is registered for a wake-up when room is made.
  virtual bool flush() = 0;

  /// Whether flush() would make progress now (the ring the first staged
  /// tuple waits for has room).
  virtual bool has_room() = 0;

  virtual void publish() = 0;

  /// No more tuples: publishes and closes every ring.
  virtual void close() = 0;

  /// Drops staged tuples (the graph failed).
  virtual void discard() = 0;

protected:
  size_t* staged_total_ = nullptr;
};

template <class Out, class In, class Routing>
class edge_sender final : public out_edge<Out> {
public:
  static constexpr bool is_broadcast = std::is_same_v<Routing, broadcast>;

  edge_sender(std::vector<spsc_ring<In>*> rings, Routing routing)
    : rings_(std::move(rings)), picker_(make_picker(std::move(routing))) {}

  void emit(Out&& x) override {
    if constexpr (is_broadcast) {
      for (size_t i = 0; i + 1 < rings_.size(); ++i)
        write(i, static_cast<const Out&>(x));
      write(rings_.size() - 1, std::move(x));
    } else {
      // The replica first: the key may live in what the move takes.
      auto i = picker_(x, rings_.size());
      write(i, std::move(x));
    }
  }

  void emit_copy(const Out& x) override {
    if constexpr (is_broadcast) {
      for (size_t i = 0; i < rings_.size(); ++i)
        write(i, x);
    } else {
      write(picker_(x, rings_.size()), x);
    }
  }

  size_t target_below(const Out& x, size_t max_queued) override {
    if (!staged_.empty())
      return out_edge<Out>::no_target;
    auto below = [max_queued](const spsc_ring<In>* r) { return r->size() <= max_queued; };
    if constexpr (is_broadcast) {
      return std::all_of(rings_.begin(), rings_.end(), below) ? 0 : out_edge<Out>::no_target;
    } else if constexpr (std::is_same_v<Routing, round_robin>
                         || std::is_same_v<Routing, random_replica>) {
      // As send_next_if of seed 002 (the streaming paper): try every
      // replica, starting at the one the routing picks.
      auto n = rings_.size();
      auto first = picker_(x, n);
      for (size_t k = 0; k < n; ++k)
        if (below(rings_[(first + k) % n]))
          return (first + k) % n;
      return out_edge<Out>::no_target;
    } else {
      // By key or custom: the tuple has one place to go.
      auto i = picker_(x, rings_.size());
      return below(rings_[i]) ? i : out_edge<Out>::no_target;
    }
  }

  void emit_to(size_t target, Out&& x) override {
    if constexpr (is_broadcast)
      emit(std::move(x));
    else
      write(target, std::move(x));
  }

  bool blocked() const noexcept override {
    return !staged_.empty();
  }

  bool flush() override {
    while (!staged_.empty()) {
      auto& [i, x] = staged_.front();
      if (!rings_[i]->try_write(std::move(x))) {
        rings_[i]->publish();
        if (!rings_[i]->wait_for_room())
          return false;
        continue;
      }
      staged_.pop_front();
      --*this->staged_total_;
    }
    return true;
  }

  bool has_room() override {
    if (staged_.empty())
      return true;
    return rings_[staged_.front().first]->has_room();
  }

  void publish() override {
    for (auto* r : rings_)
      r->publish();
  }

  void close() override {
    for (auto* r : rings_)
      r->close();
  }

  void discard() override {
    *this->staged_total_ -= staged_.size();
    staged_.clear();
  }

private:
  static auto make_picker(Routing routing) {
    if constexpr (is_broadcast)
      return 0; // unused
    else
      return troupe::detail::replica_picker<Out, Routing>{std::move(routing)};
  }

  /// Builds the In tuple from `x` in ring `i`'s next slot, or stages it.
  template <class U>
  void write(size_t i, U&& x) {
    auto* r = rings_[i];
    if (!staged_.empty() || !r->try_write(std::forward<U>(x))) {
      staged_.emplace_back(i, In(std::forward<U>(x)));
      ++*this->staged_total_;
      return;
    }
    if (r->unpublished() >= publish_batch)
      r->publish();
  }

  std::vector<spsc_ring<In>*> rings_; // one per downstream replica
  decltype(make_picker(std::declval<Routing>())) picker_;
  std::deque<std::pair<size_t, In>> staged_; // in emit order
};

/// The emitter as the runtime sees it (stream/detail/runtime_emitter.hpp).
template <class Out>
class runtime_emitter;

} // namespace detail

/// Where a node's results go: every outgoing edge gets each tuple.
template <class Out>
class emitter {
public:
  using value_type = Out;

  emitter() = default;
  emitter(const emitter&) = delete;
  emitter& operator=(const emitter&) = delete;

  /// Sends `x` on along every outgoing edge. The tuple is built in the
  /// ring's slot from `x`, without a copy on the way.
  void emit(Out&& x) {
    ++emitted_;
    auto n = edges_.size();
    for (size_t i = 0; i + 1 < n; ++i)
      edges_[i]->emit_copy(x);
    if (n > 0)
      edges_[n - 1]->emit(std::move(x));
  }

  void emit(const Out& x) {
    ++emitted_;
    for (auto& e : edges_)
      e->emit_copy(x);
  }

  /// Shorthand for emit.
  void operator()(Out&& x) {
    emit(std::move(x));
  }

  void operator()(const Out& x) {
    emit(x);
  }

  /// send_next_if of seed 002 (the streaming paper): emits `x` only if the
  /// queue it would go to holds at most `max_queued` tuples (round-robin
  /// and random edges try every replica's queue first), and returns whether
  /// it did; `x` is left alone otherwise, for the node to keep, retry or
  /// drop as it sees fit.
  /// With several outgoing edges, each must take it.
  bool send_next_if(Out& x, size_t max_queued) {
    constexpr auto none = detail::out_edge<Out>::no_target;
    auto n = edges_.size();
    if (n == 1) {
      auto target = edges_[0]->target_below(x, max_queued);
      if (target == none)
        return false;
      ++emitted_;
      edges_[0]->emit_to(target, std::move(x));
      return true;
    }
    targets_.resize(n); // kept between calls: no allocation per tuple
    for (size_t i = 0; i < n; ++i)
      if ((targets_[i] = edges_[i]->target_below(x, max_queued)) == none)
        return false;
    ++emitted_;
    for (size_t i = 0; i + 1 < n; ++i)
      edges_[i]->emit_to(targets_[i], Out(x));
    if (n > 0)
      edges_[n - 1]->emit_to(targets_[n - 1], std::move(x));
    return true;
  }

private:
  // The runtime's side: reached only through detail::runtime_emitter, which
  // the runtime holds and hands to the node as its base.
  friend class detail::runtime_emitter<Out>;

  void add_edge(std::unique_ptr<detail::out_edge<Out>> e) {
    e->count_staged_in(&staged_);
    edges_.push_back(std::move(e));
  }

  bool has_edges() const noexcept {
    return !edges_.empty();
  }

  /// Calls of emit so far (send_next_if included when it emitted).
  uint64_t emitted() const noexcept {
    return emitted_;
  }

  /// True if tuples wait for room in some edge.
  bool blocked() const noexcept {
    return staged_ != 0;
  }

  bool flush() {
    for (auto& e : edges_)
      if (!e->flush())
        return false;
    return true;
  }

  bool has_room() {
    for (auto& e : edges_)
      if (!e->has_room())
        return false;
    return true;
  }

  void publish() {
    for (auto& e : edges_)
      e->publish();
  }

  void close() {
    for (auto& e : edges_)
      e->close();
  }

  void discard() {
    for (auto& e : edges_)
      e->discard();
  }

  std::vector<std::unique_ptr<detail::out_edge<Out>>> edges_;
  uint64_t emitted_ = 0;
  size_t staged_ = 0; // tuples staged over all edges
  std::vector<size_t> targets_; // send_next_if's scratch: one ring per edge
};

} // namespace troupe::stream
