#pragma once

// The micro cases' tuple as a CAF message type, for every CAF program of
// producer_consumer, pipeline3 and slow_sink (plain actors and flows): local
// messages only, so no serialisation; CAF 1.x also needs its type ID.
// Included once per program (a program is one source file).

#include "streaming/caf/actors.hpp"
#include "streaming/common/micro.hpp"

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(streaming::micro::item)

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(streaming_micro, STREAMING_CAF_FIRST_TYPE_ID)
  CAF_ADD_TYPE_ID(streaming_micro, (streaming::micro::item))
CAF_END_TYPE_ID_BLOCK(streaming_micro)
#endif
