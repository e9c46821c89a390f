// blackscholes (caf-0.17 and caf-1.x): CAF's plain actors the "pure" actor way
// of seed 001's first Map: a master and one worker actor per thread. For
// each run the master sends every worker a copy of its static chunk of the
// portfolio, each worker prices the chunk into a new vector and sends it
// back, and the master copies the parts into place; when all are back, the
// next run starts (a barrier made of messages).
// troupe-actors/blackscholes.cpp is the same program against Troupe's API; the
// CAF-version differences go through common/caf_compat.hpp.

#include "common/caf_compat.hpp"
#include "common/options.hpp"
#include "patterns/common/blackscholes.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

namespace bs = patterns::blackscholes;

using floats = std::vector<float>;

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(patterns_blackscholes, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(patterns_blackscholes, (std::vector<float>))
CAF_END_TYPE_ID_BLOCK(patterns_blackscholes)
#endif

namespace {

// Messages: `(int32_t chunk, floats records)` to a worker (packed options,
// bs::fields floats each), `(int32_t chunk, floats prices)` back to the
// master, and `floats prices` (all of them) from the master at the end.
caf::behavior worker(caf::event_based_actor* self, caf::actor master,
                     uint64_t runs) {
  // The chunks still to come: shared, since the behaviour keeps copies of
  // its handlers.
  auto left = std::make_shared<uint64_t>(runs);
  return {
    [=](int32_t chunk, const floats& records) {
      floats prices(records.size() / bs::fields);
      bs::price_packed(records.data(), prices.data(), 0, prices.size());
      caf_compat::tell(self, master, chunk, std::move(prices));
      if (--*left == 0)
        self->quit();
    },
  };
}

class master : public caf::event_based_actor {
public:
  master(caf::actor_config& cfg, caf::actor client, floats records, uint64_t runs,
         size_t workers)
    : caf::event_based_actor(cfg), client_(std::move(client)),
      records_(std::move(records)), prices_(records_.size() / bs::fields), runs_(runs),
      worker_count_(workers) {}

  caf::behavior make_behavior() override {
    for (size_t w = 0; w < worker_count_; ++w)
      workers_.push_back(spawn(worker, caf::actor_cast<caf::actor>(this), runs_));
    start_run();
    return {
      [this](int32_t chunk, const floats& part) {
        size_t first, last;
        bs::chunk(prices_.size(), worker_count_, static_cast<size_t>(chunk), first, last);
        std::copy(part.begin(), part.end(), prices_.begin() + static_cast<ptrdiff_t>(first));
        if (--pending_ > 0)
          return;
        if (++run_ < runs_) {
          start_run();
          return;
        }
        caf_compat::tell(this, client_, std::move(prices_));
        quit();
      },
    };
  }

private:
  void start_run() {
    for (size_t w = 0; w < worker_count_; ++w) {
      size_t first, last;
      bs::chunk(prices_.size(), worker_count_, w, first, last);
      caf_compat::tell(this, workers_[w], static_cast<int32_t>(w),
                       floats(records_.begin() + static_cast<ptrdiff_t>(first * bs::fields),
                              records_.begin() + static_cast<ptrdiff_t>(last * bs::fields)));
    }
    pending_ = worker_count_;
  }

  caf::actor client_;
  floats records_;
  floats prices_;
  uint64_t runs_;
  size_t worker_count_;
  std::vector<caf::actor> workers_;
  uint64_t run_ = 0;
  size_t pending_ = 0; // chunks of this run not yet back
};

} // namespace

int main(int argc, char** argv) {
  auto opts = bs::parse_options(argc, argv);
  auto options = bs::make_input(opts["options"]);
  auto expected = bs::expected_checksum(options);
  auto runs = opts["runs"];
  floats prices;
  if (runs == 0) {
    std::fprintf(stderr, "--runs must be positive\n");
    return 2;
  }
  BENCH_CAF_INIT_META_OBJECTS(patterns_blackscholes);
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    auto records = bs::pack_all(options);
    patterns::compute_timer timer;
    sys.spawn<master>(caf::actor{self}, std::move(records), runs, opts.threads());
    self->receive([&](floats& all) { prices = std::move(all); });
    timer.stop();
  }
  return bench::checksum("prices", bs::result_checksum(prices), expected);
}
