// How a work-stealing worker steals: Algorithm 1 of Barghi and Karsten
// (seed 003) for the locality policy, and the polling tiers of Torquati et
// al. (seed 000) for the event and polling idle modes.

#include "worker.hpp"

#include <atomic>
#include <optional>
#include <thread>

namespace troupe::detail::stealing {

// Algorithm 1 of Barghi and Karsten, one round of it per call: the levels
// around this worker nearest first; a level whose victims all look empty
// (their approximate sizes, two loads each, no fence) is skipped at once;
// on a level of the own NUMA node where a single victim has work and more
// than half of the level's workers poll the node, most of them back off
// for this round, so that the one deque isn't hammered by every thief
// (those that go on are about half the level's workers: the paper's bound,
// made random so that somebody always steals); the first victim that has
// work, from a random one on, is tried. Where it differs from the paper:
// the single-victim test looks at the level's ring, not the whole subtree
// (nearer rings were just found empty); remote levels skip empty deques
// too (the paper picks a random victim there), and a round visits each
// level once instead of counting attempts per level (the caller's rounds
// repeat it).
TROUPE_HOT std::optional<resumable*> worker::steal_nearest() {
  auto& loc = *parent_.locality;
  // The thief counts itself as polling its node from the first level with
  // work on: a round that finds every deque empty writes no shared line.
  struct polling_guard {
    std::atomic<uint32_t>& count;
    bool joined = false;
    uint32_t join() noexcept {
      if (!joined) {
        joined = true;
        return count.fetch_add(1, std::memory_order_relaxed) + 1;
      }
      return count.load(std::memory_order_relaxed);
    }
    ~polling_guard() {
      if (joined)
        count.fetch_sub(1, std::memory_order_relaxed);
    }
  } polling{loc.polling[place->numa_node].count};
  auto& ws = parent_.workers;
  auto& levels = place->levels;
  for (size_t lv = 0; lv < levels.size(); ++lv) {
    auto& victims = levels[lv].workers;
    auto n = victims.size();
    if (n == 0)
      continue;
    auto first = next_random() % n;
    size_t with_work = 0;
    size_t found = n;
    for (size_t k = 0; k < n && with_work < 2; ++k) {
      auto i = (first + k) % n;
      if (ws[victims[i]]->has_stealable_work(*this)) {
        if (with_work++ == 0)
          found = i;
      }
    }
    if (with_work == 0)
      continue;
    auto p = polling.join();
    if (with_work == 1 && levels[lv].same_numa_node) {
      auto half = levels[lv].subtree_workers / 2;
      if (p > half && next_random() % p >= half)
        return std::nullopt;
    }
    // The first was seen with work just now; the others are looked at
    // again, as they may have been emptied meanwhile.
    for (size_t k = 0; k < n; ++k) {
      auto& victim = *ws[victims[(found + k) % n]];
      if (k > 0 && !victim.has_stealable_work(*this))
        continue;
      counters.steal_attempts.bump();
      if (auto job = victim.steal_from(*this)) {
        level_steals[lv].bump();
        return stole(job);
      }
    }
  }
  return std::nullopt;
}

std::optional<resumable*> worker::steal_from_random_victim() {
  auto& ws = parent_.workers;
  if (ws.size() < 2)
    return std::nullopt;
  auto& victim = *ws[next_random() % ws.size()];
  if (&victim == this)
    return std::nullopt;
  counters.steal_attempts.bump();
  auto job = victim.deque.steal();
  if (job)
    counters.steals.bump();
  return job;
}

std::optional<resumable*> worker::poll_first_tiers() {
  for (const auto* tier : {&parent_.cfg.aggressive, &parent_.cfg.moderate}) {
    for (size_t i = 0; i < tier->poll_attempts; ++i) {
      if (auto job = next_local())
        return job;
      if (tier->steal_interval > 0 && i % tier->steal_interval == 0)
        if (auto job = steal_from_random_victim())
          return job;
      if (tier->sleep_duration.count() > 0)
        sleep_for(tier->sleep_duration);
    }
  }
  return std::nullopt;
}

void worker::sleep_for(std::chrono::microseconds d) {
  counters.parks.bump();
  std::this_thread::sleep_for(d);
  counters.wakeups.bump();
}

} // namespace troupe::detail::stealing
