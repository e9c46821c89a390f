// The built-in options: every troupe.* key and the field it sets, whose
// path it is (troupe.scheduler.max-threads sets scheduler.max_threads).

#include "config.hpp"
#include "../scheduler/topology.hpp"

#include "troupe/actor_system_config.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <utility>

namespace troupe {

namespace {

using detail::config_kind;
using detail::config_option;

constexpr std::string_view scheduler_policies[] = {"work-stealing", "work-sharing", "locality"};

constexpr std::string_view log_level_names[] = {"quiet", "error", "warning",
                                                "info",  "debug", "trace"};

std::string join(std::span<const std::string_view> xs, std::string_view sep) {
  std::string result;
  for (auto x : xs) {
    if (!result.empty())
      result += sep;
    result += x;
  }
  return result;
}

/// An option whose value names one of an enum's values (from_string and
/// to_string know them); `expected` says which, for the error.
template <class Enum>
config_option make_enum_option(Enum* storage, std::string placeholder, std::string expected) {
  config_option opt;
  opt.kind = config_kind::string;
  opt.placeholder = std::move(placeholder);
  opt.default_text = std::string{to_string(*storage)};
  opt.assign = [storage, expected = std::move(expected)](std::span<const std::string> values,
                                                         bool store) -> std::string {
    auto x = *storage;
    if (!from_string(values.back(), x))
      return expected;
    if (store)
      *storage = x;
    return {};
  };
  return opt;
}

} // namespace

actor_system_config::actor_system_config() {
  config_option policy;
  policy.key = "troupe.scheduler.policy";
  policy.description = "work-stealing: a deque per worker, idle workers steal; "
                       "work-sharing: one queue for all workers; locality: work stealing "
                       "nearest first over the memory hierarchy";
  policy.kind = config_kind::string;
  policy.placeholder = '<' + join(scheduler_policies, "|") + '>';
  policy.default_text = scheduler.policy;
  policy.assign = [this](std::span<const std::string> values, bool store) -> std::string {
    const auto& str = values.back();
    if (std::find(std::begin(scheduler_policies), std::end(scheduler_policies), str)
        == std::end(scheduler_policies))
      return "one of " + join(scheduler_policies, ", ");
    if (store)
      scheduler.policy = str;
    return {};
  };
  add_builtin(std::move(policy));

  namespace ws = defaults::scheduler;
  auto max_threads = detail::make_config_option(&scheduler.max_threads, size_t{0},
                                                scheduler_config::max_threads_limit());
  max_threads.key = "troupe.scheduler.max-threads";
  {
    namespace d = defaults::scheduler;
    max_threads.description = "worker threads; 0 means one per hardware thread; at most "
                              + std::to_string(d::max_threads_per_hardware_thread)
                              + " per hardware thread, but at least "
                              + std::to_string(d::max_threads_floor) + " and never more than "
                              + std::to_string(d::max_threads_cap);
  }
  add_builtin(std::move(max_threads));

  auto max_throughput = detail::make_config_option(&scheduler.max_throughput);
  max_throughput.key = "troupe.scheduler.max-throughput";
  max_throughput.description
    = "messages an actor handles before it yields its worker, or 'infinite'";
  max_throughput.placeholder = "<uint|infinite>";
  if (scheduler.max_throughput == std::numeric_limits<size_t>::max())
    max_throughput.default_text = "infinite";
  max_throughput.range = "1 to infinite";
  max_throughput.assign = [this](std::span<const std::string> values,
                                 bool store) -> std::string {
    size_t n = 0;
    if (values.back() == "infinite")
      n = std::numeric_limits<size_t>::max();
    else if (!detail::parse_config_value(values.back(), n).empty() || n == 0)
      return "a positive integer or 'infinite'";
    if (store)
      scheduler.max_throughput = n;
    return {};
  };
  add_builtin(std::move(max_throughput));

  config_option topology;
  topology.key = "troupe.scheduler.topology";
  topology.description = "locality policy: an hwloc synthetic description of the memory "
                         "hierarchy, e.g. 'package:2 numa:2 core:4 pu:1' (empty: this "
                         "machine's, workers pinned to their cores)";
  topology.kind = config_kind::string;
  topology.placeholder = "<description>";
  topology.default_text = scheduler.topology;
  topology.assign = [this](std::span<const std::string> values, bool store) -> std::string {
    const auto& str = values.back();
    if (!str.empty()) { // This machine's is loaded when the scheduler starts.
      try {
        detail::topology::load(str);
      } catch (const std::invalid_argument& ex) {
        return std::string{"an hwloc synthetic description ("} + ex.what() + ")";
      }
    }
    if (store)
      scheduler.topology = str;
    return {};
  };
  add_builtin(std::move(topology));

  auto placement
    = make_enum_option(&scheduler.placement, "<local|affinity>", "one of local, affinity");
  placement.key = "troupe.scheduler.placement";
  placement.description = "locality policy: where an actor a message unblocks runs; local: "
                          "on the sender's worker (LAS/L); affinity: on the worker that ran "
                          "it last unless that one is parked (LAS/A)";
  add_builtin(std::move(placement));

  auto pin_workers = detail::make_config_option(&scheduler.pin_workers);
  pin_workers.key = "troupe.scheduler.pin-workers";
  pin_workers.description = "pin worker i to the i-th CPU the process may use";
  add_builtin(std::move(pin_workers));

  auto mode = make_enum_option(&scheduler.idle_mode, "<adaptive|event|polling>",
                               "one of adaptive, event, polling");
  mode.key = "troupe.scheduler.idle-mode";
  mode.description = "adaptive: spin, then park until woken; event: poll, then wait "
                     "on an event with a timeout; polling: poll with sleeps";
  add_builtin(std::move(mode));

  auto spin_attempts
    = detail::make_config_option(&scheduler.spin_attempts, size_t{0}, ws::max_spin_attempts);
  spin_attempts.key = "troupe.scheduler.spin-attempts";
  spin_attempts.description
    = "adaptive mode: rounds an idle worker looks for work before it parks";
  add_builtin(std::move(spin_attempts));

  auto idle_budget
    = detail::make_config_option(&scheduler.idle_budget, 0.0, ws::max_idle_budget);
  idle_budget.key = "troupe.scheduler.idle-budget";
  idle_budget.description = "adaptive mode: share of one core idle workers may spend "
                            "spinning where the next work is expected (0: none)";
  add_builtin(std::move(idle_budget));

  std::pair<const char*, polling_tier*> tiers[] = {{"aggressive", &scheduler.aggressive},
                                                   {"moderate", &scheduler.moderate},
                                                   {"relaxed", &scheduler.relaxed}};
  for (auto [name, tier] : tiers) {
    auto prefix = "troupe.scheduler." + std::string{name} + '.';
    auto modes = std::string{name} == "relaxed" ? "polling mode" : "event and polling modes";
    auto attempts
      = detail::make_config_option(&tier->poll_attempts, size_t{0}, ws::max_tier_count);
    attempts.key = prefix + "poll-attempts";
    attempts.description = std::string{modes} + ": looks at the own queues in the "
                           + name + " tier";
    add_builtin(std::move(attempts));
    auto interval
      = detail::make_config_option(&tier->steal_interval, size_t{0}, ws::max_tier_count);
    interval.key = prefix + "steal-interval";
    interval.description = std::string{modes} + ": one steal every this many looks (0: none)";
    add_builtin(std::move(interval));
    auto sleep = detail::make_config_option(&tier->sleep_duration,
                                            std::chrono::microseconds{0}, ws::max_idle_duration);
    sleep.key = prefix + "sleep-duration";
    sleep.description = std::string{modes} + ": the sleep after each look (0 for none)";
    add_builtin(std::move(sleep));
  }

  auto wait_timeout = detail::make_config_option(&scheduler.wait_timeout, ws::min_wait_timeout,
                                                 ws::max_idle_duration);
  wait_timeout.key = "troupe.scheduler.wait-timeout";
  wait_timeout.description = "event mode: the longest wait of an idle worker on its event";
  add_builtin(std::move(wait_timeout));

  namespace mb = defaults::mailbox;
  auto capacity = detail::make_config_option(&mailbox.capacity, size_t{0}, mb::max_capacity);
  capacity.key = "troupe.mailbox.capacity";
  capacity.description = "messages a mailbox holds before the overflow policy applies "
                         "(0: no bound)";
  add_builtin(std::move(capacity));

  auto overflow = make_enum_option(&mailbox.overflow, "<drop|mute>", "drop or mute");
  overflow.key = "troupe.mailbox.overflow";
  overflow.description = "what a message to a full mailbox gets: drop, or mute its sender";
  add_builtin(std::move(overflow));

  auto push_timeout = detail::make_config_option(&mailbox.push_timeout,
                                                 std::chrono::milliseconds{0}, mb::max_wait);
  push_timeout.key = "troupe.mailbox.push-timeout";
  push_timeout.description = "mute: how long a thread outside the scheduler waits for room";
  add_builtin(std::move(push_timeout));

  namespace st = defaults::stream;
  auto edge_capacity = detail::make_config_option(&stream.edge_capacity, st::min_edge_capacity,
                                                  st::max_edge_capacity);
  edge_capacity.key = "troupe.stream.edge-capacity";
  edge_capacity.description = "tuples each ring of a stream edge holds before its producer "
                              "waits";
  add_builtin(std::move(edge_capacity));

  auto execution
    = make_enum_option(&stream.execution, "<scheduled|threads>", "scheduled or threads");
  execution.key = "troupe.stream.execution";
  execution.description = "where stream nodes run: on the scheduler's workers, or one "
                          "thread per node replica";
  add_builtin(std::move(execution));

  auto grace = detail::make_config_option(&shutdown.grace_period,
                                          std::chrono::milliseconds{0}, mb::max_wait);
  grace.key = "troupe.shutdown.grace-period";
  grace.description = "how long the system's destructor waits for a message from outside "
                      "once nothing inside can make an actor run, before it stops them";
  add_builtin(std::move(grace));

  auto report = detail::make_config_option(&shutdown.report_interval,
                                           defaults::shutdown::min_report_interval,
                                           mb::max_wait);
  report.key = "troupe.shutdown.report-interval";
  report.description = "how often the system's destructor says what it still waits for";
  add_builtin(std::move(report));

  namespace nd = defaults::net;
  auto listen_address = detail::make_config_option(&net.listen_address);
  listen_address.key = "troupe.net.listen-address";
  listen_address.description = "where publish and open listen when not told (any address but "
                               "loopback needs TLS or troupe.net.insecure)";
  add_builtin(std::move(listen_address));

  auto heartbeat_interval
    = detail::make_config_option(&net.heartbeat_interval, nd::min_interval, nd::max_interval);
  heartbeat_interval.key = "troupe.net.heartbeat-interval";
  heartbeat_interval.description = "how often a quiet connection tells its peer it is alive";
  add_builtin(std::move(heartbeat_interval));

  auto heartbeat_timeout
    = detail::make_config_option(&net.heartbeat_timeout, nd::min_interval, nd::max_interval);
  heartbeat_timeout.key = "troupe.net.heartbeat-timeout";
  heartbeat_timeout.description = "how long a peer may stay silent before its node counts "
                                  "as lost (at least twice the heartbeat interval)";
  add_builtin(std::move(heartbeat_timeout));

  auto handshake_timeout
    = detail::make_config_option(&net.handshake_timeout, nd::min_interval, nd::max_interval);
  handshake_timeout.key = "troupe.net.handshake-timeout";
  handshake_timeout.description = "how long connecting and the handshake with a peer may take";
  add_builtin(std::move(handshake_timeout));

  auto max_message_size = detail::make_config_option(&net.max_message_size,
                                                     nd::min_message_size,
                                                     nd::max_max_message_size);
  max_message_size.key = "troupe.net.max-message-size";
  max_message_size.description = "bytes of the largest frame a peer may send; a larger one "
                                 "closes its connection";
  add_builtin(std::move(max_message_size));

  auto send_buffer = detail::make_config_option(&net.send_buffer, nd::min_send_buffer,
                                                nd::max_send_buffer);
  send_buffer.key = "troupe.net.send-buffer";
  send_buffer.description = "bytes a connection holds for its peer before the actors "
                            "sending to it are muted (until half are out)";
  add_builtin(std::move(send_buffer));

  auto tls_file = [this](std::string* storage, const char* key, const char* description) {
    auto opt = detail::make_config_option(storage);
    opt.key = key;
    opt.description = description;
    add_builtin(std::move(opt));
  };
  tls_file(&net.tls.certificate, "troupe.net.tls.certificate",
           "PEM file of this node's certificate chain; with private-key and ca, every "
           "connection is mutual TLS");
  tls_file(&net.tls.private_key, "troupe.net.tls.private-key",
           "PEM file of this node's private key");
  tls_file(&net.tls.ca, "troupe.net.tls.ca",
           "PEM file of the CA that signs the certificates of peers");

  auto insecure = detail::make_config_option(&net.insecure);
  insecure.key = "troupe.net.insecure";
  insecure.description = "listen beyond loopback, and connect off it, without TLS (logs a "
                         "warning at start)";
  add_builtin(std::move(insecure));

  auto inline_receivers = detail::make_config_option(&net.inline_receivers);
  inline_receivers.key = "troupe.net.inline-receivers";
  inline_receivers.description = "the I/O thread runs an actor a network message wakes itself, "
                                 "a thread handoff less per message";
  add_builtin(std::move(inline_receivers));

  auto inline_limit
    = detail::make_config_option(&net.inline_limit, nd::min_interval, nd::max_interval);
  inline_limit.key = "troupe.net.inline-limit";
  inline_limit.description = "how long an actor may run on the I/O thread before a second "
                             "I/O thread takes the connections over";
  add_builtin(std::move(inline_limit));

  auto verbosity = make_enum_option(&logger.verbosity, '<' + join(log_level_names, "|") + '>',
                                    "one of " + join(log_level_names, ", "));
  verbosity.key = "troupe.logger.verbosity";
  verbosity.description = "the least severe messages the logger prints";
  add_builtin(std::move(verbosity));
}

namespace detail {

std::string_view renamed_builtin_key(std::string_view old_key) {
  // Keys that were no field's path, before a key became one.
  static constexpr std::pair<std::string_view, std::string_view> renamed[] = {
    {"troupe.locality.placement", "troupe.scheduler.placement"},
    {"troupe.work-stealing.idle-mode", "troupe.scheduler.idle-mode"},
    {"troupe.work-stealing.spin-attempts", "troupe.scheduler.spin-attempts"},
    {"troupe.work-stealing.idle-budget", "troupe.scheduler.idle-budget"},
    {"troupe.work-stealing.aggressive-poll-attempts", "troupe.scheduler.aggressive.poll-attempts"},
    {"troupe.work-stealing.aggressive-steal-interval",
     "troupe.scheduler.aggressive.steal-interval"},
    {"troupe.work-stealing.aggressive-sleep-duration",
     "troupe.scheduler.aggressive.sleep-duration"},
    {"troupe.work-stealing.moderate-poll-attempts", "troupe.scheduler.moderate.poll-attempts"},
    {"troupe.work-stealing.moderate-steal-interval", "troupe.scheduler.moderate.steal-interval"},
    {"troupe.work-stealing.moderate-sleep-duration", "troupe.scheduler.moderate.sleep-duration"},
    {"troupe.work-stealing.relaxed-poll-attempts", "troupe.scheduler.relaxed.poll-attempts"},
    {"troupe.work-stealing.relaxed-steal-interval", "troupe.scheduler.relaxed.steal-interval"},
    {"troupe.work-stealing.relaxed-sleep-duration", "troupe.scheduler.relaxed.sleep-duration"},
    {"troupe.work-stealing.wait-timeout", "troupe.scheduler.wait-timeout"},
  };
  for (auto [old, now] : renamed)
    if (old == old_key)
      return now;
  return {};
}

} // namespace detail

} // namespace troupe
