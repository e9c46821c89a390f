// quicksort (threads): OpenMP tasks. One thread of a team of --threads
// starts the recursion; every split makes the part below the pivot a task
// and sorts the part above itself, then waits for the task.

#include "common/options.hpp"
#include "patterns/common/quicksort.hpp"

#include <omp.h>

namespace qs = patterns::quicksort;

namespace {

void sort_parallel(int32_t* first, size_t n, size_t cutoff) {
  if (n <= cutoff) {
    qs::sort_base(first, n);
    return;
  }
  auto [lt, gt] = qs::partition(first, n);
#pragma omp task default(none) firstprivate(first, lt, cutoff)
  sort_parallel(first, lt, cutoff);
  sort_parallel(first + gt, n - gt, cutoff);
#pragma omp taskwait
}

} // namespace

int main(int argc, char** argv) {
  auto opts = qs::parse_options(argc, argv);
  auto data = qs::make_input(opts["size"]);
  auto expected = qs::expected_checksum(data);
  size_t cutoff = opts["cutoff"];
  auto threads = static_cast<int>(opts.threads());
  patterns::compute_timer timer;
#pragma omp parallel num_threads(threads) default(none) shared(data, cutoff)
#pragma omp single
  sort_parallel(data.data(), data.size(), cutoff);
  timer.stop();
  return bench::checksum("sorted", qs::result_checksum(data), expected);
}
