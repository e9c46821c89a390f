// spawn_and_await (CAF 0.17 and 1.x): from a scoped actor, spawn an actor,
// send it a request, block until the answer arrives, terminate the actor;
// one after another. Measures the latency of an actor's whole life.

#include "common/caf_compat.hpp"
#include "common/options.hpp"

#include <cstdint>
#include <cstdio>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(spawn_and_await, caf::first_custom_type_id)
  CAF_ADD_ATOM(spawn_and_await, ping_atom)
CAF_END_TYPE_ID_BLOCK(spawn_and_await)
#else
using ping_atom = caf::atom_constant<caf::atom("ping")>;
constexpr ping_atom ping_atom_v{};
#endif

namespace {

caf::behavior echo(caf::event_based_actor*) {
  return {
    [](ping_atom, int32_t value) { return value; },
  };
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"actors", 10'000, 10'000,
                        "actors spawned, asked and terminated in turn"}}};
  BENCH_CAF_INIT_META_OBJECTS(spawn_and_await);
  auto actors = static_cast<int32_t>(opts["actors"]);
  uint64_t sum = 0;
  bool failed = false;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    for (int32_t i = 1; i <= actors && !failed; ++i) {
      auto worker = self->spawn(echo);
      caf_compat::ask(self.ptr(), worker, ping_atom_v, i)
        .receive([&](int32_t value) { sum += static_cast<uint64_t>(value); },
                 [&](caf::error& err) {
                   std::fprintf(stderr, "request failed: %s\n",
                                caf::to_string(err).c_str());
                   failed = true;
                 });
      self->send_exit(worker, caf::exit_reason::user_shutdown);
    }
  }
  auto n = static_cast<uint64_t>(actors);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
