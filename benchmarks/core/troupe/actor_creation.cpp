// actor_creation (Troupe): a binary tree of 2^depth - 1 actors. Each inner
// actor spawns two children and reports the size of its subtree (1 + the
// children's reports) to its parent; leaves report 1. The root reports to
// main, which checks the count.

#include "common/options.hpp"

#include <troupe/all.hpp>

#include <cstdint>
#include <cstdio>

TROUPE_BEGIN_TYPE_ID_BLOCK(core_actor_creation, troupe::first_custom_type_id)
  TROUPE_ADD_ATOM(core_actor_creation, result_atom)
TROUPE_END_TYPE_ID_BLOCK(core_actor_creation)

namespace {

troupe::behavior node(troupe::event_based_actor* self, troupe::actor parent,
                      uint32_t depth) {
  if (depth == 1) {
    self->send(parent, result_atom_v, uint64_t{1});
    return {}; // no behavior: the leaf terminates
  }
  auto me = self->self_handle();
  self->system().spawn(node, me, depth - 1);
  self->system().spawn(node, me, depth - 1);
  return {
    [=](result_atom, uint64_t first) {
      self->become([=](result_atom, uint64_t second) {
        self->send(parent, result_atom_v, 1 + first + second);
        self->quit();
      });
    },
  };
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"depth", 20, 20,
                        "levels of the tree: spawns 2^depth - 1 actors"}}};
  auto depth = static_cast<uint32_t>(opts["depth"]);
  if (depth == 0 || depth > 40) {
    std::fprintf(stderr, "--depth must be between 1 and 40\n");
    return 2;
  }
  uint64_t count = 0;
  {
    troupe::actor_system_config cfg;
    cfg.scheduler.max_threads = opts.threads();
    troupe::actor_system sys{cfg};
    troupe::scoped_actor self{sys};
    sys.spawn(node, self.handle(), depth);
    self->receive([&](result_atom, uint64_t n) { count = n; });
  }
  return bench::checksum("actors", count, (uint64_t{1} << depth) - 1);
}
