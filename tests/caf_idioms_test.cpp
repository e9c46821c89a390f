// CAF 1.x idioms under Troupe's names: println on actors and on the system,
// and the main() that TROUPE_MAIN defines.

#include "troupe/caf_main.hpp"

#include "troupe/actor_from_state.hpp"
#include "troupe/actor_system.hpp"
#include "troupe/type_id.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/mail.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/typed_actor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

enum class shop_errc : uint8_t { out_of_stock = 1, closed };

std::string to_string(shop_errc x) {
  return x == shop_errc::out_of_stock ? "out_of_stock" : "closed";
}

TROUPE_BEGIN_TYPE_ID_BLOCK(caf_idioms_test, 1900)
  TROUPE_ADD_TYPE_ID(caf_idioms_test, (shop_errc))
TROUPE_END_TYPE_ID_BLOCK(caf_idioms_test)

TROUPE_ERROR_CODE_ENUM(shop_errc)

using namespace std::chrono_literals;
using namespace troupe;

namespace {

struct point {
  int x;
  int y;
};

template <class Inspector>
bool inspect(Inspector& f, point& p) {
  return f.object(p).fields(f.field("x", p.x), f.field("y", p.y));
}

TEST(println, formats_placeholders_and_prints_inspectable_types_deeply) {
  actor_system_config cfg;
  actor_system sys{cfg};
  ::testing::internal::CaptureStdout();
  sys.println("{} + {} = {} ({}, {})", 1, 2.5, 3.5, true, "text");
  sys.println("at {}, took {}", point{1, 2}, 15ms);
  sys.println("braces: {{}}");
  auto out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "1 + 2.5 = 3.5 (true, text)\n"
                 "at (1, 2), took 15ms\n"
                 "braces: {}\n");
}

TEST(println, takes_std_format_specs) {
  actor_system_config cfg;
  actor_system sys{cfg};
  ::testing::internal::CaptureStdout();
  sys.println("{:<16}|{:6.2f}|{:^6}|{:#06x}|{:.3}", point{1, 2}, 2.5, true, 255, "textual");
  auto out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(out, "(1, 2)          |  2.50| true |0x00ff|tex\n");
}

TEST(println, lines_printed_by_many_actors_never_mix) {
  actor_system_config cfg;
  actor_system sys{cfg};
  ::testing::internal::CaptureStdout();
  {
    scoped_actor self{sys};
    for (int i = 0; i < 20; ++i)
      sys.spawn([i](event_based_actor* self) {
        for (int j = 0; j < 50; ++j)
          self->println("actor {} line {} {}", i, j, std::string(40, '.'));
      });
    sys.await_all_actors_done();
  }
  auto out = ::testing::internal::GetCapturedStdout();
  size_t lines = 0;
  size_t pos = 0;
  while (pos < out.size()) {
    auto end = out.find('\n', pos);
    ASSERT_NE(end, std::string::npos);
    auto line = out.substr(pos, end - pos);
    EXPECT_TRUE(line.starts_with("actor ") && line.ends_with(std::string(40, '.'))) << line;
    ++lines;
    pos = end + 1;
  }
  EXPECT_EQ(lines, 20u * 50u);
}

struct app_config : actor_system_config {
  int rounds = 1;
  app_config() {
    add_option("app.rounds", &rounds, "how many rounds to play");
  }
};

int rounds_seen = 0;

int main_with_config(actor_system& sys, const app_config& cfg) {
  static_cast<void>(sys);
  rounds_seen = cfg.rounds;
  return 7;
}

void main_without_config(actor_system& sys) {
  sys.println("main ran");
}

int run(auto fn, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& x : args)
    argv.push_back(x.data());
  return exec_main(fn, static_cast<int>(argv.size()), argv.data());
}

TEST(troupe_main, parses_the_command_line_into_the_config_and_returns_its_result) {
  EXPECT_EQ(run(&main_with_config, {"prog", "--app.rounds=3"}), 7);
  EXPECT_EQ(rounds_seen, 3);
}

TEST(troupe_main, a_bad_option_exits_with_1_before_running) {
  rounds_seen = 0;
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(run(&main_with_config, {"prog", "--app.rounds=many"}), 1);
  auto err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("app.rounds"), std::string::npos) << err;
  EXPECT_EQ(rounds_seen, 0);
}

TEST(troupe_main, help_prints_the_options_and_runs_nothing) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(run(&main_without_config, {"prog", "--help"}), 0);
  auto out = ::testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("troupe.scheduler.max-threads"), std::string::npos);
  EXPECT_EQ(out.find("main ran"), std::string::npos);
}

/// A module that notes whether the actor system started it.
struct probe_module : actor_system_module {
  static constexpr std::string_view module_name = "probe";
  explicit probe_module(actor_system&) {}
  std::string_view name() const noexcept override {
    return module_name;
  }
  void start() override {}
  void stop() noexcept override {}
};

bool probe_loaded = false;

void main_checking_modules(actor_system& sys) {
  probe_loaded = sys.module("probe") != nullptr;
}

TEST(troupe_main, exec_main_loads_the_modules_it_names_and_accepts_type_id_blocks) {
  std::vector<std::string> args{"prog"};
  std::vector<char*> argv{args[0].data()};
  probe_loaded = false;
  EXPECT_EQ(exec_main<id_block::caf_idioms_test>(&main_checking_modules, 1, argv.data()), 0);
  EXPECT_FALSE(probe_loaded);
  EXPECT_EQ((exec_main<id_block::caf_idioms_test, probe_module>(&main_checking_modules, 1,
                                                                 argv.data())),
            0);
  EXPECT_TRUE(probe_loaded);
}

TEST(troupe_main, a_void_main_exits_with_0) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(run(&main_without_config, {"prog"}), 0);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "main ran\n");
}

// -- actor_from_state, typed_actor<Trait> --------------------------------------

struct cell_state {
  event_based_actor* self;
  int value;

  cell_state(event_based_actor* self, int init) : self(self), value(init) {}

  behavior make_behavior() {
    return {
      [this](put_atom, int x) { value = x; },
      [this](get_atom) { return value; },
      [this](get_atom, bool) { return self->id(); },
    };
  }
};

struct counter_state {
  int count = 0;

  behavior make_behavior() {
    return {[this](add_atom, int x) { return count += x; }};
  }
};

struct cell_trait {
  using signatures = type_list<result<void>(put_atom, int), result<int>(get_atom)>;
};

using typed_cell = typed_actor<cell_trait>;

struct typed_cell_state {
  typed_cell::pointer self;
  int value = 0;

  explicit typed_cell_state(typed_cell::pointer self) : self(self) {}

  typed_cell::behavior_type make_behavior() {
    return {
      [this](put_atom, int x) { value = x; },
      [this](get_atom) { return value; },
    };
  }
};

template <class T, class Handle, class... Ts>
T ask(scoped_actor& self, const Handle& dest, Ts&&... xs) {
  T result{};
  self->mail(std::forward<Ts>(xs)...)
    .request(dest, 10s)
    .receive([&](T x) { result = x; },
             [](const error& err) { ADD_FAILURE() << to_string(err); });
  return result;
}

TEST(actor_from_state, the_state_gets_the_self_pointer_and_its_arguments) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto cell = sys.spawn(actor_from_state<cell_state>, 42);
  EXPECT_EQ(ask<int>(self, cell, get_atom_v), 42);
  self->mail(put_atom_v, 7).send(cell);
  EXPECT_EQ(ask<int>(self, cell, get_atom_v), 7);
  EXPECT_EQ(ask<actor_id>(self, cell, get_atom_v, true), cell.id());
}

TEST(actor_from_state, a_state_without_a_self_pointer_works_too) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto counter = sys.spawn(actor_from_state<counter_state>);
  ask<int>(self, counter, add_atom_v, 2);
  EXPECT_EQ(ask<int>(self, counter, add_atom_v, 3), 5);
}

struct flag_state {
  bool flag = false;
  flag_state() = default;
  explicit flag_state(bool x) : flag(x) {}
};

TEST(stateful_actor, a_state_constructible_from_bool_never_gets_the_self_pointer) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto a = sys.spawn([](stateful_actor<flag_state>* self) {
    return behavior{[self](get_atom) { return self->state.flag; }};
  });
  EXPECT_FALSE(ask<bool>(self, a, get_atom_v));
}

TEST(typed_actor_trait, a_trait_names_the_signatures_and_a_state_implements_them) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  typed_cell cell = sys.spawn(actor_from_state<typed_cell_state>);
  self->mail(put_atom_v, 9).send(cell);
  EXPECT_EQ(ask<int>(self, cell, get_atom_v), 9);
  static_assert(detail::handle_accepts_v<typed_cell, get_atom>);
  static_assert(!detail::handle_accepts_v<typed_cell, add_atom, int>);
}

// -- wait_for, skip, error code enums ------------------------------------------

TEST(wait_for, returns_once_every_actor_terminated_and_keeps_other_messages) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto quick = sys.spawn([](event_based_actor*) {});
  auto slow = sys.spawn([](event_based_actor* self) {
    return behavior{[self](tick_atom) { self->quit(); }};
  });
  self->mail(1).send(self);
  self->mail(tick_atom_v).delay(20ms).send(slow);
  self->wait_for(quick, slow);
  int kept = 0;
  self->receive([&](int x) { kept = x; }, after(0s) >> [] {});
  EXPECT_EQ(kept, 1);
}

TEST(wait_for, an_invalid_handle_is_not_waited_for) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  self->wait_for(actor{});
  SUCCEED();
}

TEST(result, a_handler_may_skip_a_message_conditionally) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto picky = sys.spawn([](event_based_actor* self) {
    return behavior{
      [](int x) -> result<int> {
        if (x < 0)
          return skip; // stays queued until the behavior changes
        return x;
      },
      [self](ok_atom) { self->become(behavior{[](int x) { return -x; }}); },
    };
  });
  EXPECT_EQ(ask<int>(self, picky, 5), 5);
  auto skipped = self->mail(-3).request(picky, 10s);
  self->mail(ok_atom_v).send(picky);
  int answer = 0;
  skipped.receive([&](int x) { answer = x; },
                  [](const error& err) { ADD_FAILURE() << to_string(err); });
  EXPECT_EQ(answer, 3);
}

// -- self->spawn, self as a handle, receive returning expected ------------------

TEST(self_spawn, an_actor_spawns_children_and_sends_to_itself_by_pointer) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto parent = sys.spawn([](event_based_actor* self) {
    return behavior{
      [self](get_atom) -> result<int> {
        auto child = self->spawn(actor_from_state<counter_state>);
        auto rp = self->make_response_promise();
        self->mail(add_atom_v, 40).request(child, 10s).then([rp](int x) mutable {
          rp.deliver(x + 2);
        });
        return rp;
      },
      [self](tick_atom, int n) {
        if (n > 0)
          self->mail(tick_atom_v, n - 1).send(self); // self is a handle
      },
    };
  });
  EXPECT_EQ(ask<int>(self, parent, get_atom_v), 42);
  self->mail(tick_atom_v, 3).send(parent);
}

TEST(blocking_receive, returns_the_value_or_the_error_as_expected) {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto calc = sys.spawn([](event_based_actor*) {
    return behavior{
      [](add_atom, int x, int y) { return x + y; },
      [](get_atom) { return make_message(1, std::string{"one"}); },
      [](put_atom, int) -> result<int> { return make_error(shop_errc::closed); },
    };
  });
  expected<int> sum = self->mail(add_atom_v, 1, 2).request(calc, 10s).receive<int>();
  ASSERT_TRUE(sum.has_value());
  EXPECT_EQ(*sum, 3);
  auto pair = self->mail(get_atom_v).request(calc, 10s).receive<int, std::string>();
  ASSERT_TRUE(pair.has_value());
  EXPECT_EQ(std::get<1>(*pair), "one");
  auto failed = self->mail(put_atom_v, 1).request(calc, 10s).receive<int>();
  ASSERT_FALSE(failed.has_value());
  EXPECT_TRUE(failed.error() == shop_errc::closed);
  typed_cell cell = sys.spawn(actor_from_state<typed_cell_state>);
  self->mail(put_atom_v, 5).send(cell);
  expected<int> typed = self->mail(get_atom_v).request(cell, 10s).receive();
  EXPECT_TRUE(typed.has_value() && *typed == 5);
}

TEST(error_code_enum, a_user_enum_makes_errors_that_compare_and_print) {
  error err = make_error(shop_errc::out_of_stock, "apples");
  EXPECT_TRUE(err == shop_errc::out_of_stock);
  EXPECT_FALSE(err == shop_errc::closed);
  EXPECT_NE(to_string(err).find("out_of_stock"), std::string::npos) << to_string(err);
  result<int> res = shop_errc::closed;
  static_cast<void>(res);
}

} // namespace
