// LOGM (Troupe), after Savina's logmap: pairs of actors in request and
// response. A master spawns `series` rate computers and as many series
// workers, one pair per series, and asks every worker for `terms` next
// terms; a worker requests each term from its computer and awaits the
// answer before it takes the next request. Then the master collects the
// last terms.

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_logm, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(locality_logm, next_term_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_logm)

namespace {

constexpr double start_rate = 3.46;
constexpr double increment = 0.0025;

troupe::behavior rate_computer(troupe::event_based_actor*, double rate) {
  return {
    [rate](double term) { return locality::logistic_next(term, rate); },
  };
}

class series_worker : public troupe::event_based_actor {
public:
  series_worker(troupe::actor_config& cfg, troupe::actor computer, double start_term)
    : troupe::event_based_actor(cfg), computer_(std::move(computer)), term_(start_term) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](next_term_atom) {
        request(computer_, troupe::infinite, term_).await([this](double next) { term_ = next; });
      },
      [this](troupe::get_atom) { return term_; },
    };
  }

private:
  troupe::actor computer_;
  double term_;
};

class master : public troupe::event_based_actor {
public:
  master(troupe::actor_config& cfg, uint64_t terms, uint64_t series, uint64_t* result)
    : troupe::event_based_actor(cfg), terms_(terms), series_(series), result_(result) {}

protected:
  troupe::behavior make_behavior() override {
    for (uint64_t i = 0; i < series_; ++i) {
      auto rate = start_rate + static_cast<double>(i) * increment;
      computers_.push_back(spawn(rate_computer, rate));
      auto start_term = static_cast<double>(i) * increment;
      workers_.push_back(spawn<series_worker>(computers_.back(), start_term));
    }
    for (uint64_t t = 0; t < terms_; ++t)
      for (const auto& worker : workers_)
        send(worker, next_term_atom_v);
    for (const auto& worker : workers_)
      send(worker, troupe::get_atom_v);
    return {
      [this](double term) {
        *result_ += locality::logistic_fixed(term);
        if (++received_ < series_)
          return;
        for (const auto& x : computers_)
          send_exit(x, troupe::exit_reason::user_shutdown);
        for (const auto& x : workers_)
          send_exit(x, troupe::exit_reason::user_shutdown);
        quit();
      },
    };
  }

private:
  uint64_t terms_;
  uint64_t series_;
  uint64_t* result_; // read by main after the system has shut down
  uint64_t received_ = 0;
  std::vector<troupe::actor> computers_;
  std::vector<troupe::actor> workers_;
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::logm_sizes()};
  auto terms = opts["terms"];
  auto series = opts["series"];
  if (series == 0) {
    std::fprintf(stderr, "--series must be positive\n");
    return 2;
  }
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  uint64_t result = 0;
  {
    troupe::actor_system sys{cfg};
    sys.spawn<master>(terms, series, &result);
    locality::print_steals_when_done(sys);
  }
  return bench::checksum("last_terms_e15", result,
                         locality::logistic_expected(terms, series, start_rate, increment));
}
