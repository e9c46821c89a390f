// BIG (CAF 0.17 and 1.x), after BenchErl's big: many to many. Each of
// `actors` actors pings every other one and answers each ping with a pong;
// once it has all its pongs it reports to main, which then stops them all.

#include "common/caf_compat.hpp"
#include "common/options.hpp"
#include "locality/common/workloads.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(locality_big, caf::first_custom_type_id)
  CAF_ADD_ATOM(locality_big, done_atom)
CAF_END_TYPE_ID_BLOCK(locality_big)
#else
using done_atom = caf::atom_constant<caf::atom("done")>;
constexpr done_atom done_atom_v{};
#endif

using caf::ping_atom_v;
using caf::pong_atom_v;

namespace {

class pinger : public caf::event_based_actor {
public:
  using caf::event_based_actor::event_based_actor;

  caf::behavior make_behavior() override {
    return {
      [this](const std::vector<caf::actor>& peers, const caf::actor& report_to) {
        report_to_ = report_to;
        auto me = caf::actor_cast<caf::actor>(this);
        for (const auto& peer : peers)
          if (peer != me)
            caf_compat::tell(this, peer, ping_atom_v);
        expected_ = peers.size() - 1;
      },
      [](caf::ping_atom) { return pong_atom_v; },
      [this](caf::pong_atom) {
        if (++pongs_ == expected_)
          caf_compat::tell(this, report_to_, done_atom_v, pongs_);
      },
    };
  }

private:
  caf::actor report_to_;
  uint64_t expected_ = 0;
  uint64_t pongs_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv, locality::big_sizes()};
  BENCH_CAF_INIT_META_OBJECTS(locality_big);
  auto n = opts["actors"];
  if (n < 2) {
    std::fprintf(stderr, "--actors must be at least 2\n");
    return 2;
  }
  uint64_t pongs = 0;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    std::vector<caf::actor> peers;
    peers.reserve(n);
    for (uint64_t i = 0; i < n; ++i)
      peers.push_back(sys.spawn<pinger>());
    caf::scoped_actor self{sys};
    for (const auto& peer : peers)
      caf_compat::tell(self.ptr(), peer, peers, caf::actor{self});
    for (uint64_t i = 0; i < n; ++i)
      self->receive([&](done_atom, uint64_t count) { pongs += count; });
    for (const auto& peer : peers)
      self->send_exit(peer, caf::exit_reason::user_shutdown);
  }
  return bench::checksum("pongs", pongs, n * (n - 1));
}
