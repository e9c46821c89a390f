// BANG (Troupe), after BenchErl's bang: many to one. `senders` actors each
// send `messages` messages in one loop to one receiver, which sums what it
// got and quits after the last one.

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <cstdint>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_bang, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(locality_bang, bang_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_bang)

namespace {

struct bang_result {
  uint64_t received = 0;
  uint64_t sum = 0;
};

class receiver : public troupe::event_based_actor {
public:
  receiver(troupe::actor_config& cfg, uint64_t expected, bang_result* result)
    : troupe::event_based_actor(cfg), expected_(expected), result_(result) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](bang_atom, uint64_t sender, uint64_t seq) {
        result_->sum += sender ^ seq;
        if (++result_->received == expected_)
          quit();
      },
    };
  }

private:
  uint64_t expected_;
  bang_result* result_; // read by main after the system has shut down
};

void sender(troupe::event_based_actor* self, const troupe::actor& dest, uint64_t id,
            uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    self->send(dest, bang_atom_v, id, i);
}

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::bang_sizes()};
  auto senders = opts["senders"];
  auto messages = opts["messages"];
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  bang_result result;
  {
    troupe::actor_system sys{cfg};
    auto dest = sys.spawn<receiver>(senders * messages, &result);
    for (uint64_t i = 0; i < senders; ++i)
      sys.spawn(sender, dest, i, messages);
    locality::print_steals_when_done(sys);
  }
  uint64_t expected = 0;
  for (uint64_t i = 0; i < senders; ++i)
    for (uint64_t j = 0; j < messages; ++j)
      expected += i ^ j;
  if (result.received != senders * messages)
    return bench::checksum("received", result.received, senders * messages);
  return bench::checksum("bang_sum", result.sum, expected);
}
