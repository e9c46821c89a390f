#pragma once

// What the stream tests share: small nodes, and a fixture that runs each
// test under every scheduler policy and with one thread per node.

#include "../support/policies.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/stream.hpp"
#include "troupe/system_messages.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <string_view>
#include <utility>
#include <vector>

namespace troupe::test::stream_support {

/// Emits 0, 1, ..., n-1.
struct counting_source : stream::source_node<int64_t> {
  explicit counting_source(int64_t n) : n(n) {}

  bool generate(stream::emitter<int64_t>& out) override {
    if (next == n)
      return false;
    out.emit(next++);
    return true;
  }

  int64_t n;
  int64_t next = 0;
};

template <class T>
struct identity : stream::seq_node<T, T> {
  void consume(T&& x, stream::emitter<T>& out) override {
    out.emit(std::move(x));
  }
};

struct doubler : stream::seq_node<int64_t, int64_t> {
  void consume(int64_t&& x, stream::emitter<int64_t>& out) override {
    out.emit(2 * x);
  }
};

/// What the sinks of a test saw, shared by every replica.
template <class T>
struct collected {
  std::mutex mtx;
  std::vector<T> items;
  std::vector<std::vector<T>> per_replica; // each replica's items in order
  std::atomic<int> starts{0};
  std::atomic<int> stops{0};
};

template <class T>
struct collecting_sink : stream::sink_node<T> {
  explicit collecting_sink(collected<T>* out) : out(out) {}

  void on_start() override {
    ++out->starts;
  }

  void consume(T&& x) override {
    mine.push_back(std::move(x));
  }

  void on_stop() override {
    std::lock_guard guard{out->mtx};
    out->items.insert(out->items.end(), mine.begin(), mine.end());
    out->per_replica.push_back(std::move(mine));
    ++out->stops;
  }

  collected<T>* out;
  std::vector<T> mine;
};

std::vector<int64_t> iota(int64_t n) {
  std::vector<int64_t> result(static_cast<size_t>(n));
  std::iota(result.begin(), result.end(), int64_t{0});
  return result;
}

template <class T>
std::vector<T> sorted(std::vector<T> xs) {
  std::sort(xs.begin(), xs.end());
  return xs;
}

// -- fixture -------------------------------------------------------------------------

/// The scheduler policies, plus "threads": one thread per node replica.
inline constexpr const char* every_mode[] = {"work-sharing", "work-stealing", "work-stealing/event",
                                             "work-stealing/polling", "threads"};

struct mode_config : actor_system_config {
  explicit mode_config(std::string_view mode) {
    scheduler.max_threads = 2;
    if (mode == "threads")
      stream.execution = stream_execution::threads;
    else
      test::apply_policy(scheduler, mode);
  }
};

class stream_fixture : public test::policy_test {
protected:
  /// Waits for the graph behind `hdl` to finish: its error, none if it
  /// ran to the end; a failure if it did not finish in time.
  error await(const expected<actor>& hdl) {
    if (!hdl)
      return hdl.error();
    self->monitor(*hdl);
    error result{errc::runtime_error, "the graph did not finish in time"};
    self->receive(
      [&](down_msg& msg) {
        result = msg.reason == error{exit_reason::normal} ? error{} : std::move(msg.reason);
      },
      after(test::patience) >> [] { ADD_FAILURE() << "the graph did not finish in time"; });
    return result;
  }

  mode_config cfg{GetParam()};
  actor_system sys{cfg};
  scoped_actor self{sys};
};

} // namespace troupe::test::stream_support
