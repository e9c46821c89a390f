// live_actors (Troupe): spawns `actors` actors that each handle one request
// and then stay alive, and reports what each costs in resident memory while
// alive and how much of it stays after they all terminated.

#include "common/memory.hpp"
#include "common/options.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>


namespace {

troupe::behavior counter(troupe::event_based_actor*) {
  return {
    [total = int64_t{0}](troupe::ping_atom, int32_t value) mutable {
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
  auto actors = static_cast<int32_t>(opts["actors"]);
  uint64_t sum = 0;
  bool failed = false;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = opts.threads();
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    std::vector<troupe::actor> alive;
    alive.reserve(static_cast<size_t>(actors));
    auto before = bench::settled_resident_bytes();
    for (int32_t i = 1; i <= actors && !failed; ++i) {
      alive.push_back(sys.spawn(counter));
      self->request(alive.back(), troupe::infinite, troupe::ping_atom_v, i)
        .receive([&](int32_t value) { sum += static_cast<uint64_t>(value); },
                 [&](troupe::error& err) {
                   std::fprintf(stderr, "request failed: %s\n",
                                to_string(err).c_str());
                   failed = true;
                 });
    }
    auto live = bench::resident_bytes();
    for (auto& x : alive)
      self->send_exit(x, troupe::exit_reason::user_shutdown);
    alive = {};
    sys.await_all_actors_done();
    auto after = bench::settled_resident_bytes();
    auto n = static_cast<double>(actors);
    bench::report_metric("bytes_per_actor", (static_cast<double>(live) - before) / n, "B");
    bench::report_metric("retained_per_actor", (static_cast<double>(after) - before) / n, "B");
  }
  auto n = static_cast<uint64_t>(actors);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
