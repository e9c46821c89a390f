// mailbox_performance (Troupe): many senders, one receiver. Each sender actor
// sends its messages in one go; the receiver counts them and quits when all
// have arrived.

#include "common/options.hpp"

#include <troupe/all.hpp>

#include <cstdint>

TROUPE_BEGIN_TYPE_ID_BLOCK(core_mailbox_performance, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(core_mailbox_performance, msg_atom)
TROUPE_END_TYPE_ID_BLOCK(core_mailbox_performance)

namespace {

class receiver : public troupe::event_based_actor {
public:
  receiver(troupe::actor_config& cfg, uint64_t expected, uint64_t* received)
    : troupe::event_based_actor(cfg), expected_(expected), received_(received) {}

protected:
  troupe::behavior make_behavior() override {
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

void sender(troupe::event_based_actor* self, const troupe::actor& dest,
            uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    self->send(dest, msg_atom_v);
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"senders", 100, 100, "sending actors"},
                       {"messages", 100'000, 100'000,
                        "messages each sender sends"}}};
  auto senders = opts["senders"];
  auto messages = opts["messages"];
  uint64_t received = 0;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = opts.threads();
    troupe::actor_system sys{cfg};
    auto dest = sys.spawn<receiver>(senders * messages, &received);
    for (uint64_t i = 0; i < senders; ++i)
      sys.spawn(sender, dest, messages);
  } // ~actor_system waits for every actor
  return bench::checksum("received", received, senders * messages);
}
