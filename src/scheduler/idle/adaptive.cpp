#include "adaptive.hpp"

#include "troupe/detail/cpu_relax.hpp"

#include <algorithm>
#include <chrono>

namespace troupe::detail::idle {

namespace {

/// The least a worker spins before it parks (if spin_attempts allows as
/// many): enough to catch work that follows at once.
constexpr size_t min_spin_rounds = 16;

} // namespace

adaptive::adaptive(stealing::core& parent)
  : parent_(parent), slots_(std::make_unique<slot[]>(parent.size())) {
  for (size_t i = 0; i < parent.size(); ++i) {
    slots_[i].spin_budget = parent.cfg.spin_attempts;
    slots_[i].expect = anticipation{parent.cfg.idle_budget};
  }
  sleepers_.reserve(parent.size());
}

TROUPE_HOT std::optional<resumable*> adaptive::search(stealing::worker& w) {
  auto& budget = slots_[w.index()].spin_budget;
  for (size_t round = 0; round < budget; ++round) {
    if (auto job = w.steal_round()) {
      budget = std::min(budget * 2, parent_.cfg.spin_attempts);
      return job;
    }
    detail::cpu_relax();
  }
  auto least = std::min(min_spin_rounds, parent_.cfg.spin_attempts);
  budget = std::max(budget / 2, least);
  return std::nullopt;
}

TROUPE_HOT void adaptive::wake_one() {
  size_t index;
  {
    std::lock_guard guard{sleepers_mtx_};
    // Another enqueuer may have woken one since: a searcher will do.
    if (stealing::num_searching(parent_.idle.load(std::memory_order_relaxed)) != 0
        || sleepers_.empty())
      return;
    index = sleepers_.back(); // The one parked last: its cache is warmest.
    sleepers_.pop_back();
    slots_[index].parked.store(false, std::memory_order_relaxed);
    note_newest_sleeper();
    parent_.idle.fetch_add(stealing::one_searching - stealing::one_parked,
                           std::memory_order_seq_cst);
  }
  slots_[index].parker.unpark();
}

bool adaptive::wake_if_parked(size_t index) {
  // What a parking worker does when it sees work, done for it.
  if (!cancel_park(index))
    return false;
  slots_[index].parker.unpark();
  return true;
}

bool adaptive::cancel_park(size_t index) {
  std::lock_guard guard{sleepers_mtx_};
  auto i = std::find(sleepers_.begin(), sleepers_.end(), index);
  if (i == sleepers_.end())
    return false;
  sleepers_.erase(i);
  slots_[index].parked.store(false, std::memory_order_relaxed);
  note_newest_sleeper();
  parent_.idle.fetch_add(stealing::one_searching - stealing::one_parked,
                         std::memory_order_seq_cst);
  return true;
}

void adaptive::wake_all() {
  std::vector<size_t> parked;
  {
    std::lock_guard guard{sleepers_mtx_};
    parked.swap(sleepers_);
    for (auto index : parked)
      slots_[index].parked.store(false, std::memory_order_relaxed);
    note_newest_sleeper();
    parent_.idle.fetch_add(parked.size() * (stealing::one_searching - stealing::one_parked),
                           std::memory_order_seq_cst);
  }
  for (auto index : parked)
    slots_[index].parker.unpark();
}

TROUPE_HOT std::optional<resumable*> adaptive::block(stealing::worker& w, bool& searching) {
  TROUPE_ASSERT(w.on_own_thread()); // Only a worker parks itself.
  auto& st = parent_;
  auto index = w.index();
  {
    std::lock_guard guard{sleepers_mtx_};
    sleepers_.push_back(index);
    slots_[index].parked.store(true, std::memory_order_relaxed);
    note_newest_sleeper();
    st.idle.fetch_add(stealing::one_parked - stealing::one_searching, std::memory_order_seq_cst);
  }
  searching = false;
  detail::full_fence(); // Order the announcement before the re-check.
  if (st.work_for(w)
      || (st.stopping.load(std::memory_order_relaxed) && st.nobody_runs_a_job())) {
    if (cancel_park(index)) {
      searching = true;
      return std::nullopt; // The loop looks again.
    }
    // A waker took us off sleepers: our parker holds a token.
  }
  sleep(w, slots_[index]);
  searching = true; // The waker counted us as searching.
  return std::nullopt;
}

void adaptive::sleep(stealing::worker& w, slot& s) {
  // Counts each time the thread really blocks: a token taken while spinning
  // is neither a park nor a wake-up.
  auto park = [&] {
    w.counters.parks.bump();
    s.parker.park();
    w.counters.wakeups.bump();
  };
  auto& expect = s.expect;
  if (!expect.enabled()) {
    park();
    return;
  }
  auto now_ns = detail::worker_counters::now_ns;
  // The owner wrote idle_since when it ran out of jobs.
  auto idle_since = w.counters.idle_since.load(std::memory_order_relaxed);
  // Charges the CPU time this thread spent since `cpu` (thread_cpu_ns) to
  // the budget and the counters, and returns it: a thread the kernel
  // preempts spends none meanwhile.
  auto charge_since = [&](int64_t cpu) {
    auto spent = std::max<int64_t>(anticipation::thread_cpu_ns() - cpu, 0);
    expect.charge(spent);
    w.counters.anticipation_ns.add(static_cast<uint64_t>(spent));
    return spent;
  };
  // Parks until woken (true) or until `until` passes (false), in the warm
  // slices the anticipation affords on the way if `slices`. Every timed
  // wake-up is the budget's.
  auto park_warm = [&](std::optional<int64_t> until, bool slices) {
    using clock = std::chrono::steady_clock;
    for (;;) {
      auto now = now_ns();
      if (until && now >= *until)
        return false;
      auto slice = slices ? expect.warm_until(idle_since, now) : std::nullopt;
      bool warming = slice && (!until || *slice < *until);
      if (!warming)
        slice = until;
      if (!slice) {
        park();
        return true;
      }
      auto cpu = anticipation::thread_cpu_ns();
      w.counters.parks.bump();
      bool woken = s.parker.park_until(clock::time_point{std::chrono::nanoseconds{*slice}});
      w.counters.wakeups.bump();
      if (woken)
        return true;
      expect.learn_wake_cost(charge_since(cpu));
      if (warming)
        w.counters.warm_wakeups.bump();
    }
  };
  auto me = w.index() + 1;
  auto plan = newest_sleeper_.load(std::memory_order_relaxed) == me
                ? expect.plan(idle_since, now_ns())
                : std::nullopt;
  if (!plan) {
    park_warm(std::nullopt, true);
    expect.learn_gap(now_ns() - idle_since);
    return;
  }
  auto [begin, end, warm] = *plan;
  // Until the window opens (if it opens later).
  bool woken = begin > now_ns() && park_warm(begin, warm);
  if (!woken) {
    w.counters.anticipations.bump();
    auto cpu = anticipation::thread_cpu_ns();
    auto now = now_ns();
    // Another sleeper parking after this one is the next to be woken.
    for (uint32_t n = 0; now < end; ++n) {
      if ((woken = s.parker.try_take()))
        break;
      detail::cpu_relax();
      if (n % 64 == 63 && newest_sleeper_.load(std::memory_order_relaxed) != me)
        break;
      now = now_ns();
    }
    charge_since(cpu);
  }
  if (!woken)
    park_warm(std::nullopt, true);
  expect.learn_gap(now_ns() - idle_since);
}

} // namespace troupe::detail::idle
