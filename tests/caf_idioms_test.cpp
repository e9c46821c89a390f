// CAF 1.x idioms under Troupe's names: println on actors and on the system,
// and the main() that TROUPE_MAIN defines.

#include "troupe/main.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

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
                 "at (x = 1, y = 2), took 15ms\n"
                 "braces: {}\n");
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
  return detail::exec_main(fn, static_cast<int>(argv.size()), argv.data());
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

TEST(troupe_main, a_void_main_exits_with_0) {
  ::testing::internal::CaptureStdout();
  EXPECT_EQ(run(&main_without_config, {"prog"}), 0);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "main ran\n");
}

} // namespace
