// Written as a CAF 1.x user writes it; the CAF version differs only by the
// rename (troupe -> caf, TROUPE_ -> CAF_). CTest checks what it prints.

#include "troupe/actor_from_state.hpp"
#include "troupe/all.hpp"
#include "troupe/caf_main.hpp"

#include <cstdint>

using namespace troupe;
using namespace std::literals;

struct calculator_trait {
  using signatures = type_list<result<int32_t>(add_atom, int32_t, int32_t),
                               result<int32_t>(sub_atom, int32_t, int32_t),
                               result<int32_t>(div_atom, int32_t, int32_t)>;
};

using calculator_actor = typed_actor<calculator_trait>;

struct calculator_state {
  calculator_actor::pointer self;

  explicit calculator_state(calculator_actor::pointer selfptr) : self(selfptr) {}

  calculator_actor::behavior_type make_behavior() {
    return {
      [](add_atom, int32_t x, int32_t y) -> result<int32_t> { return x + y; },
      [](sub_atom, int32_t x, int32_t y) -> result<int32_t> { return x - y; },
      [](div_atom, int32_t x, int32_t y) -> result<int32_t> {
        if (y == 0)
          return make_error(sec::runtime_error, "division by zero");
        return x / y;
      },
    };
  }
};

void troupe_main(actor_system& sys) {
  auto calc = sys.spawn(actor_from_state<calculator_state>);
  scoped_actor self{sys};
  self->mail(add_atom_v, 7, 5)
    .request(calc, 1s)
    .receive([&](int32_t z) { self->println("7 + 5 = {}", z); },
             [&](const error& err) { self->println("error: {}", err); });
  auto diff = self->mail(sub_atom_v, 7, 5).request(calc, 1s).receive();
  if (diff)
    self->println("7 - 5 = {}", *diff);
  auto quotient = self->mail(div_atom_v, 7, 0).request(calc, 1s).receive();
  if (!quotient)
    self->println("7 / 0 failed: {}", quotient.error().context());
  self->send_exit(calc, exit_reason::user_shutdown);
}

TROUPE_MAIN()
