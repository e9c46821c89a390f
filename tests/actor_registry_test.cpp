// Actors by name: put, get (typed and not), erase, and what the actor
// system's destructor does with names.

#include "troupe/actor_registry.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/type_id.hpp"
#include "troupe/typed_actor.hpp"

#include <gtest/gtest.h>

using namespace troupe;

namespace {

using getter = typed_actor<result<int32_t>(get_atom)>;
using putter = typed_actor<result<void>(put_atom, int32_t)>;

getter::behavior_type getter_impl() {
  return {[](get_atom) { return int32_t{7}; }};
}

} // namespace

TEST(actor_registry, a_named_actor_is_found_by_its_name_until_erased) {
  actor_system_config cfg;
  actor_system sys{cfg};
  auto g = sys.spawn(getter_impl);
  sys.registry().put("g", g);
  EXPECT_EQ(sys.registry().get<getter>("g"), g);
  EXPECT_EQ(sys.registry().get("g"), actor{strong_actor_ptr{g.ctrl()}});
  EXPECT_EQ(sys.registry().names(), std::vector<std::string>{"g"});
  sys.registry().erase("g");
  EXPECT_FALSE(sys.registry().get("g"));
  EXPECT_FALSE(sys.registry().find("g"));
  anon_send_exit(g, exit_reason::user_shutdown);
}

TEST(actor_registry, a_typed_get_of_another_interface_finds_nothing) {
  actor_system_config cfg;
  actor_system sys{cfg};
  auto g = sys.spawn(getter_impl);
  sys.registry().put("g", g);
  EXPECT_FALSE(sys.registry().get<putter>("g"));
  // Put as a dynamically typed handle, it offers no interface to check.
  sys.registry().put("dyn", actor{strong_actor_ptr{g.ctrl()}});
  EXPECT_FALSE(sys.registry().get<getter>("dyn"));
  EXPECT_TRUE(sys.registry().get("dyn"));
  anon_send_exit(g, exit_reason::user_shutdown);
}

TEST(actor_registry, putting_a_name_again_replaces_it_and_an_invalid_handle_erases_it) {
  actor_system_config cfg;
  actor_system sys{cfg};
  auto g1 = sys.spawn(getter_impl);
  auto g2 = sys.spawn(getter_impl);
  sys.registry().put("g", g1);
  sys.registry().put("g", g2);
  EXPECT_EQ(sys.registry().get<getter>("g"), g2);
  sys.registry().put("g", getter{});
  EXPECT_FALSE(sys.registry().find("g"));
  anon_send_exit(g1, exit_reason::user_shutdown);
  anon_send_exit(g2, exit_reason::user_shutdown);
}

TEST(actor_registry, the_registry_keeps_a_named_actor_alive_until_the_system_ends) {
  actor_system_config cfg;
  actor_system sys{cfg};
  actor_addr addr;
  {
    auto g = sys.spawn(getter_impl);
    addr = actor{strong_actor_ptr{g.ctrl()}}.address();
    sys.registry().put("g", g);
  }
  EXPECT_TRUE(addr.lock());
}
