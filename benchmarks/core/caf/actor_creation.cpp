// actor_creation (CAF 0.17 and 1.x): a binary tree of 2^depth - 1 actors.
// Each inner actor spawns two children and reports the size of its subtree
// (1 + the children's reports) to its parent; leaves report 1. The root
// reports to main, which checks the count.

#include "common/caf_compat.hpp"
#include "common/options.hpp"

#include <cstdint>
#include <cstdio>

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(actor_creation, caf::first_custom_type_id)
  CAF_ADD_ATOM(actor_creation, result_atom)
CAF_END_TYPE_ID_BLOCK(actor_creation)
#else
using result_atom = caf::atom_constant<caf::atom("result")>;
constexpr result_atom result_atom_v{};
#endif

namespace {

caf::behavior node(caf::event_based_actor* self, caf::actor parent,
                   uint32_t depth) {
  if (depth == 1) {
    caf_compat::tell(self, parent, result_atom_v, uint64_t{1});
    return {}; // no behavior: the leaf terminates
  }
  auto me = caf::actor_cast<caf::actor>(self);
  self->spawn(node, me, depth - 1);
  self->spawn(node, me, depth - 1);
  return {
    [=](result_atom, uint64_t first) {
      self->become([=](result_atom, uint64_t second) {
        caf_compat::tell(self, parent, result_atom_v, 1 + first + second);
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
  BENCH_CAF_INIT_META_OBJECTS(actor_creation);
  auto depth = static_cast<uint32_t>(opts["depth"]);
  if (depth == 0 || depth > 40) {
    std::fprintf(stderr, "--depth must be between 1 and 40\n");
    return 2;
  }
  uint64_t count = 0;
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    self->spawn(node, caf::actor_cast<caf::actor>(self), depth);
    self->receive([&](result_atom, uint64_t n) { count = n; });
  }
  return bench::checksum("actors", count, (uint64_t{1} << depth) - 1);
}
