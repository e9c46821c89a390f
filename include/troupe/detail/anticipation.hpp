#pragma once

// Anticipation: how an adaptive worker spends troupe.scheduler.idle-budget
// on being awake when the next work arrives.
//
// Why: a parked thread is woken by an IPI to its CPU, and if that CPU has
// been idle long (on a virtual machine: the hypervisor descheduled it), the
// wake-up costs 15 to 70 us; a worker that spins when the work arrives sees
// it in about a microsecond. Spinning through every gap would cost a core.
//
// What it does: the worker keeps the lengths of its last `samples` idle gaps
// that ended with work (from running out of jobs to being woken). When it
// parks, it looks for the spin window of the length its budget affords that
// holds the most of those gaps. If that window holds most of them, the
// arrivals are predictable (periodic, or bursts in a rhythm): the worker
// parks with a timeout until the window opens, spins on its parker through
// it, and parks until woken if nothing came. Otherwise (random arrivals,
// such as Poisson ones, whose gaps no window short of the whole gap
// catches) it parks at once and spends nothing. A waker may end any of
// these at once: the protocol of adaptive.hpp is unchanged.
//
// The budget: a token bucket of CPU time filled at `budget` ns per ns,
// holding at most budget x max_anticipation. A window is planned to fit the
// tokens, counting its length and, if it opens later, the learned cost of a
// timed wake-up; what it really cost is then taken. So over any span the
// worker spends at most the budget, plus the bucket's depth. Only the
// newest sleeper (the one the next enqueue wakes) anticipates.
//
// Keeping warm: a CPU that stays idle long sinks deeper (a virtual CPU the
// hypervisor halted, its core given to others, its caches cold), and the
// next wake-up there costs several times one after a short park (measured
// on a KVM guest: 3.5 us after 10 ms parked, 15.8 us after 100 ms). A worker
// whose gaps mostly end with work after long parks, random ones included,
// therefore parks in slices of at most warm_interval_ns, paying a timed
// wake-up for each from the same tokens; out of tokens, it parks until
// woken. Each such wake-up is counted (worker_stats::warm_wakeups).
//
// When traffic stops: a window opens, and a slice ends, at most
// max_anticipation after the last job, so from then on an idle process
// makes no wake-ups.
//
// Threads: owner only (one per worker, inside its idle slot).

#include "troupe/defaults.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#ifdef __linux__
#  include <time.h>
#endif

namespace troupe::detail {

class anticipation {
public:
  /// Gaps remembered: enough to see a period, few enough to follow a change.
  static constexpr size_t samples = 32;
  /// Gaps needed before the first window.
  static constexpr size_t min_samples = 4;
  /// The longest single spin.
  static constexpr int64_t max_spin_ns = 5'000'000;
  /// The room left in a window before and after the gaps it holds: a
  /// timed wake-up may come this late on a virtual machine (the kernel's
  /// default timer slack of 50 us plus the hypervisor's delay).
  static constexpr int64_t margin_ns = 100'000;
  /// The shortest gap worth a window. After a shorter one the CPU wakes
  /// fast anyway, and on a machine with few cores a spinner may hold the
  /// very core the sender needs (measured: 12 stages at 1,000 msg/s took
  /// 23 us instead of 16 with windows, 30 instead of 36 at 10 msg/s).
  static constexpr int64_t min_gap_ns = 2'000'000;
  /// The longest a worker that keeps warm parks at a time: short enough
  /// that its CPU stays shallow (see the top), long enough that the timed
  /// wake-ups cost little (25 to 50 us of CPU each on a virtual machine:
  /// 0.3 to 0.5% of a core).
  static constexpr int64_t warm_interval_ns = 10'000'000;

  /// A span of time, in steady-clock nanoseconds; `warm`: the tokens also
  /// pay for parking in warm slices until it opens (else one timed park).
  struct window {
    int64_t begin;
    int64_t end;
    bool warm = false;
  };

  explicit anticipation(double budget = 0) noexcept : budget_(budget) {
  }

  bool enabled() const noexcept {
    return budget_ > 0;
  }

  /// At park: the window to spin in, for a worker idle since `idle_since`,
  /// now `now`; none if the budget or the history has none to offer. The
  /// window fits the tokens; charge() takes what it really cost.
  std::optional<window> plan(int64_t idle_since, int64_t now) noexcept {
    refill(now);
    // Most gaps must be long enough for a window: checked in O(1), as a
    // busy worker parks and plans thousands of times a second.
    if (!mostly_long_gaps())
      return std::nullopt;
    std::array<int64_t, samples> xs;
    std::copy_n(gaps_.begin(), count_, xs.begin());
    std::sort(xs.begin(), xs.begin() + static_cast<ptrdiff_t>(count_));
    auto elapsed = now - idle_since;
    auto horizon = std::chrono::nanoseconds{defaults::scheduler::max_anticipation}.count();
    // The densest window of width `span` among the gaps still ahead.
    auto best = [&](int64_t span, size_t& first, size_t& last) {
      size_t hits = 0;
      for (size_t i = 0, j = 0; i < count_; ++i) {
        if (xs[i] < std::max(elapsed, min_gap_ns) || xs[i] > horizon)
          continue;
        j = std::max(j, i);
        while (j + 1 < count_ && xs[j + 1] - xs[i] <= span && xs[j + 1] <= horizon)
          ++j;
        if (j - i + 1 > hits) {
          hits = j - i + 1;
          first = i;
          last = j;
        }
      }
      return hits;
    };
    auto span = std::min(tokens_ns_, max_spin_ns);
    size_t first = 0;
    size_t last = 0;
    // A window must hold most gaps: then work is predictable (periodic, or
    // bursts in a rhythm); random arrivals get none and cost nothing.
    if (span <= 0 || best(span, first, last) * 2 <= count_)
      return std::nullopt;
    // No wider than the gaps it holds plus a margin each side, centred on
    // them and not before the present.
    span = std::min(span, xs[last] - xs[first] + 2 * margin_ns);
    auto slack = span - (xs[last] - xs[first]);
    auto begin = std::max(xs[first] - slack / 2, elapsed);
    auto end = begin + span;
    int64_t cost = 0;
    bool warm = false;
    if (begin - elapsed > wake_cost_ns_) {
      // It opens later: a timed wake-up first, paid from the same tokens;
      // one per warm slice on the way if the tokens pay for them all.
      auto slices = (begin - elapsed + warm_interval_ns - 1) / warm_interval_ns;
      cost = wake_cost_ns_ + (end - begin);
      auto sliced = cost + wake_cost_ns_ * (slices - 1);
      warm = sliced <= tokens_ns_;
      if (warm)
        cost = sliced;
    } else {
      // Too soon to sleep for: spin from now on.
      begin = elapsed;
      cost = end - begin;
    }
    if (cost > tokens_ns_) {
      end -= cost - tokens_ns_;
      if (end <= begin)
        return std::nullopt;
    }
    return window{idle_since + begin, idle_since + end, warm};
  }

  /// At park, and again at the end of each slice: when a worker idle since
  /// `idle_since`, now `now`, should wake to keep its CPU warm; none if it
  /// should park until woken (no budget, no history of long gaps, past
  /// max_anticipation, or no tokens left for the wake-up). charge() takes
  /// what the wake-up cost.
  std::optional<int64_t> warm_until(int64_t idle_since, int64_t now) noexcept {
    refill(now);
    auto horizon = std::chrono::nanoseconds{defaults::scheduler::max_anticipation}.count();
    if (!mostly_long_gaps() || now - idle_since >= horizon || tokens_ns_ < wake_cost_ns_)
      return std::nullopt;
    return std::min(now + warm_interval_ns, idle_since + horizon);
  }

  /// What the timed wake-up before a window cost the worker's CPU.
  void learn_wake_cost(int64_t cpu_ns) noexcept {
    wake_cost_ns_ += (std::max<int64_t>(cpu_ns, 1) - wake_cost_ns_) / 4;
  }

  /// Takes `ns` of CPU time spent on a window from the bucket.
  void charge(int64_t ns) noexcept {
    tokens_ns_ -= std::max<int64_t>(ns, 0);
  }

  /// An idle gap of `ns` ended with work.
  void learn_gap(int64_t ns) noexcept {
    if (count_ == samples && gaps_[next_] >= min_gap_ns)
      --long_gaps_;
    if (ns >= min_gap_ns)
      ++long_gaps_;
    gaps_[next_] = ns;
    next_ = (next_ + 1) % samples;
    count_ = std::min(count_ + 1, samples);
  }

  /// CPU time of the calling thread, in nanoseconds.
  static int64_t thread_cpu_ns() noexcept {
#ifdef __linux__
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
#else
    return 0;
#endif
  }

private:
  /// Most of the remembered gaps were long ones: work keeps coming after
  /// parks long enough for a window, and long enough to go cold.
  bool mostly_long_gaps() const noexcept {
    return enabled() && count_ >= min_samples && long_gaps_ * 2 > count_;
  }

  int64_t depth_ns() const noexcept {
    auto horizon = std::chrono::nanoseconds{defaults::scheduler::max_anticipation};
    return static_cast<int64_t>(budget_ * static_cast<double>(horizon.count()));
  }

  void refill(int64_t now) noexcept {
    if (refilled_at_ns_ != 0) {
      auto earned = budget_ * static_cast<double>(now - refilled_at_ns_);
      tokens_ns_ = std::min(tokens_ns_ + static_cast<int64_t>(earned), depth_ns());
    }
    refilled_at_ns_ = now;
  }

  double budget_;
  /// CPU nanoseconds the worker may still spend; see the top.
  int64_t tokens_ns_ = 0;
  int64_t refilled_at_ns_ = 0;
  /// What a timed wake-up costs the worker, starting from a virtual machine's.
  int64_t wake_cost_ns_ = 20'000;
  /// The last gaps, a ring; count_ of them are valid.
  std::array<int64_t, samples> gaps_{};
  size_t next_ = 0;
  size_t count_ = 0;
  /// How many of them are at least min_gap_ns.
  size_t long_gaps_ = 0;
};

} // namespace troupe::detail
