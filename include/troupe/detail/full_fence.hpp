#pragma once

// A sequentially consistent fence for the store-then-load (Dekker) patterns
// of the schedulers and the Chase-Lev deque: "publish work, fence, look for
// sleepers" against "announce sleep, fence, look for work".
//
// ThreadSanitizer does not model std::atomic_thread_fence (GCC warns with
// -Wtsan). Under TSan the fence becomes an acq_rel RMW on one global word:
// all such RMWs are totally ordered and each synchronizes with the one before
// it, so of two threads that each store, fence and load, the second to fence
// sees the first one's store. That is the guarantee the fence gives, stated
// in happens-before terms TSan understands. The global word would be a
// contended cache line, so other builds keep the real fence.

#include <atomic>

#if defined(__SANITIZE_THREAD__)
#  define TROUPE_DETAIL_TSAN 1
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define TROUPE_DETAIL_TSAN 1
#  endif
#endif

namespace troupe::detail {

#ifdef TROUPE_DETAIL_TSAN
inline std::atomic<unsigned> tsan_fence_word{0};
#endif

inline void full_fence() noexcept {
#ifdef TROUPE_DETAIL_TSAN
  tsan_fence_word.fetch_add(1, std::memory_order_acq_rel);
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

} // namespace troupe::detail
