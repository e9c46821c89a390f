// Actors and stream graphs together: an actor as a stage (its answers in
// input order, at most max_in_flight requests waiting, its failures stopping
// the graph), and actors feeding a graph through an actor input (paced by
// answers, closed by close_atom, refused after close), under every scheduler
// policy and with one thread per node.

#include "fixture.hpp"

#include "troupe/event_based_actor.hpp"
#include "troupe/response_promise.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

using namespace troupe;
using namespace troupe::test::stream_support;
using namespace std::chrono_literals;

namespace {

bool mentions(const error& err, const std::string& what) {
  return to_string(err).find(what) != std::string::npos;
}

/// Doubles; answers each odd tuple before the even one before it, so
/// answers come back out of order.
behavior swapping_doubler(event_based_actor* self) {
  auto held = std::make_shared<std::pair<int64_t, response_promise>>();
  return {
    [self, held](int64_t x) -> result<int64_t> {
      if (x % 2 == 0) {
        *held = {x, self->make_response_promise()};
        return held->second;
      }
      auto rp = self->make_response_promise();
      rp.deliver(2 * x);
      held->second.deliver(2 * held->first);
      return rp;
    },
  };
}

class actor_interop : public stream_fixture {
protected:
  /// Wires an actor input straight into a sink that collects into `out`.
  static stream::actor_input<int64_t> input_to_sink(stream::graph& g, collected<int64_t>* out,
                                                    size_t capacity = 1024) {
    auto in = g.add_actor_input<int64_t>();
    auto snk = g.add<collecting_sink<int64_t>>(out);
    g.connect(in, snk).capacity(capacity);
    return in;
  }
};

TEST_P(actor_interop, an_actor_stage_emits_the_answers_in_input_order) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{10'000});
  auto twice = g.add_actor<int64_t, int64_t>(sys.spawn(swapping_doubler));
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, twice);
  g.connect(twice, snk);
  EXPECT_EQ(await(g.start()), error{});
  auto want = iota(10'000);
  for (auto& x : want)
    x *= 2;
  EXPECT_EQ(out.items, want);
}

/// What an actor at the end of a graph saw.
struct sink_log {
  std::mutex mtx;
  std::vector<int64_t> items;
  size_t most_held = 0;
};

/// Holds the requests it gets and answers them all once it holds four, or
/// a little later: it sees how many the stage lets wait at once.
behavior holding_sink(event_based_actor* self, sink_log* log) {
  auto held = std::make_shared<std::vector<response_promise>>();
  auto answer_all = [held] {
    for (auto& rp : *held)
      rp.deliver();
    held->clear();
  };
  return {
    [=](int64_t x) -> result<void> {
      held->push_back(self->make_response_promise());
      {
        std::lock_guard guard{log->mtx};
        log->items.push_back(x);
        log->most_held = std::max(log->most_held, held->size());
      }
      if (held->size() >= 4)
        answer_all();
      else
        self->mail(tick_atom_v).delay(1ms).send(self);
      return held->back();
    },
    [=](tick_atom) { answer_all(); },
  };
}

TEST_P(actor_interop, an_actor_stage_lets_at_most_max_in_flight_requests_wait) {
  sink_log log;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{2'000});
  auto snk = g.add_actor<int64_t>(sys.spawn(holding_sink, &log)).max_in_flight(4);
  g.connect(src, snk);
  EXPECT_EQ(await(g.start()), error{});
  std::lock_guard guard{log.mtx};
  EXPECT_EQ(log.items, iota(2'000)) << "an actor sink gets every tuple once, in order";
  EXPECT_LE(log.most_held, 4u);
}

TEST_P(actor_interop, an_actor_stage_whose_actor_is_gone_stops_the_graph) {
  auto gone = sys.spawn([](event_based_actor* self) { self->quit(); });
  self->monitor(gone);
  self->receive([](down_msg&) {}, after(test::patience) >> [] { ADD_FAILURE(); });
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{1'000'000});
  auto stage = g.add_actor<int64_t, int64_t>(gone);
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, stage);
  g.connect(stage, snk);
  auto err = await(g.start());
  EXPECT_TRUE(err);
  EXPECT_TRUE(mentions(err, "stream actor stage")) << to_string(err);
  EXPECT_LT(out.items.size(), 1'000'000u);
}

TEST_P(actor_interop, an_answer_of_the_wrong_type_stops_the_graph) {
  auto talker = sys.spawn([]() -> behavior {
    return {[](int64_t x) { return std::to_string(x); }};
  });
  collected<int64_t> out;
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{1'000});
  auto stage = g.add_actor<int64_t, int64_t>(talker);
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(src, stage);
  g.connect(stage, snk);
  auto err = await(g.start());
  EXPECT_TRUE(mentions(err, "stream actor stage")) << to_string(err);
  EXPECT_TRUE(out.items.empty());
}

TEST_P(actor_interop, max_in_flight_zero_is_refused_at_start) {
  stream::graph g{sys};
  auto src = g.add<counting_source>(int64_t{10});
  auto stage = g.add_actor<int64_t>(sys.spawn(swapping_doubler)).max_in_flight(0);
  g.connect(src, stage);
  auto hdl = g.start();
  ASSERT_FALSE(hdl);
  EXPECT_EQ(hdl.error(), errc::invalid_argument);
  EXPECT_TRUE(mentions(hdl.error(), "max_in_flight")) << to_string(hdl.error());
}

/// What windowed_feeder keeps between answers.
struct feeder_state {
  actor in;
  actor done;
  int64_t n;
  int64_t window;
  int64_t next = 0;
  int64_t answered = 0;
};

/// Keeps at most `window` requests unanswered; after the last answer,
/// closes the input and tells `done` once close_atom was answered.
void feed_more(event_based_actor* self, std::shared_ptr<feeder_state> st) {
  auto on_error = [self](error& err) { self->quit(err); };
  while (st->next < st->n && st->next - st->answered < st->window)
    self->request(st->in, infinite, st->next++)
      .then(
        [self, st] {
          ++st->answered;
          feed_more(self, st);
        },
        on_error);
  if (st->answered == st->n) {
    ++st->answered; // close once
    self->request(st->in, infinite, close_atom_v)
      .then([self, st] { self->mail(ok_atom_v).send(st->done); }, on_error);
  }
}

/// Sends 0..n-1 to `in` as requests, at most `window` unanswered.
behavior windowed_feeder(event_based_actor* self, actor in, int64_t n, int64_t window,
                         actor done) {
  feed_more(self, std::make_shared<feeder_state>(
                    feeder_state{std::move(in), std::move(done), n, window}));
  return {[](ok_atom) {}};
}

TEST_P(actor_interop, an_actor_feeds_a_graph_paced_by_its_answers) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto in = g.add_actor_input<int64_t>();
  auto mid = g.add<identity<int64_t>>();
  auto snk = g.add<collecting_sink<int64_t>>(&out);
  g.connect(in, mid).capacity(8);
  g.connect(mid, snk).capacity(8);
  auto hdl = g.start();
  sys.spawn(windowed_feeder, in.handle(), int64_t{5'000}, int64_t{16}, actor{self});
  bool closed = false;
  self->receive([&](ok_atom) { closed = true; },
                after(test::patience) >> [] { ADD_FAILURE() << "close_atom was not answered"; });
  EXPECT_TRUE(closed);
  EXPECT_EQ(await(hdl), error{});
  EXPECT_EQ(out.items, iota(5'000));
}

TEST_P(actor_interop, plain_sends_before_and_after_start_all_arrive_in_order) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto in = input_to_sink(g, &out, 4);
  for (int64_t i = 0; i < 100; ++i)
    self->mail(i).send(in.handle()); // before start: they wait in the input
  auto hdl = g.start();
  for (int64_t i = 100; i < 3'000; ++i)
    self->mail(i).send(in.handle());
  self->mail(close_atom_v).send(in.handle());
  EXPECT_EQ(await(hdl), error{});
  EXPECT_EQ(out.items, iota(3'000));
}

TEST_P(actor_interop, an_actor_input_refuses_tuples_after_close) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto in = input_to_sink(g, &out);
  auto hdl = g.start();
  self->request(in.handle(), test::patience, int64_t{1})
    .receive([] {}, [](const error& err) { ADD_FAILURE() << to_string(err); });
  self->request(in.handle(), test::patience, close_atom_v)
    .receive([] {}, [](const error& err) { ADD_FAILURE() << to_string(err); });
  error refused;
  self->request(in.handle(), test::patience, int64_t{2})
    .receive([] { ADD_FAILURE() << "a tuple after close was taken"; },
             [&](const error& err) { refused = err; });
  EXPECT_TRUE(refused) << "a closed input answers with an error (its actor may be gone)";
  EXPECT_EQ(await(hdl), error{});
  EXPECT_EQ(out.items, std::vector<int64_t>{1});
}

TEST_P(actor_interop, killing_the_actor_input_stops_the_graph) {
  collected<int64_t> out;
  stream::graph g{sys};
  auto in = input_to_sink(g, &out);
  auto hdl = g.start();
  self->mail(int64_t{7}).send(in.handle());
  self->send_exit(in.handle(), exit_reason::kill);
  auto err = await(hdl);
  EXPECT_TRUE(mentions(err, "stream actor input")) << to_string(err);
}

TEST_P(actor_interop, tuples_waiting_for_a_graph_that_never_starts_are_refused) {
  actor hdl;
  std::optional<decltype(self->request(hdl, test::patience, int64_t{1}))> pending;
  {
    stream::graph g{sys};
    auto in = input_to_sink(g, nullptr);
    hdl = in.handle();
    self->monitor(hdl);
    pending.emplace(self->request(hdl, test::patience, int64_t{1}));
  }
  // Graph gone: what waited is refused, and the input's actor terminates.
  error refused;
  pending->receive([] { ADD_FAILURE() << "a graph that never started took a tuple"; },
                   [&](const error& err) { refused = err; });
  EXPECT_EQ(refused, errc::invalid_argument) << to_string(refused);
  bool down = false;
  self->receive([&](down_msg&) { down = true; },
                after(test::patience) >> [] { ADD_FAILURE() << "the input did not terminate"; });
  EXPECT_TRUE(down);
}

INSTANTIATE_TEST_SUITE_P(modes, actor_interop, testing::ValuesIn(every_mode),
                         test::policy_name);

} // namespace
