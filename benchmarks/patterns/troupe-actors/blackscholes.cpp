// blackscholes (troupe-actors): Troupe's plain actors the "pure" actor way
// of seed 001's first Map: a master and one worker actor per thread. For
// each run the master sends every worker a copy of its static chunk of the
// portfolio, each worker prices the chunk into a new vector and sends it
// back, and the master copies the parts into place; when all are back, the
// next run starts (a barrier made of messages).
// caf/blackscholes.cpp is the same program against CAF's API.

#include "common/options.hpp"
#include "patterns/common/blackscholes.hpp"

#include <troupe/all.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>
#include <vector>

namespace bs = patterns::blackscholes;

using floats = std::vector<float>;

TROUPE_BEGIN_TYPE_ID_BLOCK(patterns_blackscholes, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(patterns_blackscholes, (std::vector<float>))
TROUPE_END_TYPE_ID_BLOCK(patterns_blackscholes)

namespace {

// Messages: `(int32_t chunk, floats records)` to a worker (packed options,
// bs::fields floats each), `(int32_t chunk, floats prices)` back to the
// master, and `floats prices` (all of them) from the master at the end.
troupe::behavior worker(troupe::event_based_actor* self, troupe::actor master,
                        uint64_t runs) {
  // The chunks still to come: shared, since the behaviour keeps copies of
  // its handlers.
  auto left = std::make_shared<uint64_t>(runs);
  return {
    [=](int32_t chunk, const floats& records) {
      floats prices(records.size() / bs::fields);
      bs::price_packed(records.data(), prices.data(), 0, prices.size());
      self->send(master, chunk, std::move(prices));
      if (--*left == 0)
        self->quit();
    },
  };
}

class master : public troupe::event_based_actor {
public:
  master(troupe::actor_config& cfg, troupe::actor client, floats records, uint64_t runs,
         size_t workers)
    : troupe::event_based_actor(cfg), client_(std::move(client)),
      records_(std::move(records)), prices_(records_.size() / bs::fields), runs_(runs),
      worker_count_(workers) {}

protected:
  troupe::behavior make_behavior() override {
    for (size_t w = 0; w < worker_count_; ++w)
      workers_.push_back(spawn(worker, self_handle(), runs_));
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
        send(client_, std::move(prices_));
        quit();
      },
    };
  }

private:
  void start_run() {
    for (size_t w = 0; w < worker_count_; ++w) {
      size_t first, last;
      bs::chunk(prices_.size(), worker_count_, w, first, last);
      send(workers_[w], static_cast<int32_t>(w),
           floats(records_.begin() + static_cast<ptrdiff_t>(first * bs::fields),
                  records_.begin() + static_cast<ptrdiff_t>(last * bs::fields)));
    }
    pending_ = worker_count_;
  }

  troupe::actor client_;
  floats records_;
  floats prices_;
  uint64_t runs_;
  size_t worker_count_;
  std::vector<troupe::actor> workers_;
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
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = opts.threads();
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    auto records = bs::pack_all(options);
    patterns::compute_timer timer;
    sys.spawn<master>(troupe::actor{self}, std::move(records), runs, opts.threads());
    self->receive([&](floats& all) { prices = std::move(all); });
    timer.stop();
  }
  return bench::checksum("prices", bs::result_checksum(prices), expected);
}
