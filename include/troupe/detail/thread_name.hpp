#pragma once

// Names threads so that they show up in top, perf and gdb.

#include <cstddef>
#include <thread>

namespace troupe::detail {

/// Names `t` "<prefix>-<index>"; Linux keeps at most 15 characters.
void name_thread(std::thread& t, const char* prefix, size_t index) noexcept;

} // namespace troupe::detail
