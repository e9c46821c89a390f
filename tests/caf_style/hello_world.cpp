// Written as a CAF 1.x user writes it; the CAF version differs only by the
// rename (troupe -> caf, TROUPE_ -> CAF_). CTest checks what it prints.

#include "troupe/all.hpp"
#include "troupe/caf_main.hpp"

#include <string>

using namespace troupe;
using namespace std::literals;

behavior reverser(event_based_actor* self) {
  return {
    [self](const std::string& text) -> std::string {
      self->println("reverser got: {}", text);
      return std::string{text.rbegin(), text.rend()};
    },
  };
}

void greeter(event_based_actor* self, const actor& peer) {
  self->mail("Hello, actors!").request(peer, 10s).then([self](const std::string& reply) {
    self->println("greeter got: {}", reply);
  });
}

void caf_main(actor_system& sys) {
  auto peer = sys.spawn(reverser);
  sys.spawn(greeter, peer);
}

TROUPE_MAIN()
