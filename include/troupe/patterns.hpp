#pragma once

// Parallel patterns as actors (seq, pipeline, farm, map, div_conq): see the
// README's "Parallel patterns" section and examples/patterns.cpp.

#include "troupe/patterns/div_conq.hpp"
#include "troupe/patterns/farm.hpp"
#include "troupe/patterns/map.hpp"
#include "troupe/patterns/pipeline.hpp"
#include "troupe/patterns/seq.hpp"
#include "troupe/patterns/slice.hpp"
#include "troupe/patterns/spawn_pattern.hpp"
