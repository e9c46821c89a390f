// Written as a CAF 1.x user writes it; the CAF version differs only by the
// rename (troupe -> caf, TROUPE_ -> CAF_). CTest checks what it prints.

#include "troupe/all.hpp"
#include "troupe/caf_main.hpp"

#include <string>

using namespace troupe;
using namespace std::literals;

// Closed, the gatekeeper leaves every get_atom in its mailbox; open_atom
// opens the gate, and the skipped requests are answered then.
behavior gatekeeper(event_based_actor* self) {
  return {
    [](get_atom) -> result<std::string> { return skip; },
    [self](open_atom) {
      self->println("the gate opens");
      self->become([](get_atom) { return "welcome"s; });
    },
  };
}

void caf_main(actor_system& sys) {
  auto gate = sys.spawn(gatekeeper);
  scoped_actor self{sys};
  self->println("asking the gatekeeper");
  auto answer = self->mail(get_atom_v).request(gate, 5s);
  self->mail(open_atom_v).send(gate);
  answer.receive(
    [&](const std::string& text) {
      auto from_gate = self->current_sender() == gate;
      self->println("{} (answered by the gatekeeper: {})", text, from_gate);
    },
    [&](const error& err) { self->println("error: {}", err); });
  self->send_exit(gate, exit_reason::user_shutdown);
}

TROUPE_MAIN()
