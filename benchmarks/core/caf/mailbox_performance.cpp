// mailbox_performance (CAF 0.17 and 1.x): many senders, one receiver.
// Each sender actor sends its messages in one go; the receiver counts them
// and quits when all have arrived.

#include "common/caf_compat.hpp"
#include "common/options.hpp"

#include <cstdint>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(mailbox_performance, caf::first_custom_type_id)
  CAF_ADD_ATOM(mailbox_performance, msg_atom)
CAF_END_TYPE_ID_BLOCK(mailbox_performance)
#else
using msg_atom = caf::atom_constant<caf::atom("msg")>;
constexpr msg_atom msg_atom_v{};
#endif

namespace {

class receiver : public caf::event_based_actor {
public:
  receiver(caf::actor_config& cfg, uint64_t expected, uint64_t* received)
    : caf::event_based_actor(cfg), expected_(expected), received_(received) {
  }

  caf::behavior make_behavior() override {
    return {
      [this](msg_atom) {
        if (++*received_ == expected_)
          quit();
      },
    };
  }

private:
  uint64_t expected_;
  uint64_t* received_; // read by main after the system has shut down
};

void sender(caf::event_based_actor* self, const caf::actor& dest,
            uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    caf_compat::tell(self, dest, msg_atom_v);
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"senders", 100, 100, "sending actors"},
                       {"messages", 100'000, 100'000,
                        "messages each sender sends"}}};
  BENCH_CAF_INIT_META_OBJECTS(mailbox_performance);
  auto senders = opts["senders"];
  auto messages = opts["messages"];
  uint64_t received = 0;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    auto dest = sys.spawn<receiver>(senders * messages, &received);
    for (uint64_t i = 0; i < senders; ++i)
      sys.spawn(sender, dest, messages);
  } // ~actor_system waits for every actor
  return bench::checksum("received", received, senders * messages);
}
