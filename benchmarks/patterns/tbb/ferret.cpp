// ferret (tbb): one parallel_pipeline: load serial_in_order, the four farm
// stages parallel, output serial_in_order; at most 4 x --threads queries in
// flight, at most --threads workers (global_control).

#include "patterns/common/ferret.hpp"

#include <tbb/global_control.h>
#include <tbb/parallel_pipeline.h>

#include <cstdint>
#include <vector>

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = ferret::parse(argc, argv, &threads);
  auto db = ferret::make_database(z.database);
  tbb::global_control limit{tbb::global_control::max_allowed_parallelism, threads};
  patterns::compute_timer timer;
  std::vector<std::vector<int32_t>> results(static_cast<size_t>(z.queries));
  int32_t next_id = 0;
  using tbb::filter_mode;
  using query_ptr = ferret::query*;
  tbb::parallel_pipeline(
    4 * threads,
    tbb::make_filter<void, query_ptr>(filter_mode::serial_in_order,
                                      [&](tbb::flow_control& fc) -> query_ptr {
                                        if (next_id == z.queries) {
                                          fc.stop();
                                          return nullptr;
                                        }
                                        auto* q = new ferret::query;
                                        q->id = next_id++;
                                        q->pixels = ferret::load(q->id, z.side);
                                        return q;
                                      })
      & tbb::make_filter<query_ptr, query_ptr>(filter_mode::parallel,
                                               [&](query_ptr q) {
                                                 q->kept = ferret::segment(q->pixels, z.side,
                                                                           q->labels);
                                                 return q;
                                               })
      & tbb::make_filter<query_ptr, query_ptr>(filter_mode::parallel,
                                               [&](query_ptr q) {
                                                 q->feature = ferret::extract(
                                                   q->pixels, z.side, q->labels, q->kept);
                                                 return q;
                                               })
      & tbb::make_filter<query_ptr, query_ptr>(filter_mode::parallel,
                                               [&](query_ptr q) {
                                                 q->candidates = ferret::lookup(db, q->feature);
                                                 return q;
                                               })
      & tbb::make_filter<query_ptr, query_ptr>(filter_mode::parallel,
                                               [&](query_ptr q) {
                                                 q->top = ferret::rank(db, q->feature,
                                                                       q->candidates);
                                                 return q;
                                               })
      & tbb::make_filter<query_ptr, void>(filter_mode::serial_in_order, [&](query_ptr q) {
          results[static_cast<size_t>(q->id)] = std::move(q->top);
          delete q;
        }));
  uint64_t h = ferret::hash_results(results);
  timer.stop();
  return bench::checksum("results_hash", h, ferret::expected(db, z));
}
