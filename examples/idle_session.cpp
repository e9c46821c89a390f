// A session that closes itself after a quiet spell, written as a CAF 1.x
// user writes it: set_idle_handler runs a function once the actor has had no
// message for a while, and the disposable a delayed send returns cancels a
// reminder that is no longer needed.

#include <troupe/all.hpp>

#include <chrono>
#include <string>
#include <thread>

using namespace troupe;
using namespace std::chrono_literals;

struct session_state {
  explicit session_state(event_based_actor* selfptr) : self(selfptr) {}

  behavior make_behavior() {
    // strong_ref: the session stays alive for its handler even after main
    // drops every handle to it; once: it closes the first time it turns idle.
    self->set_idle_handler(200ms, strong_ref, once, [this] {
      self->println("session: quiet for 200ms after {} lines, closing", lines);
      self->quit();
    });
    remind_later();
    return {
      [this](const std::string& line) {
        ++lines;
        self->println("session: got '{}'", line);
        remind_later();
      },
      // The reminder is a message too, so it postpones closing once more.
      [this](tick_atom) { self->println("session: are you still there?"); },
    };
  }

  // Replaces the pending reminder: only the newest one may arrive.
  void remind_later() {
    reminder.dispose();
    reminder = self->mail(tick_atom_v).delay(100ms).send(self);
  }

  event_based_actor* self;
  disposable reminder;
  int lines = 0;
};

void troupe_main(actor_system& sys) {
  auto session = sys.spawn(actor_from_state<session_state>);
  for (auto line : {"hello", "how are you?", "bye"}) {
    anon_mail(std::string{line}).send(session);
    std::this_thread::sleep_for(30ms);
  }
  scoped_actor self{sys};
  self->wait_for(session);
  sys.println("main: the session has closed");
}

TROUPE_MAIN()
