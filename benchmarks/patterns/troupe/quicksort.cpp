// quicksort (troupe): Troupe's div_conq pattern sorts the vector in place.
// The vector is moved into the request and back out of the answer; the
// recursion runs as jobs on the scheduler's workers.

#include "common/options.hpp"
#include "patterns/common/quicksort.hpp"
#include "patterns/troupe/run.hpp"

#include <array>
#include <span>

namespace qs = patterns::quicksort;
using namespace troupe::patterns;

using values = std::vector<int32_t>;

int main(int argc, char** argv) {
  auto opts = qs::parse_options(argc, argv);
  auto data = qs::make_input(opts["size"]);
  auto expected = qs::expected_checksum(data);
  size_t cutoff = opts["cutoff"];
  {
    troupe::actor_system_config cfg;
    patterns::troupe_run::configure(cfg, opts.threads());
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    auto sort = spawn_pattern(sys, div_conq(
      [](slice<values> s) {
        auto [lt, gt] = qs::partition(&*s.begin(), s.size());
        return std::array{s.sub(0, lt), s.sub(gt, s.size())};
      },
      [](slice<values>&, std::span<slice<values>>) {},
      [](slice<values> s) { qs::sort_base(&*s.begin(), s.size()); },
      [cutoff](const slice<values>& s) { return s.size() <= cutoff; }));
    patterns::compute_timer timer;
    if (!patterns::troupe_run::ask(self, sort, std::move(data), data))
      return 1;
    timer.stop();
  }
  return bench::checksum("sorted", qs::result_checksum(data), expected);
}
