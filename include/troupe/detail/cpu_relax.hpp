#pragma once

// A hint to the CPU that the calling thread is spinning, so that a sibling
// hyper-thread gets the pipeline and the spin loop doesn't flood the memory
// system with speculative loads.

namespace troupe::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield" ::: "memory");
#endif
}

} // namespace troupe::detail
