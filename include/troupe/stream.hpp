#pragma once

// Typed streaming (layer 6): seq_node, source_node and sink_node operators,
// wired into a graph with typed bounded edges and back-pressure; actors as
// inputs and stages. See examples/word_count.cpp.

#include "troupe/routing.hpp"
#include "troupe/stream/actor_input.hpp"
#include "troupe/stream/actor_stage.hpp"
#include "troupe/stream/emitter.hpp"
#include "troupe/stream/graph.hpp"
#include "troupe/stream/input.hpp"
#include "troupe/stream/seq_node.hpp"
