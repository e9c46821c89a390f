// ping_pong (CAF 0.17 and 1.x): sequential request/response round trips.
// `ping` sends a request carrying an int, `pong` answers with the same int,
// and ping sends the next request only when the answer has arrived.

#include "common/caf_compat.hpp"
#include "common/options.hpp"

#include <cstdint>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(ping_pong, caf::first_custom_type_id)
  CAF_ADD_ATOM(ping_pong, ping_atom)
CAF_END_TYPE_ID_BLOCK(ping_pong)
#else
using ping_atom = caf::atom_constant<caf::atom("ping")>;
constexpr ping_atom ping_atom_v{};
#endif

namespace {

caf::behavior pong(caf::event_based_actor*) {
  return {
    [](ping_atom, int32_t value) { return value; },
  };
}

class ping : public caf::event_based_actor {
public:
  ping(caf::actor_config& cfg, caf::actor buddy, int32_t rounds, uint64_t* sum)
    : caf::event_based_actor(cfg), buddy_(std::move(buddy)), left_(rounds),
      sum_(sum) {
  }

  // No behavior: the actor lives as long as it awaits a response.
  caf::behavior make_behavior() override {
    next_round();
    return {};
  }

private:
  void next_round() {
    if (left_ == 0) {
      send_exit(buddy_, caf::exit_reason::user_shutdown);
      quit();
      return;
    }
    caf_compat::ask(this, buddy_, ping_atom_v, left_)
      .then([this](int32_t value) {
        *sum_ += static_cast<uint64_t>(value);
        --left_;
        next_round();
      });
  }

  caf::actor buddy_;
  int32_t left_;
  uint64_t* sum_; // read by main after the system has shut down
};

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"round-trips", 1'000'000, 1'000'000,
                        "sequential request/response round trips"}}};
  BENCH_CAF_INIT_META_OBJECTS(ping_pong);
  auto rounds = static_cast<int32_t>(opts["round-trips"]);
  uint64_t sum = 0;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    auto buddy = sys.spawn(pong);
    sys.spawn<ping>(buddy, rounds, &sum);
  } // ~actor_system waits for both actors
  auto n = static_cast<uint64_t>(rounds);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
