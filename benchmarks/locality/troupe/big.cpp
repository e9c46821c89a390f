// BIG (Troupe), after BenchErl's big: many to many. Each of `actors` actors
// pings every other one and answers each ping with a pong; once it has all
// its pongs it reports to main, which then stops them all.

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_big, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(locality_big, (std::vector<troupe::actor>))
  TROUPE_ADD_ATOM(locality_big, done_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_big)

namespace {

class pinger : public troupe::event_based_actor {
public:
  using troupe::event_based_actor::event_based_actor;

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](const std::vector<troupe::actor>& peers, const troupe::actor& report_to) {
        report_to_ = report_to;
        for (const auto& peer : peers)
          if (peer != self_handle())
            send(peer, troupe::ping_atom_v);
        expected_ = peers.size() - 1;
      },
      [](troupe::ping_atom) { return troupe::pong_atom_v; },
      [this](troupe::pong_atom) {
        if (++pongs_ == expected_)
          send(report_to_, done_atom_v, pongs_);
      },
    };
  }

private:
  troupe::actor report_to_;
  uint64_t expected_ = 0;
  uint64_t pongs_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::big_sizes()};
  auto n = opts["actors"];
  if (n < 2) {
    std::fprintf(stderr, "--actors must be at least 2\n");
    return 2;
  }
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  uint64_t pongs = 0;
  {
    troupe::actor_system sys{cfg};
    std::vector<troupe::actor> peers;
    peers.reserve(n);
    for (uint64_t i = 0; i < n; ++i)
      peers.push_back(sys.spawn<pinger>());
    troupe::scoped_actor self{sys};
    for (const auto& peer : peers)
      self->send(peer, peers, troupe::actor{self});
    for (uint64_t i = 0; i < n; ++i)
      self->receive([&](done_atom, uint64_t count) { pongs += count; });
    for (const auto& peer : peers)
      self->send_exit(peer, troupe::exit_reason::user_shutdown);
    locality::print_steals_when_done(sys);
  }
  return bench::checksum("pongs", pongs, n * (n - 1));
}
