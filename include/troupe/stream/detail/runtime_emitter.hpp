#pragma once

// runtime_emitter<Out>: the emitter a runner, an input or a bridge owns. A
// node gets it as its base, emitter<Out>, which offers only emitting; the
// runtime's side (wiring, flushing, publishing, closing) is private there
// and opened here.

#include "troupe/stream/emitter.hpp"

namespace troupe::stream::detail {

template <class Out>
class runtime_emitter final : public emitter<Out> {
public:
  using emitter<Out>::add_edge;
  using emitter<Out>::has_edges;
  using emitter<Out>::emitted;
  using emitter<Out>::blocked;
  using emitter<Out>::flush;
  using emitter<Out>::has_room;
  using emitter<Out>::publish;
  using emitter<Out>::close;
  using emitter<Out>::discard;
};

} // namespace troupe::stream::detail
