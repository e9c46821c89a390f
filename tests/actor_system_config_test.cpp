#include "troupe/actor_system_config.hpp"

#include "troupe/defaults.hpp"
#include "troupe/opt_group.hpp"
#include "troupe/scheduler/scheduler_config.hpp"

#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include <unistd.h>

using namespace std::literals;

using troupe::actor_system_config;
using troupe::errc;

namespace {

// A TOML file that lives as long as the test.
class temp_file {
public:
  explicit temp_file(std::string_view content) {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path()
            / ("troupe_config_test_" + std::to_string(::getpid()) + "_"
               + std::to_string(counter++) + ".toml");
    std::ofstream out{path_};
    out << content;
  }

  ~temp_file() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }

  temp_file(const temp_file&) = delete;
  temp_file& operator=(const temp_file&) = delete;

  std::string path() const {
    return path_.string();
  }

  std::string flag() const {
    return "--config-file=" + path();
  }

private:
  std::filesystem::path path_;
};

bool contains(const std::string& str, std::string_view part) {
  return str.find(part) != std::string::npos;
}

// The value of `x`, failing the test if it holds an error.
template <class T>
T value_of(const troupe::expected<T>& x) {
  EXPECT_TRUE(x) << to_string(x.error());
  return x ? *x : T{};
}

} // namespace

// -- defaults and built-in keys ----------------------------------------------------

TEST(actor_system_config, the_defaults_are_the_values_in_defaults_hpp) {
  actor_system_config cfg;
  EXPECT_EQ(cfg.scheduler.policy, troupe::defaults::scheduler::policy);
  EXPECT_EQ(cfg.scheduler.max_threads, troupe::defaults::scheduler::max_threads);
  EXPECT_EQ(cfg.scheduler.max_throughput, troupe::defaults::scheduler::max_throughput);
  EXPECT_EQ(cfg.scheduler.spin_attempts, troupe::defaults::scheduler::spin_attempts);
  EXPECT_EQ(cfg.scheduler.pin_workers, troupe::defaults::scheduler::pin_workers);
  EXPECT_EQ(to_string(cfg.scheduler.idle_mode), troupe::defaults::scheduler::idle_mode);
  EXPECT_EQ(cfg.scheduler.wait_timeout, troupe::defaults::scheduler::wait_timeout);
  auto verbosity = troupe::log_level::quiet;
  ASSERT_TRUE(troupe::from_string(troupe::defaults::logger::verbosity, verbosity));
  EXPECT_EQ(cfg.logger.verbosity, verbosity);
}

TEST(actor_system_config, parsing_no_arguments_keeps_the_defaults) {
  actor_system_config cfg;
  EXPECT_FALSE(cfg.parse(std::vector<std::string>{}));
  EXPECT_EQ(cfg.scheduler.policy, troupe::defaults::scheduler::policy);
  EXPECT_EQ(cfg.scheduler.max_throughput, troupe::defaults::scheduler::max_throughput);
  EXPECT_FALSE(cfg.helptext_requested());
  EXPECT_TRUE(cfg.remainder().empty());
}

TEST(actor_system_config, the_command_line_sets_every_troupe_key_with_key_equals_value) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.policy=work-sharing",
                        "--troupe.scheduler.max-threads=3",
                        "--troupe.scheduler.max-throughput=17",
                        "--troupe.scheduler.spin-attempts=5",
                        "--troupe.logger.verbosity=debug"});
  ASSERT_FALSE(err) << to_string(err);
  EXPECT_EQ(cfg.scheduler.policy, "work-sharing");
  EXPECT_EQ(cfg.scheduler.max_threads, 3u);
  EXPECT_EQ(cfg.scheduler.max_throughput, 17u);
  EXPECT_EQ(cfg.scheduler.spin_attempts, 5u);
  EXPECT_EQ(cfg.logger.verbosity, troupe::log_level::debug);
}

TEST(actor_system_config, the_idle_mode_keys_set_the_mode_every_tier_and_the_wait_timeout) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.idle-mode=polling",
                        "--troupe.scheduler.pin-workers=true",
                        "--troupe.scheduler.aggressive.poll-attempts=7",
                        "--troupe.scheduler.aggressive.steal-interval=3",
                        "--troupe.scheduler.aggressive.sleep-duration=2us",
                        "--troupe.scheduler.moderate.poll-attempts=11",
                        "--troupe.scheduler.moderate.steal-interval=0",
                        "--troupe.scheduler.moderate.sleep-duration=1us",
                        "--troupe.scheduler.relaxed.poll-attempts=2",
                        "--troupe.scheduler.relaxed.steal-interval=5",
                        "--troupe.scheduler.relaxed.sleep-duration=1ms",
                        "--troupe.scheduler.wait-timeout=10ms"});
  ASSERT_FALSE(err) << to_string(err);
  EXPECT_EQ(cfg.scheduler.idle_mode, troupe::idle_mode::polling);
  EXPECT_TRUE(cfg.scheduler.pin_workers);
  auto tier = [](const troupe::polling_tier& x) {
    return std::tuple{x.poll_attempts, x.steal_interval, x.sleep_duration};
  };
  EXPECT_EQ(tier(cfg.scheduler.aggressive), std::tuple(7u, 3u, 2us));
  EXPECT_EQ(tier(cfg.scheduler.moderate), std::tuple(11u, 0u, 1us));
  EXPECT_EQ(tier(cfg.scheduler.relaxed), std::tuple(2u, 5u, 1000us));
  EXPECT_EQ(cfg.scheduler.wait_timeout, 10ms);
}

TEST(actor_system_config, the_polling_tiers_default_to_table_one_of_the_paper) {
  actor_system_config cfg;
  auto tier = [](const troupe::polling_tier& x) {
    return std::tuple{x.poll_attempts, x.steal_interval, x.sleep_duration};
  };
  EXPECT_EQ(tier(cfg.scheduler.aggressive), std::tuple(100u, 10u, 0us));
  EXPECT_EQ(tier(cfg.scheduler.moderate), std::tuple(500u, 5u, 50us));
  EXPECT_EQ(tier(cfg.scheduler.relaxed), std::tuple(1u, 1u, 10000us));
  EXPECT_EQ(cfg.scheduler.wait_timeout, 200us);
  EXPECT_EQ(cfg.scheduler.idle_mode, troupe::idle_mode::adaptive);
}

TEST(actor_system_config, an_unknown_idle_mode_names_the_modes) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.idle-mode=lazy"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.idle-mode: expected one of adaptive, event, "
                           "polling, got 'lazy'");
  EXPECT_EQ(cfg.scheduler.idle_mode, troupe::idle_mode::adaptive);
}

TEST(actor_system_config, a_sleep_duration_without_a_unit_is_malformed) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.relaxed.sleep-duration=10"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_TRUE(contains(err.context(), "troupe.scheduler.relaxed.sleep-duration"))
    << err.context();
}

TEST(actor_system_config, a_key_and_its_value_may_be_two_arguments) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.policy", "work-sharing",
                        "--troupe.scheduler.max-threads", "2", "--troupe.logger.verbosity",
                        "trace"});
  ASSERT_FALSE(err) << to_string(err);
  EXPECT_EQ(cfg.scheduler.policy, "work-sharing");
  EXPECT_EQ(cfg.scheduler.max_threads, 2u);
  EXPECT_EQ(cfg.logger.verbosity, troupe::log_level::trace);
  EXPECT_TRUE(cfg.remainder().empty());
}

TEST(actor_system_config, the_last_occurrence_of_a_key_on_the_command_line_wins) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.max-threads=2",
                          "--troupe.scheduler.max-threads", "4"}));
  EXPECT_EQ(cfg.scheduler.max_threads, 4u);
}

TEST(actor_system_config, parse_reads_argv_after_the_program_name) {
  actor_system_config cfg;
  const char* argv[] = {"/usr/bin/my-app", "--troupe.scheduler.max-threads=6", "input.txt"};
  ASSERT_FALSE(cfg.parse(3, argv));
  EXPECT_EQ(cfg.scheduler.max_threads, 6u);
  EXPECT_EQ(cfg.remainder(), std::vector<std::string>{"input.txt"});
  EXPECT_TRUE(contains(cfg.helptext(), "Usage: my-app ")) << cfg.helptext();
}

TEST(actor_system_config, set_changes_one_key_and_reports_errors_like_parse) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.set("troupe.scheduler.max-throughput", "9"));
  EXPECT_EQ(cfg.scheduler.max_throughput, 9u);
  auto err = cfg.set("troupe.scheduler.max-throughput", "many");
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.max-throughput: expected a positive integer "
                           "or 'infinite', got 'many'");
  EXPECT_EQ(cfg.scheduler.max_throughput, 9u);
  ASSERT_FALSE(cfg.set("troupe.scheduler.max-throughput", "infinite"));
  EXPECT_EQ(cfg.scheduler.max_throughput, std::numeric_limits<size_t>::max());
  err = cfg.set("troupe.scheduler.max-thraeds", "2");
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_TRUE(contains(err.context(), "'troupe.scheduler.max-thraeds'")) << err.context();
  EXPECT_TRUE(contains(err.context(), "did you mean 'troupe.scheduler.max-threads'?"))
    << err.context();
}

// -- malformed values ----------------------------------------------------------------

TEST(actor_system_config, a_malformed_value_names_the_key_the_expected_type_and_the_value) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.max-threads=four"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(),
            "troupe.scheduler.max-threads: expected an unsigned integer, got 'four'");
}

TEST(actor_system_config, a_negative_count_is_malformed) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.spin-attempts", "-1"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(),
            "troupe.scheduler.spin-attempts: expected an unsigned integer, got '-1'");
}

TEST(actor_system_config, the_idle_budget_is_a_share_of_one_core_from_0_to_1) {
  actor_system_config cfg;
  EXPECT_EQ(cfg.scheduler.idle_budget, troupe::defaults::scheduler::idle_budget);
  for (auto [text, value] : {std::pair{"0", 0.0}, std::pair{"0.25", 0.25}, std::pair{"1", 1.0}}) {
    auto err = cfg.parse({std::string{"--troupe.scheduler.idle-budget="} + text});
    ASSERT_FALSE(err) << text << ": " << to_string(err);
    EXPECT_EQ(cfg.scheduler.idle_budget, value);
  }
  // Out of range or no number: refused, the value before kept.
  for (auto text : {"-0.1", "1.5", "nan", "inf", "half", ""}) {
    auto err = cfg.parse({std::string{"--troupe.scheduler.idle-budget="} + text});
    EXPECT_EQ(err, errc::malformed_value) << text;
    EXPECT_EQ(cfg.scheduler.idle_budget, 1.0) << text;
  }
  auto err = cfg.parse({"--troupe.scheduler.idle-budget=2"});
  EXPECT_EQ(err.context(),
            "troupe.scheduler.idle-budget: expected a number between 0 and 1, got '2'");
}

TEST(actor_system_config, a_key_without_a_value_is_malformed) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.max-threads"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.max-threads: expected an unsigned integer, got ''");
}

TEST(actor_system_config, an_unknown_policy_names_the_allowed_policies) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.policy=round-robin"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.policy: expected one of work-stealing, "
                           "work-sharing, locality, got 'round-robin'");
}

TEST(actor_system_config, a_max_throughput_of_zero_is_malformed) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.max-throughput=0"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(),
            "troupe.scheduler.max-throughput: expected a positive integer or 'infinite', "
            "got '0'");
  EXPECT_EQ(cfg.scheduler.max_throughput, troupe::defaults::scheduler::max_throughput);
}

// -- ranges -------------------------------------------------------------------------

TEST(actor_system_config, max_threads_limit_is_four_per_hardware_thread_between_64_and_1024) {
  size_t per_machine = std::thread::hardware_concurrency() * size_t{4};
  auto limit = troupe::scheduler_config::max_threads_limit();
  EXPECT_EQ(limit, std::clamp(per_machine, size_t{64}, size_t{1024}));
  EXPECT_EQ(troupe::defaults::scheduler::max_threads_cap, 1024u);
}

TEST(actor_system_config, max_threads_above_the_limit_is_malformed_and_names_the_range) {
  auto limit = troupe::scheduler_config::max_threads_limit();
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.max-threads=100000"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.max-threads: expected an unsigned integer between "
                           "0 and " + std::to_string(limit) + ", got '100000'");
  EXPECT_EQ(cfg.scheduler.max_threads, troupe::defaults::scheduler::max_threads);
  err = cfg.parse({"--troupe.scheduler.max-threads=" + std::to_string(limit + 1)});
  EXPECT_EQ(err, errc::malformed_value);
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.max-threads=" + std::to_string(limit)}));
  EXPECT_EQ(cfg.scheduler.max_threads, limit);
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.max-threads=0"}));
  EXPECT_EQ(cfg.scheduler.max_threads, 0u);
}

TEST(actor_system_config, a_negative_duration_is_malformed_for_every_troupe_duration_key) {
  for (auto key : {"troupe.scheduler.aggressive.sleep-duration",
                   "troupe.scheduler.moderate.sleep-duration",
                   "troupe.scheduler.relaxed.sleep-duration"}) {
    actor_system_config cfg;
    auto err = cfg.parse({"--"s + key + "=-5s"});
    EXPECT_EQ(err, errc::malformed_value) << key;
    EXPECT_EQ(err.context(), key + ": expected a duration between 0us and 1s, got '-5s'"s);
  }
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.wait-timeout=-5s"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.wait-timeout: expected a duration between 1us "
                           "and 1s, got '-5s'");
  EXPECT_EQ(cfg.scheduler.wait_timeout, troupe::defaults::scheduler::wait_timeout);
}

TEST(actor_system_config, a_zero_sleep_is_no_sleep_but_a_zero_wait_timeout_is_malformed) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.moderate.sleep-duration=0us"}));
  EXPECT_EQ(cfg.scheduler.moderate.sleep_duration, 0us);
  auto err = cfg.parse({"--troupe.scheduler.wait-timeout=0us"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.wait-timeout: expected a duration between 1us "
                           "and 1s, got '0us'");
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.wait-timeout=1us"}));
  EXPECT_EQ(cfg.scheduler.wait_timeout, 1us);
}

TEST(actor_system_config, durations_above_a_second_are_malformed) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.relaxed.sleep-duration=1s",
                          "--troupe.scheduler.wait-timeout=1s"}));
  EXPECT_EQ(cfg.scheduler.relaxed.sleep_duration, 1s);
  EXPECT_EQ(cfg.scheduler.wait_timeout, 1s);
  auto err = cfg.parse({"--troupe.scheduler.relaxed.sleep-duration=1000001us"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.relaxed.sleep-duration: expected a duration "
                           "between 0us and 1s, got '1000001us'");
  err = cfg.parse({"--troupe.scheduler.wait-timeout=1h"});
  EXPECT_EQ(err, errc::malformed_value);
}

TEST(actor_system_config, spin_attempts_and_tier_counts_have_an_upper_bound) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.spin-attempts=65537"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.scheduler.spin-attempts: expected an unsigned integer "
                           "between 0 and 65536, got '65537'");
  for (auto key : {"troupe.scheduler.aggressive.poll-attempts",
                   "troupe.scheduler.aggressive.steal-interval",
                   "troupe.scheduler.moderate.poll-attempts",
                   "troupe.scheduler.moderate.steal-interval",
                   "troupe.scheduler.relaxed.poll-attempts",
                   "troupe.scheduler.relaxed.steal-interval"}) {
    err = cfg.parse({"--"s + key + "=1000001"});
    EXPECT_EQ(err, errc::malformed_value) << key;
    EXPECT_EQ(err.context(),
              key + ": expected an unsigned integer between 0 and 1000000, got '1000001'"s);
  }
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.spin-attempts=65536",
                          "--troupe.scheduler.aggressive.poll-attempts=1000000",
                          "--troupe.scheduler.aggressive.steal-interval=0"}));
  EXPECT_EQ(cfg.scheduler.spin_attempts, 65536u);
  EXPECT_EQ(cfg.scheduler.aggressive.poll_attempts, 1000000u);
  EXPECT_EQ(cfg.scheduler.aggressive.steal_interval, 0u);
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.spin-attempts=0"}));
  EXPECT_EQ(cfg.scheduler.spin_attempts, 0u);
}

TEST(actor_system_config, set_checks_the_range_like_parse) {
  actor_system_config cfg;
  auto err = cfg.set("troupe.scheduler.max-threads", "100000");
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_TRUE(contains(err.context(), "troupe.scheduler.max-threads: expected an unsigned "
                                      "integer between 0 and "))
    << err.context();
  EXPECT_EQ(cfg.scheduler.max_threads, troupe::defaults::scheduler::max_threads);
  err = cfg.set("troupe.scheduler.wait-timeout", "-5s");
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(cfg.scheduler.wait_timeout, troupe::defaults::scheduler::wait_timeout);
}

TEST(actor_system_config, a_value_out_of_range_in_the_file_names_the_file_line_and_range) {
  temp_file file{"[troupe.scheduler]\nmax-threads = 100000\n"
                 "wait-timeout = \"-5s\"\n"};
  actor_system_config cfg;
  auto err = cfg.parse({file.flag()});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(),
            file.path() + ":2:15: troupe.scheduler.max-threads: expected an unsigned integer "
                          "between 0 and "
              + std::to_string(troupe::scheduler_config::max_threads_limit())
              + ", got '100000'");
  temp_file timeout{"[troupe.scheduler]\nwait-timeout = \"-5s\"\n"};
  err = cfg.parse({timeout.flag()});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), timeout.path() + ":2:16: troupe.scheduler.wait-timeout: "
                                            "expected a duration between 1us and 1s, got '-5s'");
  EXPECT_EQ(cfg.scheduler.max_threads, troupe::defaults::scheduler::max_threads);
  EXPECT_EQ(cfg.scheduler.wait_timeout, troupe::defaults::scheduler::wait_timeout);
}

TEST(actor_system_config, an_unknown_verbosity_names_the_log_levels) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.logger.verbosity=loud"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "troupe.logger.verbosity: expected one of quiet, error, warning, "
                           "info, debug, trace, got 'loud'");
}

TEST(actor_system_config, a_failed_parse_changes_no_option_and_no_remainder) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"first"}));
  auto err = cfg.parse({"--troupe.scheduler.max-threads=4", "second",
                        "--troupe.scheduler.max-throughput=lots"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(cfg.scheduler.max_threads, troupe::defaults::scheduler::max_threads);
  EXPECT_EQ(cfg.remainder(), std::vector<std::string>{"first"});
}

// -- unknown keys --------------------------------------------------------------------

TEST(actor_system_config, an_unknown_key_on_the_command_line_is_an_error_naming_it) {
  actor_system_config cfg;
  auto err = cfg.parse({"--app.colour=blue"});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_EQ(err.context(), "unknown key 'app.colour' on the command line");
}

TEST(actor_system_config, an_unknown_key_near_a_declared_key_suggests_it) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.max-thread", "4"});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_EQ(err.context(), "unknown key 'troupe.scheduler.max-thread' on the command line; "
                           "did you mean 'troupe.scheduler.max-threads'?");
  size_t rate = 0;
  cfg.add_option("app.rate", &rate, "messages per second");
  err = cfg.parse({"--app.reta=4"});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_TRUE(contains(err.context(), "did you mean 'app.rate'?")) << err.context();
  err = cfg.parse({"--hlep"});
  EXPECT_TRUE(contains(err.context(), "did you mean 'help'?")) << err.context();
}

TEST(actor_system_config, a_renamed_key_names_its_new_name_on_the_command_line_and_in_the_file) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.locality.placement=affinity"});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_EQ(err.context(),
            "troupe.locality.placement was renamed to troupe.scheduler.placement");
  err = cfg.set("troupe.work-stealing.aggressive-poll-attempts", "7");
  EXPECT_EQ(err.context(), "troupe.work-stealing.aggressive-poll-attempts was renamed to "
                           "troupe.scheduler.aggressive.poll-attempts");
  temp_file file{"[troupe.work-stealing]\nidle-mode = \"event\"\n"};
  err = cfg.parse({file.flag()});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_EQ(err.context(), file.path() + ":2:1: troupe.work-stealing.idle-mode was renamed to "
                                         "troupe.scheduler.idle-mode");
  EXPECT_EQ(cfg.scheduler.placement, troupe::locality_placement::local);
  EXPECT_EQ(cfg.scheduler.idle_mode, troupe::idle_mode::adaptive);
}

TEST(actor_system_config, every_builtin_key_is_the_path_of_its_field) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.placement=affinity",
                          "--troupe.scheduler.idle-mode=event",
                          "--troupe.scheduler.relaxed.sleep-duration=1ms",
                          "--troupe.shutdown.grace-period=7ms", "--troupe.logger.verbosity=info"}));
  EXPECT_EQ(cfg.scheduler.placement, troupe::locality_placement::affinity);
  EXPECT_EQ(cfg.scheduler.idle_mode, troupe::idle_mode::event);
  EXPECT_EQ(cfg.scheduler.relaxed.sleep_duration, 1ms);
  EXPECT_EQ(cfg.shutdown.grace_period, 7ms);
  EXPECT_EQ(cfg.logger.verbosity, troupe::log_level::info);
}

TEST(actor_system_config, an_unknown_key_after_a_bare_double_dash_is_a_positional_argument) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"a", "--", "--not-an-option", "b"}));
  EXPECT_EQ(cfg.remainder(), (std::vector<std::string>{"a", "--not-an-option", "b"}));
}

// -- remainder and help --------------------------------------------------------------

TEST(actor_system_config, positional_arguments_keep_their_order_in_the_remainder) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"in.txt", "--troupe.scheduler.max-threads=2", "-", "out.txt", "--",
                          "-v", "--troupe.scheduler.max-threads=9"}));
  EXPECT_EQ(cfg.scheduler.max_threads, 2u);
  EXPECT_EQ(cfg.remainder(), (std::vector<std::string>{"in.txt", "-", "out.txt", "-v",
                                                       "--troupe.scheduler.max-threads=9"}));
}

TEST(actor_system_config, an_unknown_single_dash_option_is_an_error_not_a_positional_argument) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"first"}));
  auto err = cfg.parse({"in.txt", "-x", "--troupe.scheduler.max-threads=2"});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_EQ(err.context(), "unknown option '-x' on the command line; options are written "
                           "--key=value, and arguments after a bare -- are positional");
  EXPECT_EQ(cfg.scheduler.max_threads, troupe::defaults::scheduler::max_threads);
  EXPECT_EQ(cfg.remainder(), std::vector<std::string>{"first"});
  for (auto arg : {"-v", "-5", "-xyz", "-x=1", "-troupe.scheduler.max-threads=2"}) {
    err = cfg.parse({arg});
    EXPECT_EQ(err, errc::unknown_key) << arg;
    EXPECT_TRUE(contains(err.context(), "unknown option '"s + arg + "'")) << err.context();
  }
  err = cfg.parse({"-troupe.scheduler.max-threads=2"});
  EXPECT_TRUE(contains(err.context(), "did you mean 'troupe.scheduler.max-threads'?"))
    << err.context();
}

TEST(actor_system_config, help_and_h_request_the_helptext) {
  for (auto flag : {"--help", "-h"}) {
    actor_system_config cfg;
    ASSERT_FALSE(cfg.parse({flag})) << flag;
    EXPECT_TRUE(cfg.helptext_requested()) << flag;
  }
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"--help"}));
  ASSERT_FALSE(cfg.parse(std::vector<std::string>{}));
  EXPECT_FALSE(cfg.helptext_requested());
}

TEST(actor_system_config, the_helptext_lists_every_key_with_its_default_and_description) {
  actor_system_config cfg;
  std::chrono::milliseconds timeout{250};
  bool verbose = false;
  cfg.add_option("app.timeout", &timeout, "how long to wait for a reply")
    .add_option("app.verbose", &verbose, "print every step");
  ASSERT_FALSE(cfg.parse({"--help"}));
  auto text = cfg.helptext();
  for (auto part : {"--troupe.scheduler.policy=<work-stealing|work-sharing|locality>  "
                    "(default: work-stealing)",
                    "--troupe.scheduler.max-throughput=<uint|infinite>  (default: infinite, "
                    "range: 1 to infinite)",
                    "--troupe.scheduler.spin-attempts=<uint>  (default: 1024, range: 0 "
                    "to 65536)",
                    "--troupe.scheduler.idle-mode=<adaptive|event|polling>  "
                    "(default: adaptive)",
                    "--troupe.scheduler.aggressive.poll-attempts=<uint>  (default: 100, "
                    "range: 0 to 1000000)",
                    "--troupe.scheduler.moderate.steal-interval=<uint>  (default: 5, "
                    "range: 0 to 1000000)",
                    "--troupe.scheduler.relaxed.sleep-duration=<duration>  "
                    "(default: 10000us, range: 0us to 1s)",
                    "--troupe.scheduler.wait-timeout=<duration>  (default: 200us, range: "
                    "1us to 1s)",
                    "--troupe.scheduler.pin-workers[=true|false]  (default: false)",
                    "--troupe.logger.verbosity=<quiet|error|warning|info|debug|trace>  "
                    "(default: warning)",
                    "--app.timeout=<duration>  (default: 250ms)\n",
                    "how long to wait for a reply",
                    "--app.verbose[=true|false]  (default: false)", "print every step",
                    "--config-file=<path>", "-h, --help"})
    EXPECT_TRUE(contains(text, part)) << "missing: " << part << "\nin:\n" << text;
  auto limit = std::to_string(troupe::scheduler_config::max_threads_limit());
  for (auto part : {"--troupe.scheduler.max-threads=<uint>  (default: 0, range: 0 to " + limit
                      + ")\n",
                    "worker threads; 0 means one per hardware thread; at most 4 per"s})
    EXPECT_TRUE(contains(text, part)) << "missing: " << part << "\nin:\n" << text;
}

TEST(actor_system_config, help_wins_over_every_other_argument) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.max-threads=bad", "--unknown", "--help"}));
  EXPECT_TRUE(cfg.helptext_requested());
  EXPECT_EQ(cfg.scheduler.max_threads, troupe::defaults::scheduler::max_threads);
}

// -- TOML files ------------------------------------------------------------------------

TEST(actor_system_config, a_toml_file_sets_keys_through_its_tables) {
  temp_file file{R"(
[troupe.scheduler]
policy = "work-sharing"
max-threads = 4
max-throughput = 50
spin-attempts = 7
idle-mode = "event"
wait-timeout = "50us"

[troupe]
logger.verbosity = "error"
)"};
  actor_system_config cfg;
  auto err = cfg.parse({file.flag()});
  ASSERT_FALSE(err) << to_string(err);
  EXPECT_EQ(cfg.scheduler.policy, "work-sharing");
  EXPECT_EQ(cfg.scheduler.max_threads, 4u);
  EXPECT_EQ(cfg.scheduler.max_throughput, 50u);
  EXPECT_EQ(cfg.scheduler.spin_attempts, 7u);
  EXPECT_EQ(cfg.logger.verbosity, troupe::log_level::error);
  EXPECT_EQ(cfg.scheduler.idle_mode, troupe::idle_mode::event);
  EXPECT_EQ(cfg.scheduler.wait_timeout, 50us);
}

TEST(actor_system_config, the_config_file_path_may_be_a_separate_argument) {
  temp_file file{"troupe.scheduler.max-threads = 5\n"};
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"--config-file", file.path()}));
  EXPECT_EQ(cfg.scheduler.max_threads, 5u);
}

TEST(actor_system_config, the_command_line_wins_over_the_file_wherever_the_file_is_named) {
  temp_file file{"[troupe.scheduler]\nmax-threads = 4\nmax-throughput = 50\n"};
  {
    actor_system_config cfg;
    ASSERT_FALSE(cfg.parse({file.flag(), "--troupe.scheduler.max-threads=2"}));
    EXPECT_EQ(cfg.scheduler.max_threads, 2u);
    EXPECT_EQ(cfg.scheduler.max_throughput, 50u);
  }
  {
    actor_system_config cfg;
    ASSERT_FALSE(cfg.parse({"--troupe.scheduler.max-threads=2", file.flag()}));
    EXPECT_EQ(cfg.scheduler.max_threads, 2u);
    EXPECT_EQ(cfg.scheduler.max_throughput, 50u);
  }
}

TEST(actor_system_config, an_unknown_key_in_the_file_names_the_key_the_file_and_the_line) {
  temp_file file{"[troupe.scheduler]\nmax-threads = 4\nmax-thraeds = 4\n"};
  actor_system_config cfg;
  auto err = cfg.parse({file.flag()});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_EQ(err.context(), file.path() + ":3:1: unknown key 'troupe.scheduler.max-thraeds' in "
                             + file.path() + "; did you mean 'troupe.scheduler.max-threads'?");
  EXPECT_EQ(cfg.scheduler.max_threads, troupe::defaults::scheduler::max_threads);
}

TEST(actor_system_config, a_malformed_value_in_the_file_names_the_file_line_key_and_value) {
  temp_file file{"[troupe.scheduler]\n\nmax-throughput = 0\n"};
  actor_system_config cfg;
  auto err = cfg.parse({file.flag()});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), file.path() + ":3:18: troupe.scheduler.max-throughput: expected a "
                                         "positive integer or 'infinite', got '0'");
}

TEST(actor_system_config, a_value_of_the_wrong_toml_type_names_both_types) {
  temp_file file{"troupe.scheduler.max-threads = \"four\"\n"};
  actor_system_config cfg;
  auto err = cfg.parse({file.flag()});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), file.path() + ":1:32: troupe.scheduler.max-threads: expected an "
                                         "unsigned integer, got a string 'four'");
}

TEST(actor_system_config, a_toml_syntax_error_names_the_file_line_and_column) {
  temp_file file{"[troupe.scheduler]\nmax-threads = 4\npolicy = work-sharing\n"};
  actor_system_config cfg;
  auto err = cfg.parse({file.flag()});
  EXPECT_EQ(err, errc::parse_error);
  EXPECT_TRUE(err.context().starts_with(file.path() + ":3:")) << err.context();
}

TEST(actor_system_config, a_missing_config_file_is_a_parse_error_naming_the_path) {
  actor_system_config cfg;
  auto err = cfg.parse({"--config-file=/nonexistent/troupe.toml"});
  EXPECT_EQ(err, errc::parse_error);
  EXPECT_TRUE(contains(err.context(), "'/nonexistent/troupe.toml'")) << err.context();
}

TEST(actor_system_config, an_empty_config_file_path_is_malformed) {
  actor_system_config cfg;
  auto err = cfg.parse({"--config-file="});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "config-file: expected a path, got ''");
}

// -- user options ------------------------------------------------------------------------

TEST(actor_system_config, user_options_of_every_supported_type_read_the_command_line) {
  actor_system_config cfg;
  bool verbose = false;
  bool cache = true;
  int offset = 0;
  int8_t small = 0;
  uint16_t port = 0;
  size_t count = 0;
  double ratio = 0;
  float scale = 0;
  std::string name;
  std::chrono::milliseconds timeout{0};
  std::chrono::microseconds tick{0};
  std::chrono::seconds period{0};
  std::chrono::minutes lease{0};
  std::chrono::duration<double> fraction{0};
  std::vector<std::string> hosts;
  cfg.add_option("app.verbose", &verbose, "")
    .add_option("app.cache", &cache, "")
    .add_option("app.offset", &offset, "")
    .add_option("app.small", &small, "")
    .add_option("app.port", &port, "")
    .add_option("app.count", &count, "")
    .add_option("app.ratio", &ratio, "")
    .add_option("app.scale", &scale, "")
    .add_option("app.name", &name, "")
    .add_option("app.timeout", &timeout, "")
    .add_option("app.tick", &tick, "")
    .add_option("app.period", &period, "")
    .add_option("app.lease", &lease, "")
    .add_option("app.fraction", &fraction, "")
    .add_option("app.hosts", &hosts, "");
  auto err = cfg.parse({"--app.verbose", "--app.cache=false", "--app.offset", "-5",
                        "--app.small=-128", "--app.port=8080", "--app.count=12",
                        "--app.ratio=0.25", "--app.scale", "1.5", "--app.name=hello world",
                        "--app.timeout=10ms", "--app.tick=200us", "--app.period=1s",
                        "--app.lease=5min", "--app.fraction=1.5s", "--app.hosts=a,b",
                        "--app.hosts", "c"});
  ASSERT_FALSE(err) << to_string(err);
  EXPECT_TRUE(verbose);
  EXPECT_FALSE(cache);
  EXPECT_EQ(offset, -5);
  EXPECT_EQ(small, -128);
  EXPECT_EQ(port, 8080);
  EXPECT_EQ(count, 12u);
  EXPECT_EQ(ratio, 0.25);
  EXPECT_EQ(scale, 1.5f);
  EXPECT_EQ(name, "hello world");
  EXPECT_EQ(timeout, 10ms);
  EXPECT_EQ(tick, 200us);
  EXPECT_EQ(period, 1s);
  EXPECT_EQ(lease, 5min);
  EXPECT_EQ(fraction.count(), 1.5);
  EXPECT_EQ(hosts, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(cfg.remainder().empty());
}

TEST(actor_system_config, user_options_of_every_supported_type_read_the_toml_file) {
  temp_file file{R"(
[app]
verbose = true
offset = -3
ratio = 2
scale = 0.5
name = "n"
timeout = "1.5s"
hosts = ["x", "y"]
)"};
  actor_system_config cfg;
  bool verbose = false;
  int offset = 0;
  double ratio = 0;
  float scale = 0;
  std::string name;
  std::chrono::milliseconds timeout{0};
  std::vector<std::string> hosts{"default"};
  cfg.add_option("app.verbose", &verbose, "")
    .add_option("app.offset", &offset, "")
    .add_option("app.ratio", &ratio, "")
    .add_option("app.scale", &scale, "")
    .add_option("app.name", &name, "")
    .add_option("app.timeout", &timeout, "")
    .add_option("app.hosts", &hosts, "");
  auto err = cfg.parse({file.flag()});
  ASSERT_FALSE(err) << to_string(err);
  EXPECT_TRUE(verbose);
  EXPECT_EQ(offset, -3);
  EXPECT_EQ(ratio, 2.0);
  EXPECT_EQ(scale, 0.5f);
  EXPECT_EQ(name, "n");
  EXPECT_EQ(timeout, 1500ms);
  EXPECT_EQ(hosts, (std::vector<std::string>{"x", "y"}));
}

TEST(actor_system_config, a_boolean_option_takes_true_or_false_only) {
  actor_system_config cfg;
  bool verbose = false;
  cfg.add_option("app.verbose", &verbose, "");
  auto err = cfg.parse({"--app.verbose=yes"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "app.verbose: expected true or false, got 'yes'");
  EXPECT_FALSE(verbose);
}

TEST(actor_system_config, an_integer_out_of_its_range_names_the_range) {
  actor_system_config cfg;
  uint8_t level = 0;
  int16_t delta = 0;
  cfg.add_option("app.level", &level, "").add_option("app.delta", &delta, "");
  auto err = cfg.parse({"--app.level=256"});
  EXPECT_EQ(err.context(), "app.level: expected an unsigned integer no greater than 255, "
                           "got '256'");
  err = cfg.parse({"--app.delta=-40000"});
  EXPECT_EQ(err.context(), "app.delta: expected an integer between -32768 and 32767, "
                           "got '-40000'");
  err = cfg.parse({"--app.delta=1.5"});
  EXPECT_EQ(err.context(), "app.delta: expected an integer, got '1.5'");
}

TEST(actor_system_config, a_duration_needs_a_unit_and_must_fit_the_option_exactly) {
  actor_system_config cfg;
  std::chrono::milliseconds timeout{0};
  cfg.add_option("app.timeout", &timeout, "");
  auto err = cfg.parse({"--app.timeout=10"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "app.timeout: expected a duration such as 10ms (units: ns, us, ms, "
                           "s, min, h), got '10'");
  err = cfg.parse({"--app.timeout=10 ms"});
  EXPECT_EQ(err, errc::malformed_value);
  err = cfg.parse({"--app.timeout=200us"});
  EXPECT_EQ(err.context(), "app.timeout: expected a whole number of ms, got '200us'");
  ASSERT_FALSE(cfg.parse({"--app.timeout=2h"}));
  EXPECT_EQ(timeout, 2h);
  ASSERT_FALSE(cfg.parse({"--app.timeout=0.5s"}));
  EXPECT_EQ(timeout, 500ms);
}

TEST(actor_system_config, a_policy_of_the_wrong_toml_type_names_the_allowed_policies) {
  temp_file file{"[troupe.scheduler]\npolicy = 1\n"};
  actor_system_config cfg;
  auto err = cfg.parse({file.flag()});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), file.path() + ":2:10: troupe.scheduler.policy: expected one of "
                                         "work-stealing, work-sharing, locality, got an integer 1");
}

TEST(actor_system_config, a_user_option_of_the_wrong_toml_type_is_malformed) {
  temp_file file{"[app]\nhosts = [\"a\", 1]\n"};
  actor_system_config cfg;
  std::vector<std::string> hosts;
  cfg.add_option("app.hosts", &hosts, "");
  auto err = cfg.parse({file.flag()});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_TRUE(contains(err.context(), "app.hosts: expected an array of strings, got an array"))
    << err.context();
}

TEST(actor_system_config, an_empty_list_value_clears_a_list_option) {
  actor_system_config cfg;
  std::vector<std::string> hosts{"a"};
  cfg.add_option("app.hosts", &hosts, "");
  ASSERT_FALSE(cfg.parse({"--app.hosts="}));
  EXPECT_TRUE(hosts.empty());
}

TEST(actor_system_config, an_empty_value_after_an_equals_sign_takes_no_next_argument) {
  actor_system_config cfg;
  std::string name = "x";
  std::vector<std::string> hosts{"a"};
  bool verbose = false;
  cfg.add_option("app.name", &name, "")
    .add_option("app.hosts", &hosts, "")
    .add_option("app.verbose", &verbose, "");
  ASSERT_FALSE(cfg.parse({"--app.name=", "in.txt", "--app.hosts=", "out.txt"}));
  EXPECT_EQ(name, "");
  EXPECT_TRUE(hosts.empty());
  EXPECT_EQ(cfg.remainder(), (std::vector<std::string>{"in.txt", "out.txt"}));
  auto err = cfg.parse({"--app.verbose="});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "app.verbose: expected true or false, got ''");
  EXPECT_FALSE(verbose);
}

TEST(actor_system_config, declaring_a_key_twice_is_a_logic_error) {
  actor_system_config cfg;
  int x = 0;
  cfg.add_option("app.x", &x, "");
  EXPECT_THROW(cfg.add_option("app.x", &x, ""), std::logic_error);
  EXPECT_THROW(cfg.add_option("troupe.scheduler.max-threads", &x, ""), std::logic_error);
}

TEST(actor_system_config, a_key_that_is_not_a_dotted_name_is_a_logic_error) {
  actor_system_config cfg;
  int x = 0;
  for (auto key : {"x", "", "app.", ".x", "1app.x", "app..x", "app.x y", "app.-x", "app.x=1"})
    EXPECT_THROW(cfg.add_option(key, &x, ""), std::logic_error) << key;
  EXPECT_THROW(cfg.add_option("troupe.mine", &x, ""), std::logic_error);
  EXPECT_THROW(cfg.add_option<int>("app.null", nullptr, ""), std::logic_error);
  EXPECT_NO_THROW(cfg.add_option("my-app.sub_group.rate-2", &x, ""));
}

TEST(actor_system_config, a_user_option_may_have_a_range) {
  actor_system_config cfg;
  size_t workers = 4;
  int delta = 0;
  std::chrono::milliseconds timeout{100};
  cfg.add_option("app.workers", &workers, "worker count", 1, 16)
    .add_option("app.delta", &delta, "", -10, 10)
    .add_option("app.timeout", &timeout, "", 1ms, 10s);
  auto err = cfg.parse({"--app.workers=0"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "app.workers: expected an unsigned integer between 1 and 16, got '0'");
  err = cfg.parse({"--app.delta=-11"});
  EXPECT_EQ(err.context(), "app.delta: expected an integer between -10 and 10, got '-11'");
  err = cfg.parse({"--app.timeout=-1ms"});
  EXPECT_EQ(err.context(), "app.timeout: expected a duration between 1ms and 10s, got '-1ms'");
  // A value that is no number keeps the parser's own words.
  err = cfg.parse({"--app.timeout=10"});
  EXPECT_EQ(err.context(), "app.timeout: expected a duration such as 10ms (units: ns, us, ms, "
                           "s, min, h), got '10'");
  EXPECT_EQ(workers, 4u);
  EXPECT_EQ(delta, 0);
  EXPECT_EQ(timeout, 100ms);
  temp_file file{"[app]\nworkers = 17\n"};
  err = cfg.parse({file.flag()});
  EXPECT_EQ(err.context(), file.path() + ":2:11: app.workers: expected an unsigned integer "
                                         "between 1 and 16, got '17'");
  EXPECT_EQ(cfg.set("app.workers", "17"), errc::malformed_value);
  ASSERT_FALSE(cfg.parse({"--app.workers=16", "--app.delta=-10", "--app.timeout=10s"}));
  EXPECT_EQ(workers, 16u);
  EXPECT_EQ(delta, -10);
  EXPECT_EQ(timeout, 10s);
  ASSERT_FALSE(cfg.parse({"--help"}));
  EXPECT_TRUE(contains(cfg.helptext(), "--app.workers=<uint>  (default: 4, range: 1 to 16)\n"))
    << cfg.helptext();
  EXPECT_TRUE(contains(cfg.helptext(), "--app.timeout=<duration>  (default: 100ms, range: 1ms "
                                       "to 10s)\n"))
    << cfg.helptext();
}

TEST(actor_system_config, a_range_whose_min_exceeds_its_max_is_a_logic_error) {
  actor_system_config cfg;
  int x = 0;
  EXPECT_THROW(cfg.add_option("app.x", &x, "", 5, 4), std::logic_error);
  EXPECT_NO_THROW(cfg.add_option("app.x", &x, "", 4, 4));
}

// -- opt_group, short names, get_or and get_as ----------------------------------------

namespace {

// Declares its options as CAF's examples do.
struct caf_config : actor_system_config {
  caf_config() {
    opt_group{custom_options_, "global"}
      .add(port, "port,p", "set port")
      .add<size_t>("num-values,n", "number of values")
      .add<bool>("secure,sS", "use TLS")
      .add<std::string>("name", "who to greet");
    opt_group{custom_options_, "tls"}
      .add<std::string>("ca-file,c", "path to the CA file")
      .add<std::chrono::milliseconds>("timeout", "handshake timeout")
      .add<std::vector<std::string>>("ciphers", "allowed ciphers");
  }

  uint16_t port = 0;
};

} // namespace

TEST(opt_group, global_keys_have_no_prefix_and_other_groups_prefix_theirs) {
  caf_config cfg;
  auto err = cfg.parse({"--port=8080", "--num-values", "3", "--tls.ca-file=ca.pem",
                        "--tls.timeout=2s", "--secure"});
  ASSERT_FALSE(err) << to_string(err);
  EXPECT_EQ(cfg.port, 8080);
  EXPECT_EQ(troupe::get_or(cfg, "num-values", size_t{10}), 3u);
  EXPECT_EQ(troupe::get_or(cfg, "tls.ca-file", ""), "ca.pem");
  EXPECT_EQ(troupe::get_or(cfg, "tls.timeout", 0ms), 2000ms);
  EXPECT_TRUE(troupe::get_or(cfg, "secure", false));
  EXPECT_TRUE(troupe::get_or(cfg, "port", uint16_t{0}) == 8080);
  // The prefix belongs to the key: neither --ca-file nor --tls.port exists.
  EXPECT_EQ(cfg.parse({"--ca-file=x"}), errc::unknown_key);
  EXPECT_EQ(cfg.parse({"--tls.port=1"}), errc::unknown_key);
  EXPECT_EQ(cfg.parse({"--global.port=1"}), errc::unknown_key);
}

TEST(opt_group, get_or_gives_the_default_for_an_option_not_given) {
  caf_config cfg;
  ASSERT_FALSE(cfg.parse(std::vector<std::string>{}));
  EXPECT_EQ(troupe::get_or(cfg, "num-values", size_t{10}), 10u);
  EXPECT_EQ(troupe::get_or(cfg, "tls.ca-file", "none"), "none");
  EXPECT_FALSE(troupe::get_or(cfg, "tls.enable", false)); // never declared
  EXPECT_EQ(troupe::get_or(cfg, "port", 7), 7);           // bound, not given
  EXPECT_EQ(cfg.port, 0);
  // A string literal or string_view default gives a std::string.
  static_assert(std::is_same_v<decltype(troupe::get_or(cfg, "name", "x")), std::string>);
  static_assert(
    std::is_same_v<decltype(troupe::get_or(cfg, "name", std::string_view{"x"})), std::string>);
  // So does an explicit type, as CAF's get_or<To>.
  static_assert(std::is_same_v<decltype(troupe::get_or<size_t>(cfg, "num-values", 10)), size_t>);
  EXPECT_EQ(troupe::get_or<size_t>(cfg, "num-values", 10), 10u);
}

TEST(opt_group, short_names_take_a_value_in_the_next_argument_or_in_the_same) {
  {
    caf_config cfg;
    auto err = cfg.parse({"-p", "8080", "-n5", "-c", "ca.pem", "in.txt", "-s"});
    ASSERT_FALSE(err) << to_string(err);
    EXPECT_EQ(cfg.port, 8080);
    EXPECT_EQ(troupe::get_or(cfg, "num-values", size_t{0}), 5u);
    EXPECT_EQ(troupe::get_or(cfg, "tls.ca-file", std::string{}), "ca.pem");
    EXPECT_TRUE(troupe::get_or(cfg, "secure", false));
    EXPECT_EQ(cfg.remainder(), std::vector<std::string>{"in.txt"});
  }
  {
    caf_config cfg;
    ASSERT_FALSE(cfg.parse({"-p8081", "-S"}));
    EXPECT_EQ(cfg.port, 8081);
    EXPECT_TRUE(troupe::get_or(cfg, "secure", false)); // the second alias
  }
  {
    // The last occurrence wins, short or long.
    caf_config cfg;
    ASSERT_FALSE(cfg.parse({"--port=1", "-p", "2", "--num-values=3", "-n4", "--num-values", "5"}));
    EXPECT_EQ(cfg.port, 2);
    EXPECT_EQ(troupe::get_or(cfg, "num-values", size_t{0}), 5u);
  }
}

TEST(opt_group, a_short_name_takes_the_next_argument_even_if_it_starts_with_a_dash) {
  struct config : actor_system_config {
    config() {
      opt_group{custom_options_, "app"}.add(offset, "offset,o", "").add(out, "out,f", "");
    }
    int offset = 0;
    std::string out;
  } cfg;
  ASSERT_FALSE(cfg.parse({"-o", "-5", "-f", "-"}));
  EXPECT_EQ(cfg.offset, -5);
  EXPECT_EQ(cfg.out, "-");
  EXPECT_TRUE(cfg.remainder().empty());
  // An empty argument is the value, not a reason to take the one after it.
  ASSERT_FALSE(cfg.parse({"-f", "", "in.txt"}));
  EXPECT_EQ(cfg.out, "");
  EXPECT_EQ(cfg.remainder(), std::vector<std::string>{"in.txt"});
}

TEST(opt_group, a_short_name_without_its_value_or_a_flag_with_one_is_malformed) {
  caf_config cfg;
  auto err = cfg.parse({"-p"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "port: expected an unsigned integer, got ''");
  err = cfg.parse({"-pabc"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "port: expected an unsigned integer, got 'abc'");
  err = cfg.parse({"-sx"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "secure: expected -s alone (or --secure=true|false), got '-sx'");
  // --help still wins.
  ASSERT_FALSE(cfg.parse({"-sx", "-h"}));
  EXPECT_TRUE(cfg.helptext_requested());
  EXPECT_EQ(cfg.port, 0);
}

TEST(opt_group, an_unknown_short_name_is_still_an_error) {
  caf_config cfg;
  auto err = cfg.parse({"-x", "1"});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_EQ(err.context(), "unknown option '-x' on the command line; options are written "
                           "--key=value or by a short name (-p, -n, -s, -S, -c), and "
                           "arguments after a bare -- are positional");
  // Short names are case-sensitive: "secure,sS" has -s and -S, "port,p" no -P.
  err = cfg.parse({"-P", "1"});
  EXPECT_EQ(err, errc::unknown_key);
  EXPECT_TRUE(contains(err.context(), "unknown option '-P'")) << err.context();
}

TEST(opt_group, a_malformed_value_is_an_error_naming_the_key) {
  caf_config cfg;
  auto err = cfg.parse({"--num-values=abc"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "num-values: expected an unsigned integer, got 'abc'");
  err = cfg.parse({"-n", "-1"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), "num-values: expected an unsigned integer, got '-1'");
  err = cfg.parse({"--tls.timeout=5"});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_TRUE(contains(err.context(), "tls.timeout: expected a duration")) << err.context();
  err = cfg.parse({"--port=70000"});
  EXPECT_EQ(err.context(), "port: expected an unsigned integer no greater than 65535, "
                           "got '70000'");
  // Nothing was stored.
  EXPECT_FALSE(troupe::get_as<size_t>(cfg, "num-values"));
  EXPECT_EQ(cfg.port, 0);
}

TEST(opt_group, a_toml_file_sets_global_keys_at_the_top_and_groups_in_tables) {
  temp_file file{R"(
port = 9000
num-values = 42
secure = true

[tls]
ca-file = "/etc/ca.pem"
timeout = "250ms"
ciphers = ["aes", "chacha"]
)"};
  caf_config cfg;
  auto err = cfg.parse({file.flag(), "-n", "7"});
  ASSERT_FALSE(err) << to_string(err);
  EXPECT_EQ(cfg.port, 9000);
  EXPECT_EQ(troupe::get_or(cfg, "num-values", size_t{0}), 7u); // the command line wins
  EXPECT_TRUE(troupe::get_or(cfg, "secure", false));
  EXPECT_EQ(troupe::get_or(cfg, "tls.ca-file", ""), "/etc/ca.pem");
  EXPECT_EQ(troupe::get_or(cfg, "tls.timeout", 1000ms), 250ms);
  // The default's type decides: 250ms is no whole number of seconds.
  EXPECT_EQ(troupe::get_or(cfg, "tls.timeout", 1s), 1s);
  EXPECT_EQ(troupe::get_or(cfg, "tls.ciphers", std::vector<std::string>{}),
            (std::vector<std::string>{"aes", "chacha"}));
  temp_file bad{"num-values = \"many\"\n"};
  err = cfg.parse({bad.flag()});
  EXPECT_EQ(err, errc::malformed_value);
  EXPECT_EQ(err.context(), bad.path() + ":1:14: num-values: expected an unsigned integer, got "
                                        "a string 'many'");
}

TEST(opt_group, a_table_named_like_a_key_holds_the_options_below_it) {
  struct config : actor_system_config {
    config() {
      opt_group{custom_options_, "global"}.add(tls, "tls", "use TLS");
      opt_group{custom_options_, "tls"}.add(ca_file, "ca-file", "");
    }
    bool tls = false;
    std::string ca_file;
  } cfg;
  temp_file file{"[tls]\nca-file = \"x.pem\"\n"};
  ASSERT_FALSE(cfg.parse({file.flag(), "--tls"}));
  EXPECT_TRUE(cfg.tls);
  EXPECT_EQ(cfg.ca_file, "x.pem");
  temp_file flag{"tls = true\n"};
  ASSERT_FALSE(cfg.parse({flag.flag()}));
}

TEST(opt_group, get_as_converts_what_reads_as_the_type_asked_for) {
  caf_config cfg;
  ASSERT_FALSE(cfg.parse({"-n", "300", "-p", "80", "--tls.timeout=1500ms", "--name=42"}));
  EXPECT_EQ(value_of(troupe::get_as<int64_t>(cfg, "num-values")), int64_t{300});
  EXPECT_EQ(value_of(troupe::get_as<int16_t>(cfg, "num-values")), int16_t{300});
  EXPECT_EQ(value_of(troupe::get_as<double>(cfg, "num-values")), 300.0);
  EXPECT_EQ(value_of(troupe::get_as<std::string>(cfg, "num-values")), "300");
  EXPECT_EQ(value_of(troupe::get_as<std::chrono::microseconds>(cfg, "tls.timeout")), 1500000us);
  EXPECT_EQ(value_of(troupe::get_as<int>(cfg, "name")), 42);
  EXPECT_EQ(troupe::get_or(cfg, "port", 0), 80); // bound, given
  auto x = troupe::get_as<uint8_t>(cfg, "num-values");
  ASSERT_FALSE(x);
  EXPECT_EQ(x.error(), errc::malformed_value);
  EXPECT_EQ(x.error().context(), "num-values: cannot read the uint64_t '300' as uint8_t: "
                                 "expected an unsigned integer no greater than 255");
  EXPECT_EQ(troupe::get_or(cfg, "num-values", uint8_t{9}), 9);
  auto secs = troupe::get_as<std::chrono::seconds>(cfg, "tls.timeout");
  ASSERT_FALSE(secs);
  EXPECT_EQ(secs.error().context(), "tls.timeout: cannot read the std::chrono::milliseconds "
                                    "'1500ms' as std::chrono::seconds: expected a whole number "
                                    "of s");
  auto flag = troupe::get_as<bool>(cfg, "num-values");
  EXPECT_EQ(flag.error(), errc::malformed_value);
  EXPECT_TRUE(contains(flag.error().context(), "as bool: expected true or false"))
    << flag.error().context();
}

TEST(opt_group, get_as_fails_for_an_unknown_key_or_one_without_a_value) {
  caf_config cfg;
  ASSERT_FALSE(cfg.parse({"--tls.ciphers=a,b"}));
  auto x = troupe::get_as<std::string>(cfg, "tls.ca-fiel");
  EXPECT_EQ(x.error(), errc::unknown_key);
  EXPECT_EQ(x.error().context(), "unknown key 'tls.ca-fiel'; did you mean 'tls.ca-file'?");
  x = troupe::get_as<std::string>(cfg, "tls.ca-file");
  EXPECT_EQ(x.error(), errc::unknown_key);
  EXPECT_EQ(x.error().context(), "no value for 'tls.ca-file': not given on the command line, "
                                 "in the config file or with set()");
  // A list is no string, nor the other way round.
  x = troupe::get_as<std::string>(cfg, "tls.ciphers");
  EXPECT_EQ(x.error(), errc::malformed_value);
  EXPECT_EQ(x.error().context(),
            "tls.ciphers: cannot read the std::vector<std::string> 'a,b' as std::string");
  EXPECT_EQ(value_of(troupe::get_as<std::vector<std::string>>(cfg, "tls.ciphers")),
            (std::vector<std::string>{"a", "b"}));
  ASSERT_FALSE(cfg.set("tls.ca-file", "set.pem"));
  EXPECT_EQ(value_of(troupe::get_as<std::string>(cfg, "tls.ca-file")), "set.pem");
}

TEST(opt_group, get_or_reads_the_troupe_keys_given) {
  actor_system_config cfg;
  ASSERT_FALSE(cfg.parse({"--troupe.scheduler.max-threads=3"}));
  EXPECT_EQ(troupe::get_or(cfg, "troupe.scheduler.max-threads", size_t{0}), 3u);
  EXPECT_EQ(troupe::get_or(cfg, "troupe.scheduler.policy", "none"), "none");
}

TEST(opt_group, a_bad_key_or_short_name_is_a_logic_error) {
  struct config : actor_system_config {
    void add(std::string_view group, std::string_view name) {
      opt_group{custom_options_, group}.add<int>(name, "");
    }
  } cfg;
  cfg.add("global", "port,p");
  EXPECT_THROW(cfg.add("global", "other,p"), std::logic_error); // -p is taken
  EXPECT_THROW(cfg.add("app", "other,p"), std::logic_error);
  EXPECT_THROW(cfg.add("global", "port"), std::logic_error);  // declared twice
  EXPECT_THROW(cfg.add("global", "num,h"), std::logic_error); // --help's
  EXPECT_THROW(cfg.add("global", "num,5"), std::logic_error); // -5 is a number
  EXPECT_THROW(cfg.add("global", "num,-"), std::logic_error);
  EXPECT_THROW(cfg.add("global", "num,nn"), std::logic_error);
  EXPECT_THROW(cfg.add("global", "num,"), std::logic_error);
  EXPECT_THROW(cfg.add("global", "help"), std::logic_error);
  EXPECT_THROW(cfg.add("global", "config-file"), std::logic_error);
  EXPECT_THROW(cfg.add("global", "troupe"), std::logic_error);
  EXPECT_THROW(cfg.add("troupe", "x"), std::logic_error);
  EXPECT_THROW(cfg.add("", "x"), std::logic_error);
  EXPECT_THROW(cfg.add("app", ""), std::logic_error);
  EXPECT_THROW(cfg.add("global", "x y"), std::logic_error);
  try {
    cfg.add("global", "other,p");
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& ex) {
    EXPECT_EQ(std::string{ex.what()},
              "troupe: opt_group{\"global\"}.add(\"other,p\"): -p belongs to --port already");
  }
  // A failed declaration leaves nothing behind.
  EXPECT_NO_THROW(cfg.add("global", "num,n"));
  EXPECT_NO_THROW(cfg.add("app.net", "rate,r"));
  ASSERT_FALSE(cfg.parse({"--app.net.rate=1", "-n2"}));
}

TEST(opt_group, the_helptext_shows_short_names_and_no_default_for_a_stored_option) {
  caf_config cfg;
  ASSERT_FALSE(cfg.parse({"--help"}));
  auto text = cfg.helptext();
  for (auto part : {"  -p, --port=<uint>  (default: 0)\n      set port\n",
                    "  -n, --num-values=<uint>\n      number of values\n",
                    "  -s, -S, --secure[=true|false]\n      use TLS\n",
                    "  --name=<string>\n      who to greet\n",
                    "  -c, --tls.ca-file=<string>\n      path to the CA file\n",
                    "  --tls.ciphers=<list>\n"})
    EXPECT_TRUE(contains(text, part)) << "missing: " << part << "\nin:\n" << text;
}

TEST(opt_group, add_option_and_opt_group_declare_the_same_options) {
  struct config : actor_system_config {
    config() {
      add_option("app.rate", &rate, "");
      opt_group{custom_options_, "app"}.add<int>("burst,b", "");
    }
    int rate = 0;
  } cfg;
  int rate = 0;
  EXPECT_THROW(cfg.add_option("app.burst", &rate, ""), std::logic_error);
  ASSERT_FALSE(cfg.parse({"--app.rate=5", "-b", "3"}));
  EXPECT_EQ(cfg.rate, 5);
  EXPECT_EQ(troupe::get_or(cfg, "app.rate", 0), 5);
  EXPECT_EQ(troupe::get_or(cfg, "app.burst", 0), 3);
}
