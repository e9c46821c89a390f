// live_actors (CAF 0.17 and 1.x): spawns `actors` actors that each handle
// one request and then stay alive, and reports what each costs in resident
// memory while alive and how much of it stays after they all terminated.

#include "common/caf_compat.hpp"
#include "common/memory.hpp"
#include "common/options.hpp"

#include <cstdint>
#include <cstdio>
#include <vector>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(live_actors, caf::first_custom_type_id)
  CAF_ADD_ATOM(live_actors, ping_atom)
CAF_END_TYPE_ID_BLOCK(live_actors)
#else
using ping_atom = caf::atom_constant<caf::atom("ping")>;
constexpr ping_atom ping_atom_v{};
#endif

namespace {

caf::behavior counter(caf::event_based_actor*) {
  return {
    [total = int64_t{0}](ping_atom, int32_t value) mutable {
      total += value;
      return static_cast<int32_t>(total);
    },
  };
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"actors", 100'000, 1'000'000,
                        "actors kept alive at once, each after one request"}}};
  BENCH_CAF_INIT_META_OBJECTS(live_actors);
  auto actors = static_cast<int32_t>(opts["actors"]);
  uint64_t sum = 0;
  bool failed = false;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    std::vector<caf::actor> alive;
    alive.reserve(static_cast<size_t>(actors));
    // Not await_all_actors_done: it would wait for the scoped actor too.
    auto running = caf_compat::running_actors(sys);
    auto before = bench::settled_resident_bytes();
    for (int32_t i = 1; i <= actors && !failed; ++i) {
      alive.push_back(self->spawn(counter));
      caf_compat::ask(self.ptr(), alive.back(), ping_atom_v, i)
        .receive([&](int32_t value) { sum += static_cast<uint64_t>(value); },
                 [&](caf::error& err) {
                   std::fprintf(stderr, "request failed: %s\n",
                                caf::to_string(err).c_str());
                   failed = true;
                 });
    }
    auto live = bench::resident_bytes();
    for (auto& x : alive)
      self->send_exit(x, caf::exit_reason::user_shutdown);
    alive = {};
    caf_compat::await_running_actors(sys, running);
    auto after = bench::settled_resident_bytes();
    auto n = static_cast<double>(actors);
    bench::report_metric("bytes_per_actor", (static_cast<double>(live) - before) / n, "B");
    bench::report_metric("retained_per_actor", (static_cast<double>(after) - before) / n, "B");
  }
  auto n = static_cast<uint64_t>(actors);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
