// ping_pong (Troupe): sequential request/response round trips. `ping` sends
// a request carrying an int, `pong` answers with the same int, and ping
// sends the next request only when the answer has arrived.

#include "common/options.hpp"

#include <troupe/all.hpp>

#include <cstdint>

namespace {

troupe::behavior pong(troupe::event_based_actor*) {
  return {
    [](troupe::ping_atom, int32_t value) { return value; },
  };
}

class ping : public troupe::event_based_actor {
public:
  ping(troupe::actor_config& cfg, troupe::actor buddy, int32_t rounds,
       uint64_t* sum)
    : troupe::event_based_actor(cfg), buddy_(std::move(buddy)), left_(rounds),
      sum_(sum) {}

protected:
  // No behavior: the actor lives as long as it awaits a response.
  troupe::behavior make_behavior() override {
    next_round();
    return {};
  }

private:
  void next_round() {
    if (left_ == 0) {
      send_exit(buddy_, troupe::exit_reason::user_shutdown);
      quit();
      return;
    }
    request(buddy_, troupe::infinite, troupe::ping_atom_v, left_).then([this](int32_t value) {
      *sum_ += static_cast<uint64_t>(value);
      --left_;
      next_round();
    });
  }

  troupe::actor buddy_;
  int32_t left_;
  uint64_t* sum_; // read by main after the system has shut down
};

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"round-trips", 1'000'000, 1'000'000,
                        "sequential request/response round trips"}}};
  auto rounds = static_cast<int32_t>(opts["round-trips"]);
  uint64_t sum = 0;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = opts.threads();
    troupe::actor_system sys{cfg};
    auto buddy = sys.spawn(pong);
    sys.spawn<ping>(buddy, rounds, &sum);
  } // ~actor_system waits for both actors
  auto n = static_cast<uint64_t>(rounds);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
