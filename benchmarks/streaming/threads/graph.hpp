#pragma once

// The threads baseline's runtime: one std::thread per operator replica,
// and between two operators one single-producer single-consumer queue per
// pair of replicas (moodycamel's ReaderWriterQueue, bounded). Tuples move
// in batches of up to 64 (a vector per batch); a thread sends its partial
// batches on when its input runs dry, so that a paced source's tuples do
// not wait for a batch to fill. A full queue makes the producer wait: the
// queues bound the memory. An empty batch ends the stream. An idle
// consumer spins briefly, yields a while, then sleeps until a producer
// rings its doorbell (graphs have more threads than the machine has
// cores); the process is pinned to --threads CPUs, as an actor system gets
// --threads workers.

#include "streaming/common/stream.hpp"

#include <readerwriterqueue/readerwriterqueue.h>

#include <sched.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

namespace streaming::threads {

constexpr size_t batch_size = 64;
constexpr size_t queue_capacity = 256; // batches per queue

/// Runs the process on CPUs 0 .. threads-1.
inline void pin(size_t threads) {
  cpu_set_t set;
  CPU_ZERO(&set);
  auto cpus = std::thread::hardware_concurrency();
  for (size_t i = 0; i < threads && i < cpus; ++i)
    CPU_SET(i, &set);
  sched_setaffinity(0, sizeof set, &set);
}

/// Waits a little longer each time nothing was there: pauses, then yields.
class backoff {
public:
  void pause() noexcept {
    if (++idle_ < 64) {
      __builtin_ia32_pause();
      return;
    }
    std::this_thread::yield();
  }

  /// Whether it has waited long enough to go to sleep.
  bool tired() const noexcept {
    return idle_ > 1024;
  }

  void reset() noexcept {
    idle_ = 0;
  }

private:
  uint32_t idle_ = 0;
};

/// Wakes a consumer that sleeps because all its queues were empty (an event
/// count). The consumer announces it sleeps, then looks at its queues once
/// more; a producer enqueues, then looks whether the consumer sleeps. A
/// sequentially consistent fence on each side, between its write and its
/// read, makes at least one of them see the other's write, so no wake-up is
/// lost. Producers ring once per batch.
class doorbell {
public:
  /// Producer, after an enqueue.
  void ring() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (sleeping_.load(std::memory_order_relaxed)) {
      epoch_.fetch_add(1, std::memory_order_release);
      epoch_.notify_one();
    }
  }

  /// Consumer: announces that it is about to sleep; look at the queues
  /// after this, then cancel() or wait().
  uint32_t prepare() noexcept {
    sleeping_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return epoch_.load(std::memory_order_acquire);
  }

  void cancel() noexcept {
    sleeping_.store(false, std::memory_order_relaxed);
  }

  void wait(uint32_t epoch) noexcept {
    epoch_.wait(epoch, std::memory_order_acquire);
    sleeping_.store(false, std::memory_order_relaxed);
  }

private:
  std::atomic<bool> sleeping_{false};
  std::atomic<uint32_t> epoch_{0};
};

/// All queues between a group of producer replicas and a group of consumer
/// replicas. Several operators may feed one edge: each takes its own range
/// of producer indices.
template <class T>
class edge {
public:
  using queue = moodycamel::ReaderWriterQueue<std::vector<T>>;

  edge(size_t producers, size_t consumers) : producers_(producers), consumers_(consumers) {
    for (size_t i = 0; i < producers * consumers; ++i)
      queues_.push_back(std::make_unique<queue>(queue_capacity));
    for (size_t i = 0; i < consumers; ++i)
      bells_.push_back(std::make_unique<doorbell>());
  }

  queue& at(size_t producer, size_t consumer) {
    return *queues_[producer * consumers_ + consumer];
  }

  /// The doorbell of a consumer replica.
  doorbell& bell(size_t consumer) {
    return *bells_[consumer];
  }

  size_t producers() const noexcept {
    return producers_;
  }

  size_t consumers() const noexcept {
    return consumers_;
  }

private:
  size_t producers_;
  size_t consumers_;
  std::vector<std::unique_ptr<queue>> queues_;
  std::vector<std::unique_ptr<doorbell>> bells_;
};

enum class route { forward, by_key, broadcast };

/// What a producer replica sends into an edge: routes each tuple (round
/// robin, by key or to all) and batches per consumer.
template <class T>
class emitter {
public:
  using key_function = uint64_t (*)(const T&);

  emitter(edge<T>& e, size_t producer, route how, key_function key = nullptr)
    : edge_(&e), producer_(producer), how_(how), key_(key), pending_(e.consumers()) {
    for (auto& p : pending_)
      p.reserve(batch_size);
  }

  void operator()(T x) {
    switch (how_) {
      case route::forward:
        add(next_, std::move(x));
        next_ = next_ + 1 == pending_.size() ? 0 : next_ + 1;
        break;
      case route::by_key:
        add(replica_of(key_(x), pending_.size()), std::move(x));
        break;
      case route::broadcast:
        for (size_t c = 0; c + 1 < pending_.size(); ++c)
          add(c, T{x});
        add(pending_.size() - 1, std::move(x));
        break;
    }
  }

  /// Sends the partial batches on.
  void flush() {
    for (size_t c = 0; c < pending_.size(); ++c)
      if (!pending_[c].empty())
        push(c);
  }

  /// Flushes and ends the stream to every consumer.
  void close() {
    flush();
    for (size_t c = 0; c < pending_.size(); ++c)
      push(c);
  }

private:
  void add(size_t c, T&& x) {
    pending_[c].push_back(std::move(x));
    if (pending_[c].size() == batch_size)
      push(c);
  }

  void push(size_t c) {
    auto& q = edge_->at(producer_, c);
    backoff wait;
    while (!q.try_enqueue(std::move(pending_[c])))
      wait.pause();
    edge_->bell(c).ring();
    pending_[c] = std::vector<T>{};
    pending_[c].reserve(batch_size);
  }

  edge<T>* edge_;
  size_t producer_;
  route how_;
  key_function key_;
  size_t next_ = 0;
  std::vector<std::vector<T>> pending_;
};

/// Runs a consumer replica: calls `on_tuple` for every tuple from every
/// producer until all have ended, and `on_idle` whenever the input is empty
/// (to flush its own emitters); sleeps when it stays empty.
template <class T, class OnTuple, class OnIdle>
void consume(edge<T>& in, size_t consumer, OnTuple&& on_tuple, OnIdle&& on_idle) {
  std::vector<size_t> open;
  for (size_t p = 0; p < in.producers(); ++p)
    open.push_back(p);
  std::vector<T> batch;
  backoff wait;
  while (!open.empty()) {
    bool any = false;
    for (size_t i = 0; i < open.size();) {
      if (!in.at(open[i], consumer).try_dequeue(batch)) {
        ++i;
        continue;
      }
      any = true;
      if (batch.empty()) {
        open[i] = open.back();
        open.pop_back();
        continue;
      }
      for (auto& x : batch)
        on_tuple(x);
      ++i;
    }
    if (any) {
      wait.reset();
      continue;
    }
    on_idle();
    if (!wait.tired()) {
      wait.pause();
      continue;
    }
    auto& bell = in.bell(consumer);
    auto epoch = bell.prepare();
    bool empty = true;
    for (auto p : open)
      empty = empty && in.at(p, consumer).peek() == nullptr;
    if (empty)
      bell.wait(epoch);
    else
      bell.cancel();
    wait.reset();
  }
}

/// Runs a source replica over `count` tuples made by `make(k, ts)`, paced
/// to `rate` tuples/s (0: full speed), into `out`; closes it at the end.
template <class Emit, class Make>
void produce(uint64_t count, uint64_t rate, Emit& out, Make&& make) {
  pacer pace{rate};
  for (uint64_t k = 0; k < count; ++k) {
    int64_t ts = 0;
    if (pace.paced()) {
      auto due = pace.due(k);
      if (now_ns() < due) {
        out.flush();
        while (now_ns() < due)
          std::this_thread::yield();
      }
      ts = now_ns();
    }
    out(make(k, ts));
  }
  out.close();
}

/// The threads of a run: started one by one, joined at once.
class thread_group {
public:
  template <class F>
  void spawn(F&& f) {
    threads_.emplace_back(std::forward<F>(f));
  }

  void join() {
    for (auto& t : threads_)
      t.join();
    threads_.clear();
  }

private:
  std::vector<std::thread> threads_;
};

} // namespace streaming::threads
