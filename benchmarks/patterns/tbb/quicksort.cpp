// quicksort (tbb): oneTBB's parallel_invoke sorts the two parts of every
// split as two tasks, inside a task_arena of --threads.

#include "common/options.hpp"
#include "patterns/common/quicksort.hpp"

#include <tbb/parallel_invoke.h>
#include <tbb/task_arena.h>

namespace qs = patterns::quicksort;

namespace {

void sort_parallel(int32_t* first, size_t n, size_t cutoff) {
  if (n <= cutoff) {
    qs::sort_base(first, n);
    return;
  }
  auto [lt, gt] = qs::partition(first, n);
  tbb::parallel_invoke([=] { sort_parallel(first, lt, cutoff); },
                       [=] { sort_parallel(first + gt, n - gt, cutoff); });
}

} // namespace

int main(int argc, char** argv) {
  auto opts = qs::parse_options(argc, argv);
  auto data = qs::make_input(opts["size"]);
  auto expected = qs::expected_checksum(data);
  size_t cutoff = opts["cutoff"];
  tbb::task_arena arena{static_cast<int>(opts.threads())};
  patterns::compute_timer timer;
  arena.execute([&] { sort_parallel(data.data(), data.size(), cutoff); });
  timer.stop();
  return bench::checksum("sorted", qs::result_checksum(data), expected);
}
