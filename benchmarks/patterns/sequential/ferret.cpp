// ferret (sequential): every query through all six stages in order on one
// thread, the baseline of the parallel versions. --threads is accepted for a
// uniform command line only.

#include "patterns/common/ferret.hpp"

#include <chrono>
#include <cstdint>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = ferret::parse(argc, argv, &threads);
  auto db = ferret::make_database(z.database);
  auto t0 = std::chrono::steady_clock::now();
  uint64_t h = ferret::search_all(db, z);
  ferret::print_compute(ferret::seconds_since(t0));
  return bench::checksum("results_hash", h, ferret::expected(db, z));
}
