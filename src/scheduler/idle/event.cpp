#include "event.hpp"

namespace troupe::detail::idle {

void event::signal_next_sleeper() {
  signal(next_signalled_.fetch_add(1, std::memory_order_relaxed) % parent_.size());
}

void event::signal(size_t index) {
  auto& s = slots_[index];
  std::lock_guard guard{s.mtx};
  if (s.sleeping)
    s.cv.notify_one();
}

void event::wake_all() {
  for (size_t i = 0; i < parent_.size(); ++i) {
    std::lock_guard guard{slots_[i].mtx};
    slots_[i].cv.notify_one();
  }
}

std::optional<resumable*> event::block(stealing::worker& w, bool&) {
  TROUPE_ASSERT(w.on_own_thread()); // Only a worker waits on its event.
  auto& st = parent_;
  auto& s = slots_[w.index()];
  bool timed_out = false;
  {
    std::unique_lock lock{s.mtx};
    s.sleeping = true;
    w.counters.parks.bump();
    auto placed_here = [&w] { return w.affinity != nullptr && w.affinity->size_approx() > 0; };
    while (st.injection.size_approx() == 0 && !placed_here() && !st.done()) {
      if (s.cv.wait_for(lock, st.cfg.wait_timeout) == std::cv_status::timeout) {
        timed_out = true;
        break;
      }
    }
    s.sleeping = false;
    w.counters.wakeups.bump();
  }
  // Signalled: the worker loop takes the job from the injection queue. Timed
  // out: look for work the other workers pushed, which signals nobody.
  if (timed_out)
    return w.steal_round();
  return std::nullopt;
}

} // namespace troupe::detail::idle
