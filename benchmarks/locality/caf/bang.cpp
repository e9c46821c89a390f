// BANG (CAF 0.17 and 1.x), after BenchErl's bang: many to one. `senders`
// actors each send `messages` messages in one loop to one receiver, which
// sums what it got and quits after the last one.

#include "common/caf_compat.hpp"
#include "common/options.hpp"
#include "locality/common/workloads.hpp"

#include <cstdint>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(locality_bang, caf::first_custom_type_id)
  CAF_ADD_ATOM(locality_bang, bang_atom)
CAF_END_TYPE_ID_BLOCK(locality_bang)
#else
using bang_atom = caf::atom_constant<caf::atom("bang")>;
constexpr bang_atom bang_atom_v{};
#endif

namespace {

struct bang_result {
  uint64_t received = 0;
  uint64_t sum = 0;
};

class receiver : public caf::event_based_actor {
public:
  receiver(caf::actor_config& cfg, uint64_t expected, bang_result* result)
    : caf::event_based_actor(cfg), expected_(expected), result_(result) {}

  caf::behavior make_behavior() override {
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

void sender(caf::event_based_actor* self, const caf::actor& dest, uint64_t id,
            uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    caf_compat::tell(self, dest, bang_atom_v, id, i);
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv, locality::bang_sizes()};
  BENCH_CAF_INIT_META_OBJECTS(locality_bang);
  auto senders = opts["senders"];
  auto messages = opts["messages"];
  bang_result result;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    auto dest = sys.spawn<receiver>(senders * messages, &result);
    for (uint64_t i = 0; i < senders; ++i)
      sys.spawn(sender, dest, i, messages);
  } // ~actor_system waits for every actor
  uint64_t expected = 0;
  for (uint64_t i = 0; i < senders; ++i)
    for (uint64_t j = 0; j < messages; ++j)
      expected += i ^ j;
  if (result.received != senders * messages)
    return bench::checksum("received", result.received, senders * messages);
  return bench::checksum("bang_sum", result.sum, expected);
}
