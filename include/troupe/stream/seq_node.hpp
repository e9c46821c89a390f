#pragma once

// The operators of a stream graph. Derive from one and override its
// functions; the runtime calls them from one thread at a time per replica,
// so a node's state needs no lock. Each replica is its own object.
//
//   struct splitter : troupe::stream::seq_node<std::string, std::string> {
//     void consume(std::string&& line, troupe::stream::emitter<std::string>& out) override {
//       for (auto word : split(line))
//         out.emit(std::string{word});
//     }
//   };
//
// seq_node<In, Out>   takes tuples of type In, emits zero or more Out per
//                     tuple (consume) and more when its input ended (on_stop)
// source_node<Out>    generates tuples until generate() returns false
// sink_node<In>       takes tuples and emits nothing
//
// An exception thrown from any of these functions stops the whole graph;
// the error (errc::unhandled_exception, naming the node) is what whoever
// waits for the graph gets.

#include "troupe/stream/emitter.hpp"

namespace troupe::stream {

template <class In, class Out>
class seq_node {
public:
  using input_type = In;
  using output_type = Out;

  virtual ~seq_node() = default;

  /// Called once, before the first tuple.
  virtual void on_start() {}

  /// Called for each input tuple, in the order this replica receives them.
  virtual void consume(In&& x, emitter<Out>& out) = 0;

  /// Called once, after the last input tuple (end of stream).
  virtual void on_stop(emitter<Out>&) {}
};

template <class Out>
class source_node {
public:
  using input_type = void;
  using output_type = Out;

  virtual ~source_node() = default;

  virtual void on_start() {}

  /// Emits the next tuples (any number); false when the stream has ended.
  /// A source runs on the scheduler's workers: the runtime calls generate
  /// again and again, and yields the worker now and then. A call that
  /// emits nothing (nothing is due yet) yields the worker at once, so a
  /// source that waits should return instead of spinning.
  virtual bool generate(emitter<Out>& out) = 0;

  virtual void on_stop(emitter<Out>&) {}
};

template <class In>
class sink_node {
public:
  using input_type = In;
  using output_type = void;

  virtual ~sink_node() = default;

  virtual void on_start() {}

  virtual void consume(In&& x) = 0;

  virtual void on_stop() {}
};

} // namespace troupe::stream
