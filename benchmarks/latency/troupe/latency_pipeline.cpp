// latency_pipeline (Troupe): the paper's Fig. 5 benchmark. A blocking
// generator sends (t_gen, t_hop) at a constant rate through N event-based
// stages (stage K detached with --detached=K) to a collector; see
// common/pipeline.hpp for the timestamps and README.md for the metrics.
//
//   latency_pipeline --stages=N --rate=R --duration=S [--detached=K]
//                    [--threads=T] [--config=NAME] [--wait-timeout=DURATION]
//
// --wait-timeout sets troupe.work-stealing.wait-timeout of --config=event.

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
        if (++forwarded_ == run_->options().messages)
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
                           std::string{latency::pipeline_usage} + " [--wait-timeout=DURATION]"};
  auto opts = latency::read_pipeline_options(cl, latency::troupe_configs);
  std::vector<std::pair<std::string, std::string>> extra;
  std::string case_name = opts.case_name();
  if (cl.has("wait-timeout")) {
    if (opts.config != "event")
      cl.fail("--wait-timeout applies to --config=event only");
    auto timeout = cl.text("wait-timeout", nullptr);
    extra.emplace_back("troupe.work-stealing.wait-timeout", timeout);
    case_name += ",wait-timeout=" + timeout;
  }
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
