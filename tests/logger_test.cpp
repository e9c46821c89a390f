#include "troupe/logger.hpp"

#include "troupe/detail/print_line.hpp"
#include "troupe/error.hpp"
#include "troupe/message.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace std::literals;

namespace {

struct point {
  int x;
  int y;
};

std::string to_string(const point& p) {
  return "(" + std::to_string(p.x) + ", " + std::to_string(p.y) + ")";
}

// Captures every line and puts the level and sink back afterwards.
class logger : public testing::Test {
protected:
  void SetUp() override {
    saved_level_ = troupe::logger::level();
    saved_sink_ = troupe::logger::set_sink([this](troupe::log_level level, std::string_view line) {
      levels.push_back(level);
      lines.emplace_back(line);
    });
  }

  void TearDown() override {
    troupe::logger::set_sink(std::move(saved_sink_));
    troupe::logger::set_level(saved_level_);
  }

  std::vector<troupe::log_level> levels;
  std::vector<std::string> lines;

private:
  troupe::log_level saved_level_ = troupe::log_level::quiet;
  troupe::logger::sink_type saved_sink_;
};

int side_effects = 0;

int count_evaluation() {
  return ++side_effects;
}

} // namespace

namespace logger_test {

// Printable only through inspect().
struct reading {
  std::string sensor;
  int32_t celsius = 0;
};

template <class Inspector>
bool inspect(Inspector& f, reading& x) {
  return f.object(x).fields(f.field("sensor", x.sensor), f.field("celsius", x.celsius));
}

} // namespace logger_test

TROUPE_BEGIN_TYPE_ID_BLOCK(logger_test, 1300)
  TROUPE_ADD_TYPE_ID(logger_test, (logger_test::reading))
TROUPE_END_TYPE_ID_BLOCK(logger_test)

static_assert(troupe::detail::count_log_placeholders("a {} b {{}} c {}") == 2);
static_assert(troupe::detail::count_log_placeholders("}} {{") == 0);
static_assert(troupe::detail::count_log_placeholders("{:>8} {{{:d}}} {:} {{:x}}") == 3);

TEST_F(logger, the_logger_starts_at_the_level_named_in_defaults_hpp) {
  auto expected = troupe::log_level::quiet;
  ASSERT_TRUE(troupe::from_string(troupe::defaults::logger::verbosity, expected));
  EXPECT_EQ(troupe::default_log_level, expected);
  EXPECT_EQ(troupe::logger::level(), expected);
}

TEST_F(logger, log_levels_convert_to_their_names_and_back) {
  for (auto level : {troupe::log_level::quiet, troupe::log_level::error,
                     troupe::log_level::warning, troupe::log_level::info,
                     troupe::log_level::debug, troupe::log_level::trace}) {
    auto parsed = troupe::log_level::quiet;
    EXPECT_TRUE(troupe::from_string(to_string(level), parsed)) << to_string(level);
    EXPECT_EQ(parsed, level);
  }
  EXPECT_EQ(to_string(troupe::log_level::warning), "warning");
}

TEST_F(logger, from_string_rejects_other_names_and_leaves_the_level_alone) {
  auto level = troupe::log_level::info;
  EXPECT_FALSE(troupe::from_string("verbose", level));
  EXPECT_FALSE(troupe::from_string("Warning", level));
  EXPECT_FALSE(troupe::from_string("", level));
  EXPECT_EQ(level, troupe::log_level::info);
}

TEST_F(logger, a_line_reads_troupe_then_level_then_component_then_message) {
  troupe::logger::set_level(troupe::log_level::warning);
  troupe::logger::log(troupe::log_level::warning, "actor", "mailbox full");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[troupe] warning actor: mailbox full");
  EXPECT_EQ(levels[0], troupe::log_level::warning);
}

TEST_F(logger, messages_less_severe_than_the_level_are_dropped) {
  troupe::logger::set_level(troupe::log_level::info);
  troupe::logger::log(troupe::log_level::error, "c", "e");
  troupe::logger::log(troupe::log_level::warning, "c", "w");
  troupe::logger::log(troupe::log_level::info, "c", "i");
  troupe::logger::log(troupe::log_level::debug, "c", "d");
  troupe::logger::log(troupe::log_level::trace, "c", "t");
  EXPECT_EQ(lines, (std::vector<std::string>{"[troupe] error c: e", "[troupe] warning c: w",
                                             "[troupe] info c: i"}));
  EXPECT_TRUE(troupe::logger::enabled(troupe::log_level::info));
  EXPECT_FALSE(troupe::logger::enabled(troupe::log_level::debug));
}

TEST_F(logger, quiet_drops_every_message) {
  troupe::logger::set_level(troupe::log_level::quiet);
  troupe::logger::log(troupe::log_level::error, "c", "e");
  troupe::logger::log(troupe::log_level::quiet, "c", "q");
  EXPECT_TRUE(lines.empty());
  EXPECT_FALSE(troupe::logger::enabled(troupe::log_level::error));
}

TEST_F(logger, a_message_at_level_quiet_is_never_written) {
  troupe::logger::set_level(troupe::log_level::trace);
  troupe::logger::log(troupe::log_level::quiet, "c", "q");
  EXPECT_TRUE(lines.empty());
}

TEST_F(logger, the_macros_evaluate_no_argument_when_their_level_is_off) {
  troupe::logger::set_level(troupe::log_level::warning);
  side_effects = 0;
  TROUPE_LOG_INFO("c", "{}", count_evaluation());
  TROUPE_LOG_DEBUG("c", "{}", count_evaluation());
  TROUPE_LOG_TRACE("c", "{}", count_evaluation());
  EXPECT_EQ(side_effects, 0);
  EXPECT_TRUE(lines.empty());
  TROUPE_LOG_WARNING("c", "{}", count_evaluation());
  TROUPE_LOG_ERROR("c", "{}", count_evaluation());
  EXPECT_EQ(side_effects, 2);
  EXPECT_EQ(lines, (std::vector<std::string>{"[troupe] warning c: 1", "[troupe] error c: 2"}));
}

TEST_F(logger, the_macros_fill_placeholders_in_order_and_unescape_braces) {
  troupe::logger::set_level(troupe::log_level::debug);
  TROUPE_LOG_DEBUG("sched", "{} + {} = {} {{set}} {}", 1, 2.5, "3.5"s, 0.1f);
  TROUPE_LOG_DEBUG("sched", "no placeholders");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "[troupe] debug sched: 1 + 2.5 = 3.5 {set} 0.1");
  EXPECT_EQ(lines[1], "[troupe] debug sched: no placeholders");
}

TEST_F(logger, the_macros_print_bools_chars_durations_enums_and_types_with_to_string) {
  troupe::logger::set_level(troupe::log_level::info);
  const char* null_str = nullptr;
  TROUPE_LOG_INFO("c", "{} {} {} {} {} {} {} {}", true, 'x', std::chrono::milliseconds{10},
                  std::chrono::microseconds{200}, troupe::log_level::debug,
                  troupe::errc::unknown_key, point{1, 2}, null_str);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[troupe] info c: true x 10ms 200us debug unknown_key (1, 2) (null)");
}

TEST_F(logger, the_macros_print_messages_with_the_fields_of_inspectable_elements) {
  troupe::logger::set_level(troupe::log_level::debug);
  auto msg = troupe::make_message(logger_test::reading{"boiler", 71}, "ok"s);
  TROUPE_LOG_DEBUG("actor", "unexpected {}", msg);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[troupe] debug actor: unexpected "
                      R"(message(logger_test::reading("boiler", 71), "ok"))");
}

TEST_F(logger, the_macros_print_integers_of_every_width_and_sign) {
  troupe::logger::set_level(troupe::log_level::info);
  TROUPE_LOG_INFO("c", "{} {} {} {}", int8_t{-5}, uint8_t{200}, INT64_MIN, UINT64_MAX);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[troupe] info c: -5 200 -9223372036854775808 18446744073709551615");
}

TEST_F(logger, format_specs_format_numbers_as_std_format_does) {
  troupe::logger::set_level(troupe::log_level::info);
  TROUPE_LOG_INFO("c", "{:.2f}|{:x}|{:#x}|{:08.3f}|{:+d}|{:X}|{:o}|{:b}|{:x}", 3.14159, 255, 255,
                  3.14159, 7, 255u, 8, 5, int8_t{-1});
  TROUPE_LOG_INFO("c", "{:>6}|{:<6}|{:^7}|{:*^9}|{:€^5}|{:<05}|{:05}", 42, 42, 42, 42, 1, 1, -1);
  TROUPE_LOG_INFO("c", "{:e}|{:>8}|{:g}|{:.1f}|{:+}|{:+}|{:c}", 1234.5, 0.1f, 1e-7L, 2.0,
                  UINT64_MAX, uint8_t{200}, 65);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "[troupe] info c: 3.14|ff|0xff|0003.142|+7|FF|10|101|-1");
  // std::format ignores a '0' that follows an alignment.
  EXPECT_EQ(lines[1], "[troupe] info c:     42|42    |  42   |***42****|€€1€€|1    |-0001");
  EXPECT_EQ(lines[2],
            "[troupe] info c: 1.234500e+03|     0.1|1e-07|2.0|+18446744073709551615|+200|A");
}

TEST_F(logger, format_specs_take_bools_as_words_or_numbers_and_chars_as_characters_or_codes) {
  troupe::logger::set_level(troupe::log_level::info);
  TROUPE_LOG_INFO("c", "{:>6}|{:s}|{:d}|{:+d}|{:c}|{:^3}|{:d}|{:#x}", true, false, true, false, 'x',
                  'y', 'A', '\xff');
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[troupe] info c:   true|false|1|+0|x| y |65|0xff");
}

TEST_F(logger, format_specs_pad_and_cut_everything_else_as_a_string) {
  troupe::logger::set_level(troupe::log_level::info);
  const char* null_str = nullptr;
  TROUPE_LOG_INFO("c", "{:.3}|{:>6}|{:<6}|{:^7}|{:*^9}|{:s}|{:>8}", "abcdef"s, "ab",
                  std::string_view{"cd"}, 15ms, troupe::log_level::debug, point{1, 2}, null_str);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[troupe] info c: abc|    ab|cd    | 15ms  |**debug**|(1, 2)|  (null)");
}

TEST_F(logger, format_specs_sit_next_to_escaped_braces) {
  troupe::logger::set_level(troupe::log_level::info);
  TROUPE_LOG_INFO("c", "{{{:d}}} {{{}}} {{:x}} {:}", 5, 6, 7);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "[troupe] info c: {5} {6} {:x} 7");
}

TEST(format_line, pads_and_cuts_inspectable_types_as_their_deep_to_string) {
  logger_test::reading r{"boiler", 71};
  auto plain = troupe::detail::format_line("{}", r);
  EXPECT_EQ(plain, R"(logger_test::reading("boiler", 71))");
  EXPECT_EQ(troupe::detail::format_line("[{:>60}]", r),
            "[" + std::string(60 - plain.size(), ' ') + plain + "]");
  EXPECT_EQ(troupe::detail::format_line("[{:.20}]", r), "[" + plain.substr(0, 20) + "]");
  EXPECT_EQ(troupe::detail::format_line("{:.2f} {:>5} {:x}", 2.0 / 3, true, 255), "0.67  true ff");
}

TEST_F(logger, set_sink_returns_the_previous_sink) {
  troupe::logger::set_level(troupe::log_level::error);
  std::vector<std::string> other;
  auto previous = troupe::logger::set_sink(
    [&other](troupe::log_level, std::string_view line) { other.emplace_back(line); });
  troupe::logger::log(troupe::log_level::error, "c", "to the other sink");
  troupe::logger::set_sink(std::move(previous));
  troupe::logger::log(troupe::log_level::error, "c", "to the fixture's sink");
  EXPECT_EQ(other, (std::vector<std::string>{"[troupe] error c: to the other sink"}));
  EXPECT_EQ(lines, (std::vector<std::string>{"[troupe] error c: to the fixture's sink"}));
}

TEST_F(logger, an_empty_sink_restores_writing_to_stderr) {
  troupe::logger::set_level(troupe::log_level::error);
  auto previous = troupe::logger::set_sink({});
  testing::internal::CaptureStderr();
  troupe::logger::log(troupe::log_level::error, "net", "connection lost");
  auto written = testing::internal::GetCapturedStderr();
  troupe::logger::set_sink(std::move(previous));
  EXPECT_EQ(written, "[troupe] error net: connection lost\n");
  EXPECT_TRUE(lines.empty());
}

TEST_F(logger, a_sink_that_throws_does_not_reach_the_caller) {
  troupe::logger::set_level(troupe::log_level::error);
  auto previous = troupe::logger::set_sink(
    [](troupe::log_level, std::string_view) { throw std::runtime_error("disk full"); });
  EXPECT_NO_THROW(troupe::logger::log(troupe::log_level::error, "c", "m"));
  troupe::logger::set_sink(std::move(previous));
}

TEST_F(logger, lines_logged_from_several_threads_reach_the_sink_whole_and_one_at_a_time) {
  troupe::logger::set_level(troupe::log_level::info);
  constexpr int threads = 4;
  constexpr int per_thread = 200;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([t] {
      for (int i = 0; i < per_thread; ++i)
        TROUPE_LOG_INFO("worker", "thread {} line {}", t, i);
    });
  for (auto& w : workers)
    w.join();
  // The fixture's sink appends without a lock of its own: the logger
  // serialises its calls.
  ASSERT_EQ(lines.size(), size_t{threads * per_thread});
  std::vector<int> next(threads, 0);
  for (const auto& line : lines) {
    int t = -1;
    int i = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "[troupe] info worker: thread %d line %d", &t, &i), 2)
      << line;
    ASSERT_TRUE(t >= 0 && t < threads) << line;
    EXPECT_EQ(i, next[t]++) << "lines of one thread arrive in order";
  }
}
