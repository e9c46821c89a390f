// latency_pipeline (CAF 0.17 and 1.x): the paper's Fig. 5 benchmark. A
// blocking generator sends (t_gen, t_hop) at a mean rate, periodic or
// Poisson, through N event-based stages (stage K detached with
// --detached=K) to a collector; see common/pipeline.hpp for the timestamps
// and README.md for the metrics.
//
//   latency_pipeline --stages=N --rate=R --duration=S [--detached=K]
//                    [--threads=T] [--config=default|custom|aggressive]
//                    [--wake-gap-us=G] [--arrivals=periodic|poisson] [--seed=N]

#include "latency/caf/configs.hpp"
#include "latency/common/pipeline.hpp"

#include <cstdint>
#include <cstdlib>

namespace {

class stage : public caf::event_based_actor {
public:
  stage(caf::actor_config& cfg, latency::pipeline_run* run, size_t index, caf::actor next)
    : caf::event_based_actor(cfg), run_(run), index_(index), next_(std::move(next)) {
  }

  caf::behavior make_behavior() override {
    return {
      [this](int64_t t_gen, int64_t t_hop) {
        caf_compat::tell(this, next_, t_gen, run_->hop_arrived(index_, t_hop));
        if (++forwarded_ == run_->total_messages())
          quit();
      },
    };
  }

private:
  latency::pipeline_run* run_;
  size_t index_;
  caf::actor next_;
  uint64_t forwarded_ = 0;
};

class collector : public caf::event_based_actor {
public:
  collector(caf::actor_config& cfg, latency::pipeline_run* run)
    : caf::event_based_actor(cfg), run_(run) {
  }

  caf::behavior make_behavior() override {
    return {
      [this](int64_t t_gen, int64_t t_hop) {
        if (run_->collect(t_gen, t_hop))
          quit();
      },
    };
  }

private:
  latency::pipeline_run* run_;
};

void generator(caf::blocking_actor* self, latency::pipeline_run* run, caf::actor first) {
  run->generate([&](int64_t t) { caf_compat::tell(self, first, t, t); });
}

} // namespace

int main(int argc, char** argv) {
  latency::command_line cl{argc, argv, latency::pipeline_usage};
  auto opts = latency::read_pipeline_options(cl, latency::caf_configs);
  cl.finish();
  latency::init_caf();
  latency::pipeline_run run{opts};
  {
    caf::actor_system_config cfg;
    latency::apply_caf_config(cfg, opts.config, opts.threads);
    caf::actor_system sys{cfg};
    caf::actor next = sys.spawn<collector>(&run);
    for (auto index = opts.stages; index >= 1; --index) {
      if (index == opts.detached)
        next = sys.spawn<stage, caf::detached>(&run, static_cast<size_t>(index), next);
      else
        next = sys.spawn<stage>(&run, static_cast<size_t>(index), next);
    }
    sys.spawn(generator, &run, next);
    if (!run.wait()) {
      run.explain_timeout(argv[0]);
      std::_Exit(1); // the actors still wait for messages: no clean shutdown
    }
  } // ~actor_system: every stage quit after its last message
  run.report({opts.case_name(), latency::caf_system_name(), opts.config});
  return 0;
}
