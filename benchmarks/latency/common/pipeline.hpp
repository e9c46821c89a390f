#pragma once

// The pipeline of the paper's Fig. 5 without the actors, which each system
// writes in its own API: the command line, the generator's pacing, where the
// actors put their timestamps, and the JSON lines at the end.
//
//   generator -> stage 1 -> ... -> stage N -> collector
//
// A message is two timestamps: t_gen, taken by the generator just before it
// sends, and t_hop, the clock reading that began this hop: the generator's
// t_gen, or the sending stage's reading at the start of its handler. The
// receiver of a hop reads the clock when its handler starts; the difference
// is the hop's latency, filed by kind (Table II of the paper):
//
//   g2p  generator -> stage 1 (a blocking actor's thread to an event-based one)
//   rcv  event-based stage K-1 -> detached stage K
//   snd  detached stage K -> stage K+1 (or the collector if K = N)
//   act  every other hop: event-based -> event-based, collector included
//
// The collector subtracts t_gen from its own clock reading: the end-to-end
// latency. Each stage quits after forwarding the last message and the
// collector after receiving it, so the pipeline ends only once every sample
// is in. Before the measured messages, warm-up messages (both timestamps
// warmup_mark) go through one at a time and are not recorded. Plain C++17.

#include "latency/common/command_line.hpp"
#include "latency/common/measure.hpp"

#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace latency {

/// How the generator spaces its messages: periodic, one every 1 / rate; or
/// Poisson, gaps drawn from the exponential distribution of mean 1 / rate
/// (independent arrivals, as from many clients).
enum class arrival_kind { periodic, poisson };

struct pipeline_options {
  uint64_t stages = 0;
  uint64_t rate = 0;
  double duration = 0;
  /// The detached stage (1-based); 0 for none.
  uint64_t detached = 0;
  size_t threads = 0;
  std::string config;
  /// The least time in microseconds between two wake-ups of the generator.
  uint64_t wake_gap_us = default_wake_gap_us;
  arrival_kind arrivals = arrival_kind::periodic;
  /// Seeds the Poisson gaps: one seed, one sequence of gaps.
  uint64_t seed = default_seed;
  /// rate * duration, rounded.
  uint64_t messages = 0;

  /// The kernel's default timer slack: the precision a thread's timed sleeps
  /// get unless it asks for more.
  static constexpr uint64_t default_wake_gap_us = 50;
  static constexpr uint64_t default_seed = 1;

  /// "stages=12,rate=10" plus ",detached=8" when a stage is detached,
  /// ",wake-gap-us=G" when the gap is not the default, and
  /// ",arrivals=poisson" (",seed=N" when not the default) for Poisson
  /// arrivals. Periodic runs keep the names they had before there was a
  /// choice, so old results compare with new ones.
  std::string case_name() const {
    auto result = "stages=" + std::to_string(stages) + ",rate=" + std::to_string(rate);
    if (detached != 0)
      result += ",detached=" + std::to_string(detached);
    if (wake_gap_us != default_wake_gap_us)
      result += ",wake-gap-us=" + std::to_string(wake_gap_us);
    if (arrivals == arrival_kind::poisson) {
      result += ",arrivals=poisson";
      if (seed != default_seed)
        result += ",seed=" + std::to_string(seed);
    }
    return result;
  }
};

inline constexpr const char* pipeline_usage
  = "--stages=N --rate=R --duration=S [--detached=K] [--threads=T] [--config=NAME] "
    "[--wake-gap-us=G] [--arrivals=periodic|poisson] [--seed=N]";

/// Reads the flags every system's pipeline program shares; `configs` names
/// the system's configurations, the default first. Does not call finish():
/// a program may read flags of its own first.
inline pipeline_options read_pipeline_options(command_line& cl,
                                              const std::vector<std::string>& configs) {
  pipeline_options result;
  result.stages = cl.integer("stages", nullptr, 1, 1000);
  result.rate = cl.integer("rate", nullptr, 1, 10'000'000);
  result.duration = cl.seconds("duration", nullptr, 3600);
  const uint64_t none = 0;
  if (cl.has("detached")) {
    // Stage 1 receives from the generator, not from an event-based stage.
    if (result.stages < 2)
      cl.fail("--detached needs at least 2 stages");
    result.detached = cl.integer("detached", &none, 2, result.stages);
  }
  const uint64_t all_cpus = usable_cpus();
  result.threads = static_cast<size_t>(cl.integer("threads", &all_cpus, 1, 1024));
  result.config = cl.choice("config", configs);
  const uint64_t default_gap = pipeline_options::default_wake_gap_us;
  result.wake_gap_us = cl.integer("wake-gap-us", &default_gap, 0, 1'000'000);
  if (cl.choice("arrivals", {"periodic", "poisson"}) == "poisson")
    result.arrivals = arrival_kind::poisson;
  if (cl.has("seed") && result.arrivals != arrival_kind::poisson)
    cl.fail("--seed applies to --arrivals=poisson only");
  const uint64_t default_seed = pipeline_options::default_seed;
  result.seed = cl.integer("seed", &default_seed, 0, UINT64_MAX);
  auto messages = std::llround(static_cast<double>(result.rate) * result.duration);
  if (messages < 2 || messages > 50'000'000)
    cl.fail("--rate times --duration must give from 2 to 50,000,000 messages, not "
            + std::to_string(messages));
  result.messages = static_cast<uint64_t>(messages);
  return result;
}

/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014; Vigna's reference code): integer arithmetic
/// only, so a seed gives the same numbers with every compiler and standard
/// library, which std::exponential_distribution does not promise.
class splitmix64 {
public:
  explicit splitmix64(uint64_t seed) noexcept : state_(seed) {}

  uint64_t next() noexcept {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
  }

  /// Uniform in (0, 1): the top 53 bits plus a half, so never 0 (whose
  /// logarithm is infinite) and never 1.
  double uniform() noexcept {
    return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53;
  }

private:
  uint64_t state_;
};

/// When the generator sends each message, in nanoseconds after the first.
/// Periodic: message k at k / rate. Poisson: each deadline is the previous
/// one plus an exponential gap, -ln(u) / rate for u uniform in (0, 1), so
/// the deadlines stay absolute (a late send does not push back the ones
/// after it) and the mean rate holds.
class arrival_schedule {
public:
  explicit arrival_schedule(const pipeline_options& opts) noexcept
    : arrivals_(opts.arrivals), rate_(opts.rate), random_(opts.seed) {}

  /// The offset of the next message; 0 for the first.
  int64_t next() noexcept {
    auto k = count_++;
    if (arrivals_ == arrival_kind::periodic)
      return static_cast<int64_t>(k * 1'000'000'000 / rate_);
    // A double keeps the sum within a nanosecond for far longer than a run.
    if (k > 0)
      offset_ns_ += -std::log(random_.uniform()) * 1e9 / static_cast<double>(rate_);
    return std::llround(offset_ns_);
  }

private:
  arrival_kind arrivals_;
  uint64_t rate_;
  splitmix64 random_;
  uint64_t count_ = 0;
  double offset_ns_ = 0;
};

enum class hop_kind { g2p, act, rcv, snd };

/// The samples of one run. The actors write it without locks: each receiver
/// its own histogram, the generator the start of the interval, the collector
/// the rest. Main reads it after wait() returned true, which the messages
/// and the mutex order after all of those writes.
class pipeline_run {
public:
  explicit pipeline_run(const pipeline_options& opts) : opts_(opts), hops_(opts.stages + 1) {
    e2e_.reserve(opts.messages);
  }

  const pipeline_options& options() const noexcept {
    return opts_;
  }

  /// The timestamps of a warm-up message, which nobody records.
  static constexpr int64_t warmup_mark = -1;
  /// Warm-up messages, each sent once the one before reached the collector.
  static constexpr uint64_t warmup_messages = 4;

  /// Messages a receiver gets in a run, warm-ups included: a stage that has
  /// forwarded this many quits.
  uint64_t total_messages() const noexcept {
    return warmup_messages + opts_.messages;
  }

  /// The generator's loop, on the generator's thread: `send(t)` sends the
  /// message (t, t) to stage 1. First the warm-ups: the first message on a
  /// path runs code and touches memory (the allocator's heap of a new
  /// thread, each actor's mailbox) for the first time, which no later one
  /// does, in every system alike; the samples measure a long run. Message k
  /// leaves at its deadline in the
  /// arrival_schedule (start + k / rate when periodic), never earlier; a
  /// late generator sends at once, so the average rate holds.
  /// Two wake-ups are at least wake_gap_us apart: every timed sleep costs
  /// CPU (about 18 us on a VM), and above 1 / gap messages per second a
  /// generator that slept before each message would spend most of a core on
  /// its own sleeps. Above that rate messages leave in bunches instead.
  template <class Send>
  void generate(Send&& send) {
    // Without this the kernel may defer each wake-up by up to 50 us (the
    // default timer slack); below 1 / gap messages per second each message
    // has a deadline of its own, and should leave on it.
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    for (uint64_t k = 0; k < warmup_messages; ++k) {
      send(warmup_mark);
      std::unique_lock<std::mutex> guard{mtx_};
      // A lost warm-up shows as a run that never completes: wait() reports it.
      if (!cv_.wait_for(guard, patience(), [&] { return warmed_ > k; }))
        break;
    }
    // Let the workers finish starting up and go idle, as in a long run.
    sleep_until_ns(now_ns() + settle_ns);
    start_ = take_usage();
    generator_cpu_ns_ = -thread_cpu_ns();
    const auto start = start_.wall_ns;
    const auto gap = static_cast<int64_t>(opts_.wake_gap_us) * 1000;
    arrival_schedule schedule{opts_};
    int64_t woke = start;
    for (uint64_t k = 0; k < opts_.messages; ++k) {
      auto deadline = start + schedule.next();
      if (now_ns() < deadline) {
        sleep_until_ns(std::max(deadline, woke + gap));
        woke = now_ns();
      }
      // Read before the last send, which orders it before report().
      if (k + 1 == opts_.messages)
        generator_cpu_ns_ += thread_cpu_ns();
      send(now_ns());
    }
    // The thread stays until the last message is in: its end (the allocator
    // returning the thread's memory, the kernel flushing the TLB of every
    // CPU this process runs on) would land on the last messages' latency.
    wait();
  }

  /// Receiver `index` (stage 1..N; N + 1 is the collector) got a message
  /// whose hop began at `t_hop`; returns the clock reading that ended the hop,
  /// which a stage sends on as the next hop's `t_hop`. One reading per hop:
  /// at high rates a second one cost as much CPU as the runtime's own work.
  int64_t hop_arrived(size_t index, int64_t t_hop) noexcept {
    if (t_hop == warmup_mark)
      return warmup_mark;
    auto now = now_ns();
    hops_[index - 1].record(now - t_hop);
    return now;
  }

  /// The collector got (t_gen, t_hop); true if it was the last message.
  bool collect(int64_t t_gen, int64_t t_hop) {
    if (t_gen == warmup_mark) {
      {
        std::lock_guard<std::mutex> guard{mtx_};
        ++warmed_;
      }
      cv_.notify_all();
      return false;
    }
    auto now = now_ns();
    hops_[opts_.stages].record(now - t_hop);
    e2e_.push_back(now - t_gen);
    auto n = collected_.load(std::memory_order_relaxed) + 1;
    collected_.store(n, std::memory_order_relaxed);
    if (n == 1)
      first_arrival_ = now;
    if (n < opts_.messages)
      return false;
    last_arrival_ = now;
    end_ = take_usage();
    {
      std::lock_guard<std::mutex> guard{mtx_};
      done_ = true;
    }
    cv_.notify_all();
    return true;
  }

  /// Waits until the collector has every message. False after
  /// 3 x duration + 30 s: messages were lost, or the system is stuck.
  bool wait() {
    std::unique_lock<std::mutex> guard{mtx_};
    return cv_.wait_for(guard, patience(), [this] { return done_; });
  }

  /// Explains a failed wait() on stderr.
  void explain_timeout(const char* program) {
    uint64_t warmed = 0;
    {
      std::lock_guard<std::mutex> guard{mtx_};
      warmed = warmed_;
    }
    std::fprintf(stderr,
                 "%s: only %llu of %llu warm-up messages and %llu of %llu messages reached the "
                 "collector within %.0f s\n",
                 program, static_cast<unsigned long long>(warmed),
                 static_cast<unsigned long long>(warmup_messages),
                 static_cast<unsigned long long>(collected_.load()),
                 static_cast<unsigned long long>(opts_.messages), patience().count());
  }

  hop_kind kind_of(size_t index) const noexcept {
    if (index == 1)
      return hop_kind::g2p;
    if (opts_.detached != 0 && index == opts_.detached)
      return hop_kind::rcv;
    if (opts_.detached != 0 && index == opts_.detached + 1)
      return hop_kind::snd;
    return hop_kind::act;
  }

  /// Prints every metric as a JSON line; after wait() returned true.
  void report(const result_id& id) const {
    auto xs = e2e_;
    auto s = summarise(xs);
    emit(id, "latency_mean", us(s.mean), "us");
    emit(id, "latency_median", us(static_cast<double>(s.median)), "us");
    emit(id, "latency_p99", us(static_cast<double>(s.p99)), "us");
    emit(id, "latency_max", us(static_cast<double>(s.max)), "us");
    const char* names[] = {"g2p", "act", "rcv", "snd"};
    for (int kind = 0; kind < 4; ++kind) {
      histogram merged;
      for (size_t i = 1; i <= hops_.size(); ++i)
        if (static_cast<int>(kind_of(i)) == kind)
          merged.merge(hops_[i - 1]);
      if (merged.total() > 0)
        emit(id, names[kind], us(static_cast<double>(merged.percentile(50))), "us");
    }
    auto span = static_cast<double>(last_arrival_ - first_arrival_);
    if (span > 0)
      emit(id, "achieved_rate", static_cast<double>(opts_.messages - 1) * 1e9 / span, "msg/s");
    auto used = usage_between(start_, end_);
    emit(id, "cpu", used.cpu_percent, "%");
    // The generator's own share of `cpu`: its timed sleeps cost the same in
    // every system, and on a VM they are most of the CPU at low rates.
    if (used.seconds > 0)
      emit(id, "cpu_generator", percent_of_machine(generator_cpu_ns_, end_.wall_ns - start_.wall_ns),
           "%");
    emit(id, "ctx_switches", used.ctx_switches, "1/s");
  }

private:
  static constexpr int64_t settle_ns = 100'000'000;

  std::chrono::duration<double> patience() const {
    return std::chrono::duration<double>(3 * opts_.duration + 30);
  }

  pipeline_options opts_;
  std::vector<histogram> hops_;
  std::vector<int64_t> e2e_;
  std::atomic<uint64_t> collected_{0};
  int64_t first_arrival_ = 0;
  int64_t last_arrival_ = 0;
  usage_snapshot start_;
  usage_snapshot end_;
  /// CPU time of the generator's thread from start_ to its last send.
  int64_t generator_cpu_ns_ = 0;
  std::mutex mtx_;
  std::condition_variable cv_;
  /// Warm-up messages the collector got; under mtx_.
  uint64_t warmed_ = 0;
  bool done_ = false;
};

} // namespace latency
