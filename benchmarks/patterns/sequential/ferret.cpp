// ferret (sequential): every query through all six stages in order on one
// thread, the baseline of the parallel versions. --threads is accepted for a
// uniform command line only.

#include "patterns/common/ferret.hpp"

#include <cstdint>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = ferret::parse(argc, argv, &threads);
  auto db = ferret::make_database(z.database);
  patterns::compute_timer timer;
  uint64_t h = ferret::search_all(db, z);
  timer.stop();
  return bench::checksum("results_hash", h, ferret::expected(db, z));
}
