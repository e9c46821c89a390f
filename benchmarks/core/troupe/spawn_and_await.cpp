// spawn_and_await (Troupe): from a scoped actor, spawn an actor, send it a
// request, block until the answer arrives, terminate the actor; one after
// another. Measures the latency of an actor's whole life.

#include "common/options.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>


namespace {

troupe::behavior echo(troupe::event_based_actor*) {
  return {
    [](troupe::ping_atom, int32_t value) { return value; },
  };
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"actors", 10'000, 10'000,
                        "actors spawned, asked and terminated in turn"}}};
  auto actors = static_cast<int32_t>(opts["actors"]);
  uint64_t sum = 0;
  bool failed = false;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = opts.threads();
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    for (int32_t i = 1; i <= actors && !failed; ++i) {
      auto worker = sys.spawn(echo);
      self->request(worker, troupe::infinite, troupe::ping_atom_v, i)
        .receive([&](int32_t value) { sum += static_cast<uint64_t>(value); },
                 [&](troupe::error& err) {
                   std::fprintf(stderr, "request failed: %s\n",
                                to_string(err).c_str());
                   failed = true;
                 });
      self->send_exit(worker, troupe::exit_reason::user_shutdown);
    }
  }
  auto n = static_cast<uint64_t>(actors);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
