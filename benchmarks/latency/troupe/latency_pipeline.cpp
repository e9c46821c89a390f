// latency_pipeline (Troupe): the paper's Fig. 5 benchmark. A blocking
// generator sends (t_gen, t_hop) at a mean rate, periodic or Poisson,
// through N event-based stages (stage K detached with --detached=K) to a
// collector; see common/pipeline.hpp for the timestamps and README.md for
// the metrics.
//
//   latency_pipeline --stages=N --rate=R --duration=S [--detached=K]
//                    [--threads=T] [--config=NAME] [--wake-gap-us=G]
//                    [--arrivals=periodic|poisson] [--seed=N]
//                    [--wait-timeout=DURATION] [--idle-budget=SHARE]
//
// --wait-timeout sets troupe.scheduler.wait-timeout of --config=event,
// --idle-budget troupe.scheduler.idle-budget of --config=adaptive.

#include "latency/common/pipeline.hpp"
#include "latency/troupe/configs.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

class stage : public troupe::event_based_actor {
public:
  stage(troupe::actor_config& cfg, latency::pipeline_run* run, size_t index, troupe::actor next)
    : troupe::event_based_actor(cfg), run_(run), index_(index), next_(std::move(next)) {}

protected:
  troupe::behavior make_behavior() override {
    return {
      [this](int64_t t_gen, int64_t t_hop) {
        send(next_, t_gen, run_->hop_arrived(index_, t_hop));
        if (++forwarded_ == run_->total_messages())
          quit();
      },
    };
  }

private:
  latency::pipeline_run* run_;
  size_t index_;
  troupe::actor next_;
  uint64_t forwarded_ = 0;
};

class collector : public troupe::event_based_actor {
public:
  collector(troupe::actor_config& cfg, latency::pipeline_run* run)
    : troupe::event_based_actor(cfg), run_(run) {}

protected:
  troupe::behavior make_behavior() override {
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

void generator(troupe::blocking_actor* self, latency::pipeline_run* run, troupe::actor first) {
  run->generate([&](int64_t t) { self->send(first, t, t); });
}

} // namespace

int main(int argc, char** argv) {
  latency::command_line cl{argc, argv,
                           std::string{latency::pipeline_usage}
                             + " [--wait-timeout=DURATION] [--idle-budget=SHARE]"};
  auto opts = latency::read_pipeline_options(cl, latency::troupe_configs);
  std::vector<std::pair<std::string, std::string>> extra;
  std::string case_name = opts.case_name();
  // --NAME=VALUE sets troupe.scheduler.NAME of one configuration and
  // names itself in the case.
  auto key_flag = [&](const char* flag, const char* config) {
    if (!cl.has(flag))
      return;
    if (opts.config != config)
      cl.fail(std::string{"--"} + flag + " applies to --config=" + config + " only");
    auto value = cl.text(flag, nullptr);
    extra.emplace_back(std::string{"troupe.scheduler."} + flag, value);
    case_name += std::string{","} + flag + "=" + value;
  };
  key_flag("wait-timeout", "event");
  key_flag("idle-budget", "adaptive");
  cl.finish();
  troupe::actor_system_config cfg;
  if (!latency::apply_troupe_config(cfg, opts.config, opts.threads, extra))
    return 2;
  latency::pipeline_run run{opts};
  {
    troupe::actor_system sys{cfg};
    troupe::actor next = sys.spawn<collector>(&run);
    for (auto index = opts.stages; index >= 1; --index) {
      if (index == opts.detached)
        next = sys.spawn<stage, troupe::detached>(&run, static_cast<size_t>(index), next);
      else
        next = sys.spawn<stage>(&run, static_cast<size_t>(index), next);
    }
    sys.spawn(generator, &run, next);
    if (!run.wait()) {
      run.explain_timeout(argv[0]);
      std::_Exit(1); // the actors still wait for messages: no clean shutdown
    }
  } // ~actor_system: every stage quit after its last message
  run.report({case_name, "troupe", opts.config});
  return 0;
}
