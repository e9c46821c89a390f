#include "io_runner.hpp"
#include "now.hpp"

#include "troupe/detail/thread_name.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/logger.hpp"

#include <cassert>

namespace troupe::net::detail {

namespace {

// Which of its runner's threads this is (-1: none).
thread_local int this_io_thread = -1;

} // namespace

io_runner::io_runner(boost::asio::io_context& io, scheduler& sched, size_t max_throughput,
                     settings cfg)
  : io_(io), sched_(sched), max_throughput_(max_throughput), cfg_(std::move(cfg)) {}

io_runner::~io_runner() {
  join();
}

void io_runner::start() {
  int count = cfg_.inline_receivers ? 2 : 1;
  for (int i = 0; i < count; ++i) {
    threads_[i] = std::thread{[this, i] { run(i); }};
    troupe::detail::name_thread(threads_[i], "troupe.net", static_cast<size_t>(i));
  }
}

void io_runner::join() {
  for (auto& t : threads_)
    if (t.joinable())
      t.join();
}

io_unit& io_runner::unit() noexcept {
  assert(this_io_thread >= 0);
  return units_[this_io_thread];
}

void io_runner::wake() {
  if (!cfg_.inline_receivers)
    return;
  {
    std::lock_guard guard{mtx_};
    woken_ = true;
  }
  cv_.notify_all();
}

void io_runner::run(int me) {
  this_io_thread = me;
  // The I/O threads never wait for room in a muting mailbox: every
  // connection would wait.
  troupe::detail::no_push_wait over_the_bound;
  if (!cfg_.inline_receivers) {
    io_.run();
    return;
  }
  for (;;) {
    if (owner_.load(std::memory_order_acquire) == me && !taken_over_[me]) {
      if (io_.run_one() == 0)
        break;
    } else {
      taken_over_[me] = false;
      if (!stand_by(me))
        return;
    }
  }
  {
    std::lock_guard guard{mtx_};
    stopping_ = true;
  }
  cv_.notify_all();
}

bool io_runner::stand_by(int me) {
  using namespace std::chrono;
  auto limit_ns = duration_cast<nanoseconds>(cfg_.inline_limit).count();
  uint64_t seen = inline_seq_.load(std::memory_order_acquire);
  bool active = true;
  standby_.store(true, std::memory_order_release);
  std::unique_lock guard{mtx_};
  while (!stopping_) {
    // While actors run inline, look every inline-limit; while none do, at
    // the heartbeat's pace; without connections, not until one comes.
    if (active) {
      cv_.wait_for(guard, cfg_.inline_limit);
    } else {
      guard.unlock();
      bool connected = cfg_.connected();
      guard.lock();
      if (connected)
        cv_.wait_for(guard, cfg_.quiet_tick, [this] { return woken_ || stopping_; });
      else
        cv_.wait(guard, [this] { return woken_ || stopping_; });
      woken_ = false;
    }
    if (stopping_)
      break;
    auto seq = inline_seq_.load(std::memory_order_acquire);
    if (seq % 2 == 1) {
      auto started = inline_started_ns_.load(std::memory_order_relaxed);
      // The same run still, and too long: take the connections over. The
      // run's end and the takeover race for the same step of inline_seq_,
      // so that exactly one thread goes on running the io_context.
      auto odd = seq;
      if (now_ns() - started >= limit_ns
          && inline_seq_.compare_exchange_strong(odd, seq + 1, std::memory_order_acq_rel)) {
        standby_.store(false, std::memory_order_relaxed);
        owner_.store(me, std::memory_order_release);
        takeovers_.fetch_add(1, std::memory_order_relaxed);
        TROUPE_LOG_DEBUG("net", "an actor has run on the I/O thread for {} ms: I/O thread {} "
                                "reads the connections now (troupe.net.inline-limit is {} ms)",
                         (now_ns() - started) / 1'000'000, me, cfg_.inline_limit.count());
        return true;
      }
    }
    active = seq != seen;
    seen = seq;
  }
  standby_.store(false, std::memory_order_relaxed);
  return false;
}

void io_runner::dispatch() {
  auto& unit = units_[this_io_thread];
  if (unit.empty())
    return;
  auto jobs = unit.take();
  // What the runs below wake up is for the workers: only the receivers of
  // network messages run here, and only once each.
  outside_unit workers{sched_};
  // One actor runs here, the last woken; the others go to the workers
  // first, so that a read that wakes many runs them in parallel.
  auto* here = jobs.back();
  jobs.pop_back();
  for (auto* job : jobs)
    sched_.schedule(job);
  // Not inline without a standby: the workers.
  int me = this_io_thread;
  if (!cfg_.inline_receivers || owner_.load(std::memory_order_acquire) != me
      || !standby_.load(std::memory_order_acquire)) {
    sched_.schedule(here);
    return;
  }
  inline_started_ns_.store(now_ns(), std::memory_order_relaxed);
  auto odd = inline_seq_.fetch_add(1, std::memory_order_acq_rel) + 1;
  auto result = here->resume(&workers, max_throughput_);
  // Lost the race to the standby: it runs the io_context now, and this
  // thread must not go back into it once the handler that called
  // dispatch() returns.
  if (!inline_seq_.compare_exchange_strong(odd, odd + 1, std::memory_order_acq_rel))
    taken_over_[me] = true;
  if (result == resumable::resume_result::resume_later)
    sched_.schedule(here);
  else
    here->deref_resumable();
}

} // namespace troupe::net::detail
