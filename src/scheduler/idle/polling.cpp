#include "polling.hpp"

namespace troupe::detail::idle {

std::optional<resumable*> polling::block(stealing::worker& w, bool&) {
  TROUPE_ASSERT(w.on_own_thread());
  // The own queues were looked at by the worker loop; steal, then sleep.
  const auto& tier = parent_.cfg.relaxed;
  auto& looks = slots_[w.index()].relaxed_looks;
  if (tier.steal_interval > 0 && looks++ % tier.steal_interval == 0) {
    if (auto job = w.steal_from_random_victim())
      return job;
  }
  if (tier.sleep_duration.count() > 0)
    w.sleep_for(tier.sleep_duration);
  return std::nullopt;
}

} // namespace troupe::detail::idle
