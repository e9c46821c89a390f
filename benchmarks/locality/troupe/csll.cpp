// CSLL (Troupe), after Savina's concsll: a hub whose service time grows
// with its data. A sorted singly linked list, kept by an actor spawned as a
// hub, starts with `initial` values; the hub spawns `workers` workers, each
// sending it `messages` requests one after another: `size-percent` ask for
// the length (a walk over the whole list), `write-percent` insert a value
// in order, the rest ask whether a value is there (a walk up to it).

#include "common/options.hpp"
#include "locality/common/workloads.hpp"
#include "locality/troupe/common.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>
#include <forward_list>
#include <iterator>

TROUPE_BEGIN_TYPE_ID_BLOCK(locality_csll, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(locality_csll, contains_atom)
  TROUPE_ADD_ATOM(locality_csll, size_atom)
  TROUPE_ADD_ATOM(locality_csll, done_atom)
TROUPE_END_TYPE_ID_BLOCK(locality_csll)

namespace {

struct parameters {
  uint64_t workers;
  uint64_t messages;
  uint64_t initial;
  uint64_t size_percent;
  uint64_t write_percent;
  uint64_t final_size;
};

struct csll_result {
  uint64_t answers = 0;
  uint64_t final_size = 0;
};

class worker : public troupe::event_based_actor {
public:
  worker(troupe::actor_config& cfg, troupe::actor list, uint64_t id, parameters params)
    : troupe::event_based_actor(cfg), list_(std::move(list)), rng_(locality::worker_seed(id)),
      params_(params) {}

protected:
  troupe::behavior make_behavior() override {
    next_request();
    return {
      [this](troupe::ok_atom) { next_request(); },
      [this](contains_atom, bool found) {
        answers_ += found ? 1 : 0;
        next_request();
      },
      [this](size_atom, uint64_t size) {
        answers_ += size >= params_.initial && size <= params_.final_size ? 1 : 0;
        next_request();
      },
    };
  }

private:
  void next_request() {
    if (sent_++ == params_.messages) {
      send(list_, done_atom_v, answers_);
      quit();
      return;
    }
    auto req = locality::next_list_request(rng_, params_.initial, params_.size_percent,
                                           params_.write_percent);
    switch (req.kind) {
      case locality::list_request::size:
        send(list_, size_atom_v);
        break;
      case locality::list_request::write:
        send(list_, troupe::add_atom_v, req.value);
        break;
      case locality::list_request::contains:
        send(list_, contains_atom_v, req.value);
        break;
    }
  }

  troupe::actor list_;
  locality::random rng_;
  parameters params_;
  uint64_t sent_ = 0;
  uint64_t answers_ = 0;
};

class sorted_list : public troupe::event_based_actor {
public:
  sorted_list(troupe::actor_config& cfg, parameters params, csll_result* result)
    : troupe::event_based_actor(cfg), params_(params), result_(result) {}

protected:
  troupe::behavior make_behavior() override {
    for (uint64_t i = params_.initial; i > 0; --i)
      items_.push_front(2 * (i - 1));
    for (uint64_t id = 0; id < params_.workers; ++id)
      spawn<worker>(self_handle(), id, params_);
    return {
      [this](troupe::add_atom, uint64_t value) {
        auto pos = items_.before_begin();
        for (auto next = std::next(pos); next != items_.end() && *next < value; ++next)
          pos = next;
        items_.insert_after(pos, value);
        return troupe::ok_atom_v;
      },
      [this](contains_atom, uint64_t value) {
        auto i = items_.begin();
        while (i != items_.end() && *i < value)
          ++i;
        return troupe::make_message(contains_atom_v, i != items_.end() && *i == value);
      },
      [this](size_atom) {
        auto size = static_cast<uint64_t>(std::distance(items_.begin(), items_.end()));
        return troupe::make_message(size_atom_v, size);
      },
      [this](done_atom, uint64_t answers) {
        result_->answers += answers;
        if (++done_ < params_.workers)
          return;
        result_->final_size = static_cast<uint64_t>(std::distance(items_.begin(), items_.end()));
        quit();
      },
    };
  }

private:
  parameters params_;
  csll_result* result_; // read by main after the system has shut down
  std::forward_list<uint64_t> items_;
  uint64_t done_ = 0;
};

} // namespace

int main(int argc, char** argv) {
  locality::scheduler_flags sched{argc, argv};
  bench::options opts{argc, argv, locality::csll_sizes()};
  parameters params{opts["workers"], opts["messages"], opts["initial"], opts["size-percent"],
                    opts["write-percent"], 0};
  if (params.workers == 0 || params.initial == 0
      || params.size_percent + params.write_percent > 100) {
    std::fprintf(stderr, "--workers and --initial must be positive, the shares at most 100\n");
    return 2;
  }
  auto writes = locality::list_writes(params.workers, params.messages, params.initial,
                                      params.size_percent, params.write_percent);
  params.final_size = params.initial + writes;
  troupe::actor_system_config cfg;
  if (!sched.apply(cfg, opts.threads()))
    return 2;
  csll_result result;
  {
    troupe::actor_system sys{cfg};
    sys.spawn<sorted_list, troupe::hub>(params, &result);
    locality::print_steals_when_done(sys);
  }
  if (result.final_size != params.final_size)
    return bench::checksum("final_size", result.final_size, params.final_size);
  return bench::checksum("answers", result.answers,
                         locality::list_expected(params.workers, params.messages, params.initial,
                                                 params.size_percent, params.write_percent));
}
