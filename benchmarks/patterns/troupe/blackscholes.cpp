// blackscholes (troupe): Troupe's map pattern with static partitioning, one
// request per run. The prices vector is moved into each request and back;
// the workers share it and the read-only portfolio without copies, and the
// answer of a run is its barrier.

#include "common/options.hpp"
#include "patterns/common/blackscholes.hpp"
#include "patterns/troupe/run.hpp"

namespace bs = patterns::blackscholes;
using namespace troupe::patterns;

using prices_type = std::vector<float>;

TROUPE_BEGIN_TYPE_ID_BLOCK(patterns_blackscholes, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID_WITH_NAME(patterns_blackscholes, (prices_type), "std::vector<float>")
TROUPE_END_TYPE_ID_BLOCK(patterns_blackscholes)

int main(int argc, char** argv) {
  auto opts = bs::parse_options(argc, argv);
  auto options = bs::make_input(opts["options"]);
  auto expected = bs::expected_checksum(options);
  prices_type prices(options.size());
  {
    troupe::actor_system_config cfg;
    patterns::troupe_run::configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    const bs::option_data* xs = options.data();
    auto pricing = spawn_pattern(sys, map([xs](slice<prices_type> s) {
      bs::price_range(xs, s.container().data(), s.first(), s.last());
    }));
    patterns::compute_timer timer;
    for (uint64_t run = 0; run < opts["runs"]; ++run)
      if (!patterns::troupe_run::ask(self, pricing, std::move(prices), prices))
        return 1;
    timer.stop();
  }
  return bench::checksum("prices", bs::result_checksum(prices), expected);
}
