// LOGM (CAF 0.17 and 1.x), after Savina's logmap: pairs of actors in request
// and response. A master spawns `series` rate computers and as many series
// workers, one pair per series, and asks every worker for `terms` next
// terms; a worker requests each term from its computer and awaits the
// answer before it takes the next request. Then the master collects the
// last terms.

#include "common/caf_compat.hpp"
#include "common/options.hpp"
#include "locality/common/workloads.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(locality_logm, caf::first_custom_type_id)
  CAF_ADD_ATOM(locality_logm, next_term_atom)
CAF_END_TYPE_ID_BLOCK(locality_logm)
#else
using next_term_atom = caf::atom_constant<caf::atom("nextterm")>;
constexpr next_term_atom next_term_atom_v{};
#endif

namespace {

constexpr double start_rate = 3.46;
constexpr double increment = 0.0025;

caf::behavior rate_computer(caf::event_based_actor*, double rate) {
  return {
    [rate](double term) { return locality::logistic_next(term, rate); },
  };
}

class series_worker : public caf::event_based_actor {
public:
  series_worker(caf::actor_config& cfg, caf::actor computer, double start_term)
    : caf::event_based_actor(cfg), computer_(std::move(computer)), term_(start_term) {}

  caf::behavior make_behavior() override {
    return {
      [this](next_term_atom) {
        caf_compat::ask(this, computer_, term_).await([this](double next) { term_ = next; });
      },
      [this](caf::get_atom) { return term_; },
    };
  }

private:
  caf::actor computer_;
  double term_;
};

class master : public caf::event_based_actor {
public:
  master(caf::actor_config& cfg, uint64_t terms, uint64_t series, uint64_t* result)
    : caf::event_based_actor(cfg), terms_(terms), series_(series), result_(result) {}

  caf::behavior make_behavior() override {
    for (uint64_t i = 0; i < series_; ++i) {
      auto rate = start_rate + static_cast<double>(i) * increment;
      computers_.push_back(spawn(rate_computer, rate));
      auto start_term = static_cast<double>(i) * increment;
      workers_.push_back(spawn<series_worker>(computers_.back(), start_term));
    }
    for (uint64_t t = 0; t < terms_; ++t)
      for (const auto& worker : workers_)
        caf_compat::tell(this, worker, next_term_atom_v);
    for (const auto& worker : workers_)
      caf_compat::tell(this, worker, caf::get_atom_v);
    return {
      [this](double term) {
        *result_ += locality::logistic_fixed(term);
        if (++received_ < series_)
          return;
        for (const auto& x : computers_)
          send_exit(x, caf::exit_reason::user_shutdown);
        for (const auto& x : workers_)
          send_exit(x, caf::exit_reason::user_shutdown);
        quit();
      },
    };
  }

private:
  uint64_t terms_;
  uint64_t series_;
  uint64_t* result_; // read by main after the system has shut down
  uint64_t received_ = 0;
  std::vector<caf::actor> computers_;
  std::vector<caf::actor> workers_;
};

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv, locality::logm_sizes()};
  BENCH_CAF_INIT_META_OBJECTS(locality_logm);
  auto terms = opts["terms"];
  auto series = opts["series"];
  if (series == 0) {
    std::fprintf(stderr, "--series must be positive\n");
    return 2;
  }
  uint64_t result = 0;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    sys.spawn<master>(terms, series, &result);
  } // ~actor_system waits for every actor
  return bench::checksum("last_terms_e15", result,
                         locality::logistic_expected(terms, series, start_rate, increment));
}
