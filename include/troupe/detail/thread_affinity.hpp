#pragma once

// Pins scheduler workers to CPUs (troupe.scheduler.pin-workers, and the
// locality policy on this machine's topology).

#include <cstddef>
#include <thread>

namespace troupe::detail {

/// Pins `t` to the `index`-th CPU this process may run on (modulo their
/// number), so that workers spread over the allowed CPUs in order. Logs a
/// warning and leaves the thread unpinned where that fails or is not
/// supported.
void pin_thread(std::thread& t, size_t index) noexcept;

/// Pins worker `index`, running on `t`, to CPU `cpu` (an OS index), with a
/// warning where that fails.
void pin_thread_to(std::thread& t, int cpu, size_t index) noexcept;

} // namespace troupe::detail
