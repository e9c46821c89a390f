#pragma once

// What the event and polling idle modes share: Algorithm 1's first two
// polling tiers (aggressive, moderate) as their search, and per-worker slots.

#include "mode.hpp"

#include <cstdint>
#include <memory>
#include <optional>

namespace troupe::detail::idle {

/// The search of the event and polling modes: the first tiers once, then
/// nothing until the worker has a job again (block() polls the last tier).
class first_tiers {
public:
  std::optional<resumable*> search(stealing::worker& w) {
    if (in_last_tier_)
      return std::nullopt;
    auto job = w.poll_first_tiers();
    in_last_tier_ = !job;
    return job;
  }

  /// The worker has a job again: the next search starts at the first tier.
  void reset() noexcept {
    in_last_tier_ = false;
  }

private:
  /// Owner only. Stays set until the worker has a job again (the last tier
  /// is a dead end).
  bool in_last_tier_ = false;
};

/// The base of a tiered idle mode; `Slot` is its per-worker state, with a
/// `tiers` member and reset() for when the worker has a job again.
template <class Slot>
class tiered {
public:
  explicit tiered(stealing::core& parent)
    : parent_(parent), slots_(std::make_unique<Slot[]>(parent.size())) {
  }

  std::optional<resumable*> search(stealing::worker& w) {
    return slots_[w.index()].tiers.search(w);
  }

  void found_work(stealing::worker& w, uint64_t) {
    slots_[w.index()].reset();
  }

protected:
  stealing::core& parent_;

  /// One per worker, by index.
  std::unique_ptr<Slot[]> slots_;
};

} // namespace troupe::detail::idle
