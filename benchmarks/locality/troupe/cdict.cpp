// CDICT (Troupe), after Savina's concdict: a hub and its clients. A
// dictionary actor, spawned as a hub, fills a hash table with `keys` keys
// and spawns `workers` workers; each sends it `messages` requests one after
// another, `write-percent` of them writes, the rest reads. A value is
// `value-words` 64-bit words, copied into every write and every answer to a
// read, so the value size sets how much memory each request touches.

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>
#include <unordered_map>
#include <vector>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_cdict, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(locality_cdict, done_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_cdict)

namespace {

using value = std::vector<uint64_t>;

struct parameters {
  uint64_t workers;
  uint64_t messages;
  uint64_t keys;
  uint64_t value_words;
  uint64_t write_percent;
};

class worker : public troupe::event_based_actor {
public:
  worker(troupe::actor_config& cfg, troupe::actor dictionary, uint64_t id, parameters params)
    : troupe::event_based_actor(cfg), dictionary_(std::move(dictionary)),
      rng_(locality::worker_seed(id)), params_(params) {}

protected:
  troupe::behavior make_behavior() override {
    next_request();
    return {
      [this](troupe::ok_atom) { next_request(); },
      [this](const value& x) {
        sum_ += locality::words_sum(x);
        next_request();
      },
    };
  }

private:
  void next_request() {
    if (sent_++ == params_.messages) {
      send(dictionary_, done_atom_v, sum_);
      quit();
      return;
    }
    auto write = rng_.below(100) < params_.write_percent;
    auto key = rng_.below(params_.keys);
    if (write)
      send(dictionary_, troupe::put_atom_v, key,
        locality::dictionary_value(key, params_.value_words));
    else
      send(dictionary_, troupe::get_atom_v, key);
  }

  troupe::actor dictionary_;
  locality::random rng_;
  parameters params_;
  uint64_t sent_ = 0;
  uint64_t sum_ = 0;
};

class dictionary : public troupe::event_based_actor {
public:
  dictionary(troupe::actor_config& cfg, parameters params, uint64_t* result)
    : troupe::event_based_actor(cfg), params_(params), result_(result) {}

protected:
  troupe::behavior make_behavior() override {
    table_.reserve(params_.keys);
    for (uint64_t key = 0; key < params_.keys; ++key)
      table_.emplace(key, locality::dictionary_value(key, params_.value_words));
    for (uint64_t id = 0; id < params_.workers; ++id)
      spawn<worker>(self_handle(), id, params_);
    return {
      [this](troupe::get_atom, uint64_t key) { return table_.at(key); },
      [this](troupe::put_atom, uint64_t key, value& x) {
        table_[key] = std::move(x);
        return troupe::ok_atom_v;
      },
      [this](done_atom, uint64_t sum) {
        *result_ += sum;
        if (++done_ == params_.workers)
          quit();
      },
    };
  }

private:
  parameters params_;
  uint64_t* result_; // read by main after the system has shut down
  std::unordered_map<uint64_t, value> table_;
  uint64_t done_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::cdict_sizes()};
  parameters params{opts["workers"], opts["messages"], opts["keys"], opts["value-words"],
                    opts["write-percent"]};
  if (params.workers == 0 || params.keys == 0 || params.write_percent > 100) {
    std::fprintf(stderr, "--workers and --keys must be positive, --write-percent at most 100\n");
    return 2;
  }
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  uint64_t result = 0;
  {
    troupe::actor_system sys{cfg};
    sys.spawn<dictionary, troupe::hub>(params, &result);
    locality::print_steals_when_done(sys);
  }
  return bench::checksum("read_sum", result,
                         locality::dictionary_expected(params.workers, params.messages,
                                                       params.keys, params.value_words,
                                                       params.write_percent));
}
