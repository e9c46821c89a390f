#pragma once

// TROUPE_HOT marks the functions every message passes through: send,
// enqueue, schedule, wake-up, resume, consume. GCC places hot functions
// side by side (in .text.hot), so a message that arrives after the process
// slept, when caches and TLBs are cold, touches fewer code pages and lines.
// Measured on the 12-stage pipeline at 10 msg/s: about 1 us of 34 us
// end to end (benchmarks/latency).

#if defined(__GNUC__)
#  define TROUPE_HOT [[gnu::hot]]
#else
#  define TROUPE_HOT
#endif
