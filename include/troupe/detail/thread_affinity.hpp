#pragma once

// Pins scheduler workers to CPUs (troupe.scheduler.pin-workers).

#include <cstddef>
#include <thread>

namespace troupe::detail {

/// Pins `t` to the `index`-th CPU this process may run on (modulo their
/// number), so that workers spread over the allowed CPUs in order. Logs a
/// warning and leaves the thread unpinned where that fails or is not
/// supported.
void pin_thread(std::thread& t, size_t index) noexcept;

} // namespace troupe::detail
