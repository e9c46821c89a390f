// A program for shutdown_signal_test: TROUPE_MAIN around a main function
// that returns at once and leaves an actor with something still to do.
//
//   --mode=forever   an actor that ticks every 20 ms, as dining philosophers
//                    eat: a delayed message each time
//   --mode=timer     an actor that gets one delayed message after 300 ms,
//                    prints it and then waits for nothing
//   --mode=receive   main itself waits in a receive without an error
//                    handler, which only the end of the system ends

#include "troupe/caf_main.hpp"

#include "troupe/anon_mail.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/opt_group.hpp"
#include "troupe/scoped_actor.hpp"

#include <chrono>
#include <cstdio>
#include <string>

using namespace std::chrono_literals;
using namespace troupe;

namespace {

struct config : actor_system_config {
  config() {
    opt_group{custom_options_, "global"}.add(mode, "mode", "forever, timer or receive");
  }
  std::string mode = "forever";
};

} // namespace

int caf_main(actor_system& sys, const config& cfg) {
  if (cfg.mode == "forever") {
    sys.spawn([](event_based_actor* self) {
      self->mail(0).delay(20ms).send(self);
      return behavior{[self](int n) {
        if (n == 1) {
          std::puts("ticking");
          std::fflush(stdout);
        }
        self->mail(n + 1).delay(20ms).send(self);
      }};
    });
    return 0;
  }
  if (cfg.mode == "timer") {
    auto a = sys.spawn([] {
      return behavior{[](const std::string& x) {
        std::puts(x.c_str());
        std::fflush(stdout);
      }};
    });
    anon_mail(std::string{"delivered"}).delay(300ms).send(a);
    return 0;
  }
  if (cfg.mode == "receive") {
    scoped_actor self{sys};
    std::puts("receiving");
    std::fflush(stdout);
    self->receive([](int) {});
    return 0;
  }
  std::fprintf(stderr, "unknown mode: %s\n", cfg.mode.c_str());
  return 2;
}

TROUPE_MAIN()
