// PUBSUB (Troupe): one to many, measured per message. `subscribers`
// subscribers each join `subscriptions` of the `publishers` publishers
// (drawn with a seed). Once all have joined, every publisher sends
// `messages` rounds, each a timestamped message to every one of its
// subscribers; a subscriber records the latency from the send to its
// handler and acknowledges, and a round leaves when the last one is
// acknowledged, so that the latency is that of delivery, not of a backlog.
// Neither Troupe nor CAF 1.x has CAF 0.17's groups: a publisher keeps its
// subscribers and sends to each, in every system alike.

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_pubsub, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(locality_pubsub, news_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_pubsub)

namespace {

struct subscriber_result {
  uint64_t received = 0;
  uint64_t sum = 0;
  locality::latency_histogram latency;
};

class publisher : public troupe::event_based_actor {
public:
  publisher(troupe::actor_config& cfg, uint64_t id, uint64_t expected_subscribers,
            uint64_t messages)
    : troupe::event_based_actor(cfg), id_(id), expected_(expected_subscribers),
      messages_(messages) {}

protected:
  troupe::behavior make_behavior() override {
    if (expected_ == 0 || messages_ == 0)
      quit();
    return {
      [this](troupe::join_atom, const troupe::actor& subscriber) {
        subscribers_.push_back(subscriber);
        if (subscribers_.size() == expected_)
          publish();
      },
      [this](troupe::ok_atom) {
        if (++acks_ < subscribers_.size())
          return;
        acks_ = 0;
        ++seq_;
        publish();
      },
    };
  }

private:
  void publish() {
    auto t = locality::now_ns();
    for (const auto& x : subscribers_)
      send(x, news_atom_v, id_, seq_, t);
    // The last round's acknowledgements come to an actor that has quit.
    if (seq_ + 1 == messages_)
      quit();
  }

  uint64_t id_;
  uint64_t expected_;
  uint64_t messages_;
  uint64_t seq_ = 0;
  size_t acks_ = 0;
  std::vector<troupe::actor> subscribers_;
};

class subscriber : public troupe::event_based_actor {
public:
  subscriber(troupe::actor_config& cfg, std::vector<troupe::actor> publishers, uint64_t messages,
             subscriber_result* result)
    : troupe::event_based_actor(cfg), publishers_(std::move(publishers)),
      expected_(messages * publishers_.size()), result_(result) {}

protected:
  troupe::behavior make_behavior() override {
    for (const auto& x : publishers_)
      send(x, troupe::join_atom_v, self_handle());
    publishers_.clear();
    if (expected_ == 0)
      quit();
    return {
      [this](news_atom, uint64_t publisher_id, uint64_t seq, int64_t sent) {
        result_->latency.record(locality::now_ns() - sent);
        result_->sum += publisher_id + seq;
        if (++result_->received == expected_)
          quit();
        return troupe::ok_atom_v;
      },
    };
  }

private:
  std::vector<troupe::actor> publishers_;
  uint64_t expected_;
  subscriber_result* result_; // read by main after the system has shut down
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::pubsub_sizes()};
  auto publishers = opts["publishers"];
  auto subscribers = opts["subscribers"];
  auto messages = opts["messages"];
  if (publishers == 0) {
    std::fprintf(stderr, "--publishers must be positive\n");
    return 2;
  }
  auto joins = locality::pubsub_subscriptions(publishers, subscribers, opts["subscriptions"]);
  std::vector<uint64_t> per_publisher(publishers, 0);
  for (const auto& mine : joins)
    for (auto p : mine)
      ++per_publisher[p];
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  std::vector<subscriber_result> results(subscribers);
  {
    troupe::actor_system sys{cfg};
    std::vector<troupe::actor> pubs;
    for (uint64_t p = 0; p < publishers; ++p)
      pubs.push_back(sys.spawn<publisher>(p, per_publisher[p], messages));
    for (uint64_t s = 0; s < subscribers; ++s) {
      std::vector<troupe::actor> mine;
      for (auto p : joins[s])
        mine.push_back(pubs[p]);
      sys.spawn<subscriber>(std::move(mine), messages, &results[s]);
    }
    locality::print_steals_when_done(sys);
  }
  locality::latency_histogram latency;
  uint64_t sum = 0;
  for (const auto& r : results) {
    latency.merge(r.latency);
    sum += r.sum;
  }
  uint64_t expected = 0;
  for (uint64_t p = 0; p < publishers; ++p)
    expected += per_publisher[p] * (p * messages + messages * (messages - 1) / 2);
  locality::report_latency(latency);
  return bench::checksum("news_sum", sum, expected);
}
