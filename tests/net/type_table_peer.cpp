// The other program of type_table_test: it names the same types as the
// test, in another order and under other type IDs, knows one type the test
// does not (interop::peer_only) and lacks one the test has. Publishes its
// actor on 127.0.0.1, prints the port, serves until its stdin closes.

#include "interop_types.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/net/middleman.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

// 40 IDs further than the test's block, and the other way round.
TROUPE_BEGIN_TYPE_ID_BLOCK(type_table_peer, troupe::first_custom_type_id + 40)
  TROUPE_ADD_TYPE_ID(type_table_peer, (interop::peer_only))
  TROUPE_ADD_TYPE_ID(type_table_peer, (interop::receipt))
  TROUPE_ADD_TYPE_ID(type_table_peer, (interop::order))
TROUPE_END_TYPE_ID_BLOCK(type_table_peer)

int main() {
  using namespace troupe;
  actor_system_config cfg;
  cfg.load<net::middleman>();
  actor_system sys{cfg};
  auto clerk = sys.spawn([] {
    return behavior{
      [](const interop::order& x) { return interop::receipt{x.id, x.item + " confirmed"}; },
      [](get_atom) { return interop::peer_only{7}; },
    };
  });
  auto port = sys.middleman().publish(clerk, 0);
  if (!port) {
    std::fprintf(stderr, "publish failed: %s\n", to_string(port.error()).c_str());
    return 1;
  }
  std::printf("%u\n", static_cast<unsigned>(*port));
  std::fflush(stdout);
  char c;
  while (read(STDIN_FILENO, &c, 1) > 0) {
  }
  anon_send_exit(clerk, exit_reason::user_shutdown);
  return 0;
}
