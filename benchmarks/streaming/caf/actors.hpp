#pragma once

// The CAF versions' building blocks (CAF 0.17 and 1.x, through
// common/caf_compat.hpp), the same as troupe-actors/actors.hpp: written the
// way a CAF user writes a stream with plain actors: one event-based actor per
// operator replica, one message per tuple, and the sending actor picks the
// replica of the next operator (round robin, by key or all), so no router
// actor sits in between. Mailboxes are unbounded, as plain actors' are. A
// source sends 256 tuples per turn, then a message to itself, so that it
// shares its worker; paced, it sends the tuples that are due and waits for
// the next with a delayed message (or a message to itself when it is
// closer than 200 us). End of stream: a source sends `end_atom` to every
// replica of the next operator, and an operator that has one from every
// replica upstream flushes (on_stop), passes it on and quits. Each sink
// fills a `streaming::sink` of main's and tells main when it is done.

#include "common/caf_compat.hpp"
#include "streaming/common/stream.hpp"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(streaming_actors, caf::first_custom_type_id)
  CAF_ADD_ATOM(streaming_actors, end_atom)
  CAF_ADD_ATOM(streaming_actors, continue_atom)
  CAF_ADD_ATOM(streaming_actors, done_atom)
CAF_END_TYPE_ID_BLOCK(streaming_actors)

// A program's own block of tuple types starts here.
#  define STREAMING_CAF_FIRST_TYPE_ID caf::id_block::streaming_actors::end

/// Registers the atoms' and the program's types (CAF 1.x needs it before
/// the actor system starts; 0.17 needs nothing for local messages).
#  define STREAMING_CAF_INIT(block)                                           \
    (caf::init_global_meta_objects<caf::id_block::streaming_actors>(),        \
     caf::init_global_meta_objects<caf::id_block::block>(),                   \
     caf::core::init_global_meta_objects())
#else
using end_atom = caf::atom_constant<caf::atom("end")>;
using continue_atom = caf::atom_constant<caf::atom("continue")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
constexpr end_atom end_atom_v{};
constexpr continue_atom continue_atom_v{};
constexpr done_atom done_atom_v{};
#  define STREAMING_CAF_INIT(block) static_cast<void>(0)
#endif

namespace streaming::actors {

using actor_list = std::vector<caf::actor>;

enum class route { forward, by_key, broadcast };

template <class T>
struct is_variant : std::false_type {};

template <class... Ts>
struct is_variant<std::variant<Ts...>> : std::true_type {};

/// The replicas of the next operator and how a tuple of type T reaches
/// them. A variant is sent as the alternative it holds.
template <class T>
class output {
public:
  using key_function = uint64_t (*)(const T&);

  output(actor_list replicas, route how, key_function key = nullptr)
    : replicas_(std::move(replicas)), how_(how), key_(key) {}

  void send(caf::event_based_actor* self, const T& x) {
    switch (how_) {
      case route::forward:
        deliver(self, replicas_[next_], x);
        next_ = next_ + 1 == replicas_.size() ? 0 : next_ + 1;
        break;
      case route::by_key:
        deliver(self, replicas_[replica_of(key_(x), replicas_.size())], x);
        break;
      case route::broadcast:
        for (const auto& r : replicas_)
          deliver(self, r, x);
        break;
    }
  }

  void end(caf::event_based_actor* self) {
    for (const auto& r : replicas_)
      caf_compat::tell(self, r, end_atom_v);
  }

private:
  static void deliver(caf::event_based_actor* self, const caf::actor& dest, const T& x) {
    if constexpr (is_variant<T>::value)
      std::visit([&](const auto& alternative) { caf_compat::tell(self, dest, alternative); }, x);
    else
      caf_compat::tell(self, dest, x);
  }

  actor_list replicas_;
  route how_;
  key_function key_;
  size_t next_ = 0;
};

/// Several outputs that all get every tuple (e.g. LinearRoad's dispatcher).
template <class... Outputs>
class fan_out {
public:
  explicit fan_out(Outputs... outs) : outs_(std::move(outs)...) {}

  template <class T>
  void send(caf::event_based_actor* self, const T& x) {
    std::apply([&](auto&... out) { (out.send(self, x), ...); }, outs_);
  }

  void end(caf::event_based_actor* self) {
    std::apply([&](auto&... out) { (out.end(self), ...); }, outs_);
  }

private:
  std::tuple<Outputs...> outs_;
};

template <class Op, class Emit, class = void>
struct has_on_stop : std::false_type {};

template <class Op, class Emit>
struct has_on_stop<Op, Emit,
                   std::void_t<decltype(std::declval<Op&>().on_stop(std::declval<Emit&>()))>>
  : std::true_type {};

/// One replica of an operator: a handler per input type, each calling the
/// operator's consume, whose outputs go to `Out`.
template <class Op, class Out, class... Ins>
class node : public caf::event_based_actor {
public:
  node(caf::actor_config& cfg, size_t upstream, Out out)
    : caf::event_based_actor(cfg), upstream_(upstream), out_(std::move(out)) {}

public:
  caf::behavior make_behavior() override {
    return {
      [this](const Ins& x) { op_.consume(x, emitter{this}); }...,
      [this](end_atom) {
        if (--upstream_ > 0)
          return;
        if constexpr (has_on_stop<Op, emitter>::value) {
          emitter emit{this};
          op_.on_stop(emit);
        }
        out_.end(this);
        quit();
      },
    };
  }

private:
  struct emitter {
    node* self;

    template <class T>
    void operator()(const T& x) const {
      self->out_.send(self, x);
    }
  };

  Op op_;
  size_t upstream_;
  Out out_;
};

/// A source replica: `count` tuples made by `make(k, ts)`, paced to `rate`
/// tuples/s (0: full speed), or until `*stop` when there is one (then it
/// writes how many it sent to `*sent` before it ends the stream).
template <class Out, class Make>
class source : public caf::event_based_actor {
public:
  source(caf::actor_config& cfg, uint64_t count, uint64_t rate, Out out, Make make,
         const std::atomic<bool>* stop = nullptr, uint64_t* sent = nullptr)
    : caf::event_based_actor(cfg), count_(count), rate_(rate), out_(std::move(out)),
      make_(std::move(make)), stop_(stop), sent_(sent) {}

  static constexpr size_t chunk = 256;

public:
  caf::behavior make_behavior() override {
    pace_ = pacer{rate_}; // the clock starts with the first turn
    caf_compat::tell(this, caf::actor_cast<caf::actor>(this), continue_atom_v);
    return {
      [this](continue_atom) { step(); },
    };
  }

private:
  void step() {
    auto now = pace_.paced() ? now_ns() : 0;
    for (size_t i = 0; i < chunk && k_ < count_; ++i, ++k_) {
      if (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) {
        count_ = k_;
        break;
      }
      if (pace_.paced()) {
        if (pace_.due(k_) > now)
          break;
        out_.send(this, make_(k_, now_ns()));
      } else {
        out_.send(this, make_(k_, 0));
      }
    }
    if (k_ == count_) {
      if (sent_ != nullptr)
        *sent_ = k_;
      out_.end(this);
      quit();
      return;
    }
    auto wait = pace_.paced() ? pace_.due(k_) - now_ns() : 0;
    auto me = caf::actor_cast<caf::actor>(this);
    if (wait > 200'000) {
      std::chrono::nanoseconds delay{wait};
#if CAF_MAJOR_VERSION >= 1
      mail(continue_atom_v).delay(delay).send(me);
#else
      delayed_send(me, delay, continue_atom_v);
#endif
    } else {
      caf_compat::tell(this, me, continue_atom_v);
    }
  }

  uint64_t count_;
  uint64_t k_ = 0;
  uint64_t rate_;
  pacer pace_{0};
  Out out_;
  Make make_;
  const std::atomic<bool>* stop_;
  uint64_t* sent_;
};

/// Spawns a source replica (see source).
template <class Out, class Make>
caf::actor spawn_source(caf::actor_system& sys, uint64_t count, uint64_t rate, Out out,
                           Make make, const std::atomic<bool>* stop = nullptr,
                           uint64_t* sent = nullptr) {
  return sys.spawn<source<Out, Make>>(count, rate, std::move(out), std::move(make), stop, sent);
}

/// A sink replica: fills `result`, then tells `done`.
template <class In>
class sink_node : public caf::event_based_actor {
public:
  sink_node(caf::actor_config& cfg, size_t upstream, sink* result, caf::actor done)
    : caf::event_based_actor(cfg), upstream_(upstream), result_(result),
      done_(std::move(done)) {}

public:
  caf::behavior make_behavior() override {
    return {
      [this](const In& x) { result_->consume(x); },
      [this](end_atom) {
        if (--upstream_ > 0)
          return;
        caf_compat::tell(this, done_, done_atom_v);
        quit();
      },
    };
  }

private:
  size_t upstream_;
  sink* result_;
  caf::actor done_;
};

/// Spawns `count` replicas of an actor type with the same arguments.
template <class Actor, class... Ts>
actor_list spawn_replicas(caf::actor_system& sys, size_t count, const Ts&... xs) {
  actor_list result;
  for (size_t i = 0; i < count; ++i)
    result.push_back(sys.spawn<Actor>(xs...));
  return result;
}

/// The actor system of a run: --threads workers.
inline void configure(caf::actor_system_config& cfg, size_t threads) {
  caf_compat::set_max_threads(cfg, threads);
}

/// Spawns one sink replica per element of `results`.
template <class In>
actor_list spawn_sinks(caf::actor_system& sys, size_t upstream, std::vector<sink>& results,
                       caf::scoped_actor& self) {
  actor_list result;
  for (auto& r : results)
    result.push_back(sys.spawn<sink_node<In>>(upstream, &r, caf::actor{self}));
  return result;
}

/// Waits for the `count` sinks' done messages.
inline void await_sinks(caf::scoped_actor& self, size_t count) {
  for (size_t i = 0; i < count; ++i)
    self->receive([](done_atom) {});
}

} // namespace streaming::actors
