// Stream graphs: typed nodes, routing, back-pressure, end of stream and
// failures, under every scheduler policy and with one thread per node.

#include "fixture.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/stream.hpp"
#include "troupe/system_messages.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using namespace troupe;
using namespace std::chrono_literals;

using namespace troupe::test::stream_support;

namespace {

// -- nodes ---------------------------------------------------------------------------

/// Emits (key, sequence number) pairs: n items round the keys in turn.
struct keyed_source : stream::source_node<std::pair<int, int64_t>> {
  keyed_source(int keys, int64_t n) : keys(keys), n(n) {}

  bool generate(stream::emitter<std::pair<int, int64_t>>& out) override {
    if (next == n)
      return false;
    out.emit({static_cast<int>(next % keys), next});
    ++next;
    return true;
  }

  int keys;
  int64_t n;
  int64_t next = 0;
};

/// Sleeps a little per tuple now and then: far slower than its source.
struct slow_sink : stream::sink_node<int64_t> {
  explicit slow_sink(collected<int64_t>* out) : out(out) {}

  void consume(int64_t&& x) override {
    if (x % 64 == 0)
      std::this_thread::sleep_for(200us);
    mine.push_back(x);
  }

  void on_stop() override {
    std::lock_guard guard{out->mtx};
    out->items.insert(out->items.end(), mine.begin(), mine.end());
  }

  collected<int64_t>* out;
  std::vector<int64_t> mine;
};

struct thrower : stream::seq_node<int64_t, int64_t> {
  explicit thrower(int64_t at) : at(at) {}

  void consume(int64_t&& x, stream::emitter<int64_t>& out) override {
    if (x == at)
      throw std::runtime_error("bad tuple " + std::to_string(x));
    out.emit(std::move(x));
  }

  int64_t at;
};

/// Emits every tuple `fan` times: one input makes many outputs.
struct fan_out : stream::seq_node<int64_t, int64_t> {
  explicit fan_out(int fan) : fan(fan) {}

  void consume(int64_t&& x, stream::emitter<int64_t>& out) override {
    for (int i = 0; i < fan; ++i)
      out.emit(x * fan + i);
  }

  int fan;
};

/// Counts its input and emits the count at the end (on_stop may emit).
struct counter : stream::seq_node<int64_t, int64_t> {
  void consume(int64_t&&, stream::emitter<int64_t>&) override {
    ++n;
  }

  void on_stop(stream::emitter<int64_t>& out) override {
    out.emit(n);
  }

  int64_t n = 0;
};

class stream_graph : public stream_fixture {};

// -- tests ---------------------------------------------------------------------------

TEST_P(stream_graph, a_pipeline_delivers_every_tuple_once_and_in_order) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{20'000});
  auto mid = g.add<identity<int64_t>>();
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, mid);
  g.connect(mid, snk);
  EXPECT_EQ(await(g.start()), error{});
  EXPECT_EQ(out.items, iota(20'000));
  EXPECT_EQ(out.starts.load(), 1);
  EXPECT_EQ(out.stops.load(), 1);
}

/// A tuple that counts its copies.
struct counted {
  static inline std::atomic<int> copies{0};
  int64_t value = 0;
  counted() = default;
  explicit counted(int64_t x) : value(x) {}
  counted(const counted& other) : value(other.value) {
    ++copies;
  }
  counted(counted&&) noexcept = default;
  counted& operator=(const counted& other) {
    value = other.value;
    ++copies;
    return *this;
  }
  counted& operator=(counted&&) noexcept = default;
};

TEST_P(stream_graph, a_tuple_emitted_as_an_rvalue_is_moved_all_the_way_never_copied) {
  struct source : stream::source_node<counted> {
    bool generate(stream::emitter<counted>& out) override {
      if (next == 5'000)
        return false;
      out.emit(counted{next++});
      return true;
    }
    int64_t next = 0;
  };
  struct sink : stream::sink_node<counted> {
    explicit sink(int64_t* sum) : sum(sum) {}
    void consume(counted&& x) override {
      *sum += x.value;
    }
    int64_t* sum;
  };
  counted::copies = 0;
  int64_t sum = 0;
  stream::graph g{sys};
  auto src = g.add<source>();
  auto mid = g.add<identity<counted>>();
  auto snk = g.add<sink>(&sum);
  g.connect(src, mid);
  g.connect(mid, snk);
  EXPECT_EQ(await(g.start()), error{});
  EXPECT_EQ(sum, 4'999 * 5'000 / 2);
  EXPECT_EQ(counted::copies.load(), 0);
}

TEST_P(stream_graph, a_farm_processes_every_tuple_exactly_once) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{50'000});
  auto mid = g.add<doubler>().replicas(4);
  auto snk = g.add<collecting_sink<int64_t>>(&out).replicas(3);
  g.connect(src, mid);
  g.connect(mid, snk, random_replica{});
  EXPECT_EQ(await(g.start()), error{});
  auto want = iota(50'000);
  for (auto& x : want)
    x *= 2;
  EXPECT_EQ(sorted(out.items), want);
  EXPECT_EQ(out.starts.load(), 3) << "on_start once per replica";
  EXPECT_EQ(out.stops.load(), 3) << "on_stop once per replica";
}

TEST_P(stream_graph, by_key_keeps_each_keys_order_through_two_farms) {
  using item = std::pair<int, int64_t>;
  collected<item> out;
  stream::graph g{sys};
  auto key = by_key{[](const item& x) { return x.first; }};
  auto src = g.add<keyed_source>(17, int64_t{30'000});
  auto a = g.add<identity<item>>().replicas(3);
  auto b = g.add<identity<item>>().replicas(2);
  auto snk = g.add<collecting_sink<item>>(&out).replicas(2);
  g.connect(src, a, key);
  g.connect(a, b, key);
  g.connect(b, snk, key);
  EXPECT_EQ(await(g.start()), error{});
  ASSERT_EQ(out.items.size(), 30'000u);
  // Each key reached one sink replica, in the order the source emitted it.
  std::map<int, size_t> replica_of;
  for (size_t r = 0; r < out.per_replica.size(); ++r) {
    std::map<int, int64_t> last;
    for (auto& [k, seq] : out.per_replica[r]) {
      auto [i, fresh] = replica_of.emplace(k, r);
      EXPECT_EQ(i->second, r) << "key " << k << " reached two replicas";
      if (auto j = last.find(k); j != last.end()) {
        EXPECT_LT(j->second, seq) << "key " << k << " out of order";
      }
      last[k] = seq;
    }
  }
  EXPECT_EQ(replica_of.size(), 17u);
}

/// Emits "key <k>" for k = 0, 1, ..., keys-1, `rounds` times over.
struct string_key_source : stream::source_node<std::string> {
  string_key_source(int keys, int rounds) : keys(keys), rounds(rounds) {}

  bool generate(stream::emitter<std::string>& out) override {
    if (next == keys * rounds)
      return false;
    out.emit("key " + std::to_string(next++ % keys));
    return true;
  }

  int keys;
  int rounds;
  int next = 0;
};

TEST_P(stream_graph, by_key_reads_a_key_the_tuple_owns_before_it_moves_the_tuple) {
  // The key is the string itself: were the tuple moved into the ring
  // before its key was taken, every tuple would look like "" and reach the
  // same replica.
  collected<std::string> out;
  stream::graph g{sys};
  auto src = g.add<string_key_source>(64, 10);
  auto snk = g.add<collecting_sink<std::string>>(&out).replicas(4);
  g.connect(src, snk, by_key{[](const std::string& s) { return s; }});
  EXPECT_EQ(await(g.start()), error{});
  ASSERT_EQ(out.per_replica.size(), 4u);
  std::map<std::string, size_t> replica_of;
  size_t busy = 0;
  for (size_t r = 0; r < out.per_replica.size(); ++r) {
    busy += out.per_replica[r].empty() ? 0 : 1;
    for (auto& k : out.per_replica[r]) {
      auto [i, fresh] = replica_of.emplace(k, r);
      EXPECT_EQ(i->second, r) << k << " reached two replicas";
    }
  }
  EXPECT_EQ(replica_of.size(), 64u);
  EXPECT_EQ(replica_of.count(""), 0u) << "a key was read after its tuple moved";
  EXPECT_GE(busy, 2u) << "64 keys all went to one of 4 replicas";
}

TEST_P(stream_graph, broadcast_gives_every_replica_every_tuple) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{5'000});
  auto snk = g.add<collecting_sink<int64_t>>(&out).replicas(3);
  g.connect(src, snk, broadcast{});
  EXPECT_EQ(await(g.start()), error{});
  ASSERT_EQ(out.per_replica.size(), 3u);
  for (auto& items : out.per_replica)
    EXPECT_EQ(items, iota(5'000));
}

TEST_P(stream_graph, a_node_feeds_two_nodes_and_a_node_merges_two_edges) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{10'000});
  auto a = g.add<identity<int64_t>>();
  auto b = g.add<doubler>().replicas(2);
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, a);
  g.connect(src, b);
  g.connect(a, snk);
  g.connect(b, snk);
  EXPECT_EQ(await(g.start()), error{});
  auto want = iota(10'000);
  for (int64_t i = 0; i < 10'000; ++i)
    want.push_back(2 * i);
  EXPECT_EQ(sorted(out.items), sorted(want));
}

TEST_P(stream_graph, a_slow_sink_loses_nothing_under_back_pressure) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{20'000});
  auto fan = g.add<fan_out>(4).replicas(2);
  auto snk = g.add<slow_sink>(&out);
  g.connect(src, fan).capacity(8);
  g.connect(fan, snk).capacity(16);
  EXPECT_EQ(await(g.start()), error{});
  EXPECT_EQ(sorted(out.items), iota(80'000));
}

TEST_P(stream_graph, on_stop_may_emit_after_the_end_of_the_input) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{1'000});
  auto cnt = g.add<counter>().replicas(2);
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, cnt);
  g.connect(cnt, snk);
  EXPECT_EQ(await(g.start()), error{});
  ASSERT_EQ(out.items.size(), 2u);
  EXPECT_EQ(out.items[0] + out.items[1], 1'000);
}

TEST_P(stream_graph, an_empty_stream_still_starts_and_stops_every_node) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{0});
  auto cnt = g.add<counter>();
  auto snk = g.add<collecting_sink<int64_t>>(&out).replicas(2);
  g.connect(src, cnt);
  g.connect(cnt, snk);
  EXPECT_EQ(await(g.start()), error{});
  EXPECT_EQ(out.items, std::vector<int64_t>{0});
  EXPECT_EQ(out.starts.load(), 2);
  EXPECT_EQ(out.stops.load(), 2);
}

TEST_P(stream_graph, a_node_that_throws_stops_the_graph_with_its_error) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{1'000'000});
  auto bad = g.add<thrower>(int64_t{5'000}).name("checker").replicas(2);
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, bad);
  g.connect(bad, snk);
  auto err = await(g.start());
  EXPECT_EQ(err.code(), static_cast<uint8_t>(errc::unhandled_exception));
  EXPECT_NE(to_string(err).find("checker"), std::string::npos) << to_string(err);
  EXPECT_NE(to_string(err).find("bad tuple 5000"), std::string::npos) << to_string(err);
  EXPECT_LT(out.items.size(), 1'000'000u);
}

TEST_P(stream_graph, run_returns_the_graphs_result) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{100});
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, snk);
  EXPECT_EQ(g.run(), error{});
  EXPECT_EQ(out.items, iota(100));
  EXPECT_EQ(g.run().code(), static_cast<uint8_t>(errc::invalid_argument))
    << "a graph runs once";
}

TEST_P(stream_graph, an_input_takes_tuples_from_outside_until_closed) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto in = g.add_input<int64_t>();
  auto mid = g.add<doubler>().replicas(2);
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(in, mid).capacity(4);
  g.connect(mid, snk).capacity(4);
  EXPECT_EQ(in.push(1).code(), static_cast<uint8_t>(errc::invalid_argument))
    << "the graph has not started";
  auto hdl = g.start();
  ASSERT_TRUE(hdl);
  std::thread producer{[&] {
    for (int64_t i = 0; i < 5'000; ++i)
      EXPECT_EQ(in.push(i), error{});
    in.close();
  }};
  producer.join();
  EXPECT_EQ(await(hdl), error{});
  auto want = iota(5'000);
  for (auto& x : want)
    x *= 2;
  EXPECT_EQ(sorted(out.items), want);
  EXPECT_EQ(in.push(1).code(), static_cast<uint8_t>(errc::invalid_argument))
    << "pushed after close";
}

TEST_P(stream_graph, try_push_refuses_a_tuple_when_the_queue_is_above_the_threshold) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto in = g.add_input<int64_t>();
  auto snk = g.add<slow_sink>(&out);
  g.connect(in, snk).capacity(64);
  auto hdl = g.start();
  ASSERT_TRUE(hdl);
  int64_t taken = 0, refused = 0;
  for (int64_t i = 0; taken < 2'000; ++i) {
    auto x = int64_t{taken};
    if (in.try_push(x, 0))
      ++taken;
    else
      ++refused;
    if (i % 256 == 255)
      std::this_thread::yield();
  }
  in.close();
  EXPECT_EQ(await(hdl), error{});
  EXPECT_EQ(sorted(out.items), iota(2'000)) << "what try_push took arrives, once";
  EXPECT_GT(refused, 0) << "a threshold of 0 tuples refuses while the sink is busy";
}

TEST_P(stream_graph, killing_the_graphs_actor_stops_a_graph_that_waits_for_input) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto in = g.add_input<int64_t>();
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(in, snk);
  auto hdl = g.start();
  ASSERT_TRUE(hdl);
  EXPECT_EQ(in.push(7), error{});
  self->send_exit(*hdl, exit_reason::kill);
  EXPECT_EQ(await(hdl), error{exit_reason::kill});
  EXPECT_EQ(in.push(8), error{exit_reason::kill}) << "the input reports why the graph stopped";
}

/// Emits forever, slowly, and counts the calls in flight.
struct busy_source : stream::source_node<int64_t> {
  explicit busy_source(std::atomic<int>* inside) : inside(inside) {}

  bool generate(stream::emitter<int64_t>& out) override {
    ++*inside;
    std::this_thread::sleep_for(std::chrono::milliseconds{2});
    out.emit(0);
    --*inside;
    return true;
  }

  std::atomic<int>* inside;
};

TEST_P(stream_graph, a_killed_graphs_monitors_hear_of_it_once_its_nodes_stopped) {
  std::atomic<int> inside{0};
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<busy_source>(&inside);
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, snk);
  auto hdl = g.start();
  ASSERT_TRUE(hdl);
  while (inside.load() == 0)
    std::this_thread::yield();
  self->send_exit(*hdl, exit_reason::kill);
  EXPECT_EQ(await(hdl), error{exit_reason::kill});
  EXPECT_EQ(inside.load(), 0) << "no node runs once the down_msg arrived";
}

TEST_P(stream_graph, start_names_what_is_wrong_with_a_graph) {
  auto why = [](stream::graph& g) {
    auto hdl = g.start();
    return hdl ? std::string{"started"} : to_string(hdl.error());
  };
  {
    stream::graph g{sys};
    EXPECT_NE(why(g).find("no nodes"), std::string::npos) << why(g);
  }
  {
    collected<int64_t> out;
    stream::graph g{sys};
    g.add<counting_source>(int64_t{1}).name("numbers");
    g.add<collecting_sink<int64_t>>(&out).name("results");
    auto text = why(g);
    EXPECT_NE(text.find("'numbers' emits but no edge leads from it"), std::string::npos) << text;
  }
  {
    collected<int64_t> out;
    stream::graph g{sys};
    auto src = g.add<counting_source>(int64_t{1});
    auto snk = g.add<collecting_sink<int64_t>>(&out).name("results");
    g.add<doubler>().name("orphan");
    g.connect(src, snk);
    auto text = why(g);
    EXPECT_NE(text.find("'orphan' takes input but no edge leads to it"), std::string::npos)
      << text;
  }
  {
    collected<int64_t> out;
    stream::graph g{sys};
    auto src = g.add<counting_source>(int64_t{1});
    auto a = g.add<doubler>().name("a");
    auto b = g.add<doubler>().name("b");
    auto snk = g.add<collecting_sink<int64_t>>(&out);
    g.connect(src, a);
    g.connect(a, b);
    g.connect(b, a);
    g.connect(b, snk);
    auto text = why(g);
    EXPECT_NE(text.find("a cycle"), std::string::npos) << text;
  }
  {
    collected<int64_t> out;
    stream::graph g{sys};
    auto src = g.add<counting_source>(int64_t{1});
    auto snk = g.add<collecting_sink<int64_t>>(&out);
    g.connect(src, snk).capacity(1);
    auto text = why(g);
    EXPECT_NE(text.find("edge capacity 1 is out of range"), std::string::npos) << text;
  }
}

TEST_P(stream_graph, a_thousand_graphs_start_and_stop) {
  for (int round = 0; round < 1'000; ++round) {
    collected<int64_t> out;
    stream::graph g{sys};
    auto src = g.add<counting_source>(int64_t{round % 7});
    auto mid = g.add<doubler>().replicas(2);
    auto snk = g.add<collecting_sink<int64_t>>(&out);
    g.connect(src, mid);
    g.connect(mid, snk);
    ASSERT_EQ(await(g.start()), error{}) << "round " << round;
    ASSERT_EQ(out.items.size(), static_cast<size_t>(round % 7));
  }
}

TEST_P(stream_graph, many_replicas_and_many_tuples_on_two_workers) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{200'000}).replicas(2);
  auto a = g.add<doubler>().replicas(8);
  auto b = g.add<identity<int64_t>>().replicas(8);
  auto snk = g.add<collecting_sink<int64_t>>(&out).replicas(4);
  g.connect(src, a).capacity(32);
  g.connect(a, b, by_key{[](const int64_t& x) { return x; }}).capacity(32);
  g.connect(b, snk).capacity(32);
  EXPECT_EQ(await(g.start()), error{});
  auto want = iota(200'000);
  for (auto& x : want)
    x *= 2;
  want.insert(want.end(), want.begin(), want.end());
  EXPECT_EQ(sorted(out.items), sorted(want));
}

/// Emits through send_next_if, retrying a refused tuple on the next call.
struct polite_source : stream::source_node<int64_t> {
  polite_source(int64_t n, size_t max_queued) : n(n), max_queued(max_queued) {}

  bool generate(stream::emitter<int64_t>& out) override {
    if (next == n)
      return false;
    auto x = next;
    if (out.send_next_if(x, max_queued))
      ++next;
    return true;
  }

  int64_t n;
  size_t max_queued;
  int64_t next = 0;
};

TEST_P(stream_graph, send_next_if_on_two_edges_sends_each_tuple_along_both_or_neither) {
  collected<int64_t> a, b;
  stream::graph g{sys};
  auto src = g.add<polite_source>(int64_t{3'000}, size_t{4});
  auto x = g.add<collecting_sink<int64_t>>(&a).replicas(2);
  auto y = g.add<slow_sink>(&b);
  g.connect(src, x).capacity(16);
  g.connect(src, y, by_key{[](const int64_t& v) { return v; }}).capacity(16);
  EXPECT_EQ(await(g.start()), error{});
  EXPECT_EQ(sorted(a.items), iota(3'000));
  EXPECT_EQ(sorted(b.items), iota(3'000));
}

/// Emits tuple i only once the sink has taken tuple i-1: a source that
/// waits for something only the graph's other nodes can do.
struct lockstep_source : stream::source_node<int64_t> {
  lockstep_source(const std::atomic<int64_t>* taken, int64_t n) : taken(taken), n(n) {}

  bool generate(stream::emitter<int64_t>& out) override {
    if (next == n)
      return false;
    if (taken->load() < next)
      return true; // not yet: emits nothing
    out.emit(next++);
    return true;
  }

  const std::atomic<int64_t>* taken;
  int64_t n;
  int64_t next = 0;
};

struct counting_sink : stream::sink_node<int64_t> {
  explicit counting_sink(std::atomic<int64_t>* taken) : taken(taken) {}

  void consume(int64_t&&) override {
    ++*taken;
  }

  std::atomic<int64_t>* taken;
};

TEST_P(stream_graph, a_source_that_emits_nothing_yields_its_worker_to_the_nodes_downstream) {
  // One worker: if the waiting source kept it, the sink would never run.
  mode_config one{GetParam()};
  one.scheduler.max_threads = 1;
  actor_system small{one};
  scoped_actor me{small};
  std::atomic<int64_t> taken{0};
  stream::graph g{small};
  auto src = g.add<lockstep_source>(&taken, int64_t{500});
  auto mid = g.add<identity<int64_t>>();
  auto snk = g.add<counting_sink>(&taken);
  g.connect(src, mid);
  g.connect(mid, snk);
  auto hdl = g.start();
  ASSERT_TRUE(hdl);
  me->monitor(*hdl);
  bool done = false;
  me->receive([&](down_msg&) { done = true; },
              after(test::patience) >> [] { ADD_FAILURE() << "the graph did not finish"; });
  EXPECT_TRUE(done);
  EXPECT_EQ(taken.load(), 500);
}

INSTANTIATE_TEST_SUITE_P(modes, stream_graph, testing::ValuesIn(every_mode),
                         test::policy_name);

} // namespace
