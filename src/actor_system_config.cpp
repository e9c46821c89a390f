#include "troupe/actor_system_config.hpp"

#include "scheduler/topology.hpp"

#include "troupe/opt_group.hpp"

#include <CLI/CLI.hpp>
#include <toml++/toml.h>

#include <algorithm>
#include <limits>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace troupe {

// -- value parsers -------------------------------------------------------------

namespace detail {

std::string parse_config_bool(std::string_view str, bool& out) {
  if (str == "true")
    out = true;
  else if (str == "false")
    out = false;
  else
    return "true or false";
  return {};
}

std::string parse_config_int(std::string_view str, long long min, long long max,
                             long long& out) {
  auto range = [&] {
    return "an integer between " + std::to_string(min) + " and " + std::to_string(max);
  };
  long long tmp = 0;
  auto [ptr, ec] = std::from_chars(str.data(), str.data() + str.size(), tmp);
  if (ec == std::errc::result_out_of_range && ptr == str.data() + str.size())
    return range();
  if (ec != std::errc{} || ptr != str.data() + str.size() || str.empty())
    return "an integer";
  if (tmp < min || tmp > max)
    return range();
  out = tmp;
  return {};
}

std::string parse_config_uint(std::string_view str, unsigned long long max,
                              unsigned long long& out) {
  auto range = [&] {
    return "an unsigned integer no greater than " + std::to_string(max);
  };
  unsigned long long tmp = 0;
  auto [ptr, ec] = std::from_chars(str.data(), str.data() + str.size(), tmp);
  if (ec == std::errc::result_out_of_range && ptr == str.data() + str.size())
    return range();
  if (ec != std::errc{} || ptr != str.data() + str.size() || str.empty())
    return "an unsigned integer";
  if (tmp > max)
    return range();
  out = tmp;
  return {};
}

namespace {

template <class T>
std::string parse_float(std::string_view str, T& out) {
  T tmp = 0;
  auto [ptr, ec] = std::from_chars(str.data(), str.data() + str.size(), tmp);
  if (ec != std::errc{} || ptr != str.data() + str.size() || str.empty())
    return "a number";
  out = tmp;
  return {};
}

} // namespace

std::string parse_config_float(std::string_view str, float& out) {
  return parse_float(str, out);
}

std::string parse_config_float(std::string_view str, double& out) {
  return parse_float(str, out);
}

std::string parse_config_float(std::string_view str, long double& out) {
  return parse_float(str, out);
}

std::string parse_config_duration(std::string_view str, std::chrono::nanoseconds& out) {
  static constexpr const char* expected
    = "a duration such as 10ms (units: ns, us, ms, s, min, h)";
  struct unit {
    std::string_view suffix;
    int64_t ns;
  };
  static constexpr unit units[] = {
    {"ns", 1},
    {"us", 1'000},
    {"ms", 1'000'000},
    {"min", 60'000'000'000},
    {"s", 1'000'000'000},
    {"h", 3'600'000'000'000},
  };
  // Digits, an optional fraction, then the unit; the result must be a whole
  // number of nanoseconds that fits in 64 bits.
  std::string_view rest = str;
  bool negative = !rest.empty() && rest.front() == '-';
  if (negative)
    rest.remove_prefix(1);
  auto digits = [&rest] {
    auto n = std::min(rest.find_first_not_of("0123456789"), rest.size());
    auto result = rest.substr(0, n);
    rest.remove_prefix(n);
    return result;
  };
  auto whole = digits();
  std::string_view fraction;
  if (!rest.empty() && rest.front() == '.') {
    rest.remove_prefix(1);
    fraction = digits();
    if (fraction.empty())
      return expected;
  }
  if (whole.empty())
    return expected;
  auto u = std::find_if(std::begin(units), std::end(units),
                        [&rest](const unit& x) { return x.suffix == rest; });
  if (u == std::end(units))
    return expected;
  int64_t count = 0;
  auto [ptr, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), count);
  int64_t result = 0;
  if (ec != std::errc{} || __builtin_mul_overflow(count, u->ns, &result))
    return "a duration shorter than 292 years";
  // The fraction in nanoseconds: fraction * unit / 10^digits, exactly.
  int64_t frac_ns = 0;
  int64_t scale = 1;
  for (char c : fraction) {
    if (__builtin_mul_overflow(scale, 10, &scale)
        || __builtin_mul_overflow(frac_ns, 10, &frac_ns))
      return "a duration with at most 18 decimals";
    frac_ns += c - '0';
  }
  if (!fraction.empty()) {
    __int128 scaled = static_cast<__int128>(frac_ns) * u->ns;
    if (scaled % scale != 0)
      return "a duration that is a whole number of nanoseconds";
    if (__builtin_add_overflow(result, static_cast<int64_t>(scaled / scale), &result))
      return "a duration shorter than 292 years";
  }
  out = std::chrono::nanoseconds{negative ? -result : result};
  return {};
}

} // namespace detail

// -- internals -----------------------------------------------------------------

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

// Letters, digits, '-' and '_' between dots; at least `min_parts` parts,
// each starting with a letter or digit, the first with a letter.
bool is_dotted_name(std::string_view key, size_t min_parts) {
  if (key.empty() || !std::isalpha(static_cast<unsigned char>(key.front())))
    return false;
  size_t parts = 0;
  while (true) {
    auto part = key.substr(0, key.find('.'));
    if (part.empty() || !std::isalnum(static_cast<unsigned char>(part.front())))
      return false;
    for (char c : part)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
        return false;
    ++parts;
    if (part.size() == key.size())
      return parts >= min_parts;
    key.remove_prefix(part.size() + 1);
  }
}

// Optimal string alignment distance: Levenshtein plus swaps of neighbours,
// the most common typo in a key.
size_t edit_distance(std::string_view x, std::string_view y) {
  std::vector<std::vector<size_t>> d(x.size() + 1, std::vector<size_t>(y.size() + 1));
  for (size_t i = 0; i <= x.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= y.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= x.size(); ++i) {
    for (size_t j = 1; j <= y.size(); ++j) {
      size_t cost = x[i - 1] == y[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[x.size()][y.size()];
}

// "; did you mean 'x'?" for the nearest declared key (or `extra` name) at
// distance 2 or less.
std::string suggestion(std::string_view key, const std::vector<config_option>& options,
                       std::initializer_list<std::string_view> extra = {}) {
  std::string_view best;
  size_t best_distance = 3;
  auto consider = [&](std::string_view candidate) {
    auto dist = edit_distance(key, candidate);
    if (dist < best_distance) {
      best = candidate;
      best_distance = dist;
    }
  };
  for (const auto& opt : options)
    consider(opt.key);
  for (auto name : extra)
    consider(name);
  if (best.empty())
    return {};
  return "; did you mean '" + std::string{best} + "'?";
}

error malformed(std::string_view where, std::string_view key, std::string_view what,
                std::string_view got) {
  std::string msg{where};
  msg += key;
  msg += ": expected ";
  msg += what;
  msg += ", got ";
  msg += got;
  return make_error(errc::malformed_value, std::move(msg));
}

std::string single_quoted(std::string_view str) {
  std::string result = "'";
  result += str;
  result += '\'';
  return result;
}

// Splits a command-line list; an empty string is an empty list.
void split_list(std::string_view str, std::vector<std::string>& out) {
  if (str.empty())
    return;
  while (true) {
    auto pos = str.find(',');
    out.emplace_back(str.substr(0, pos));
    if (pos == std::string_view::npos)
      return;
    str.remove_prefix(pos + 1);
  }
}

// CLI11 reads "--key=" as "--key" and takes the next argument for the
// value. A NUL, which no argv string holds, stands for the empty value on
// its way through CLI11.
constexpr char empty_value_mark = '\0';

std::string unmark_empty(const std::string& value) {
  return value == std::string_view{&empty_value_mark, 1} ? std::string{} : value;
}

// A value waiting to be stored once every value has been checked.
struct pending_value {
  config_option* opt;
  std::vector<std::string> values;
};

std::string location(const std::string& path, const toml::source_position& pos) {
  return path + ':' + std::to_string(pos.line) + ':' + std::to_string(pos.column) + ": ";
}

std::string toml_type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// The TOML value as it reads in the file, after its type: a string "four".
std::string describe_toml(const toml::node& node) {
  std::ostringstream out;
  out << toml_type_name(node.type());
  if (!node.is_table() && !node.is_array()) {
    out << ' ';
    node.visit([&out](const auto& x) { out << x; });
  }
  return out.str();
}

std::string number_text(double x) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  return std::string(buf, res.ptr);
}

// Turns a TOML value into the strings a command line would give for `opt`,
// or returns false if its TOML type does not fit.
bool toml_to_values(const config_option& opt, const toml::node& node,
                    std::vector<std::string>& out) {
  switch (opt.kind) {
    case config_kind::boolean:
      if (auto x = node.as_boolean()) {
        out.emplace_back(x->get() ? "true" : "false");
        return true;
      }
      return false;
    case config_kind::integer:
      if (auto x = node.as_integer()) {
        out.emplace_back(std::to_string(x->get()));
        return true;
      }
      return false;
    case config_kind::number:
      if (auto x = node.as_integer()) {
        out.emplace_back(std::to_string(x->get()));
        return true;
      }
      if (auto x = node.as_floating_point()) {
        out.emplace_back(number_text(x->get()));
        return true;
      }
      return false;
    case config_kind::string:
    case config_kind::duration:
      if (auto x = node.as_string()) {
        out.emplace_back(x->get());
        return true;
      }
      return false;
    case config_kind::string_list:
      if (auto arr = node.as_array()) {
        for (const auto& elem : *arr) {
          auto str = elem.as_string();
          if (!str)
            return false;
          out.emplace_back(str->get());
        }
        return true;
      }
      return false;
  }
  return false;
}

// What `opt` takes, in the words of its own parser where it has some: the
// empty string is malformed for every kind but strings and lists.
std::string expected_toml(const config_option& opt) {
  std::string empty[] = {std::string{}};
  if (auto what = opt.assign(empty, false); !what.empty())
    return what;
  return opt.kind == config_kind::string_list ? "an array of strings" : "a string";
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

// -- actor_system_config -------------------------------------------------------

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

  namespace ws = defaults::work_stealing;
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
  placement.key = "troupe.locality.placement";
  placement.description = "locality policy: where an actor a message unblocks runs; local: "
                          "on the sender's worker (LAS/L); affinity: on the worker that ran "
                          "it last unless that one is parked (LAS/A)";
  add_builtin(std::move(placement));

  auto pin_workers = detail::make_config_option(&scheduler.pin_workers);
  pin_workers.key = "troupe.scheduler.pin-workers";
  pin_workers.description = "pin worker i to the i-th CPU the process may use";
  add_builtin(std::move(pin_workers));

  auto mode = make_enum_option(&scheduler.idle, "<adaptive|event|polling>",
                               "one of adaptive, event, polling");
  mode.key = "troupe.work-stealing.idle-mode";
  mode.description = "adaptive: spin, then park until woken; event: poll, then wait "
                     "on an event with a timeout; polling: poll with sleeps";
  add_builtin(std::move(mode));

  auto spin_attempts
    = detail::make_config_option(&scheduler.spin_attempts, size_t{0}, ws::max_spin_attempts);
  spin_attempts.key = "troupe.work-stealing.spin-attempts";
  spin_attempts.description
    = "adaptive mode: rounds an idle worker looks for work before it parks";
  add_builtin(std::move(spin_attempts));

  auto idle_budget
    = detail::make_config_option(&scheduler.idle_budget, 0.0, ws::max_idle_budget);
  idle_budget.key = "troupe.work-stealing.idle-budget";
  idle_budget.description = "adaptive mode: share of one core idle workers may spend "
                            "spinning where the next work is expected (0: none)";
  add_builtin(std::move(idle_budget));

  std::pair<const char*, polling_tier*> tiers[] = {{"aggressive", &scheduler.aggressive},
                                                   {"moderate", &scheduler.moderate},
                                                   {"relaxed", &scheduler.relaxed}};
  for (auto [name, tier] : tiers) {
    auto prefix = std::string{"troupe.work-stealing."} + name;
    auto modes = std::string{name} == "relaxed" ? "polling mode" : "event and polling modes";
    auto attempts
      = detail::make_config_option(&tier->poll_attempts, size_t{0}, ws::max_tier_count);
    attempts.key = prefix + "-poll-attempts";
    attempts.description = std::string{modes} + ": looks at the own queues in the "
                           + name + " tier";
    add_builtin(std::move(attempts));
    auto interval
      = detail::make_config_option(&tier->steal_interval, size_t{0}, ws::max_tier_count);
    interval.key = prefix + "-steal-interval";
    interval.description = std::string{modes} + ": one steal every this many looks (0: none)";
    add_builtin(std::move(interval));
    auto sleep = detail::make_config_option(&tier->sleep_duration,
                                            std::chrono::microseconds{0}, ws::max_idle_duration);
    sleep.key = prefix + "-sleep-duration";
    sleep.description = std::string{modes} + ": the sleep after each look (0 for none)";
    add_builtin(std::move(sleep));
  }

  auto wait_timeout = detail::make_config_option(&scheduler.wait_timeout, ws::min_wait_timeout,
                                                 ws::max_idle_duration);
  wait_timeout.key = "troupe.work-stealing.wait-timeout";
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

  auto grace = detail::make_config_option(&shutdown_grace_period,
                                          std::chrono::milliseconds{0}, mb::max_wait);
  grace.key = "troupe.shutdown.grace-period";
  grace.description = "how long the system's destructor waits for a message from outside "
                      "once nothing inside can make an actor run, before it stops them";
  add_builtin(std::move(grace));

  auto report = detail::make_config_option(&shutdown_report_interval,
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

  auto verbosity = make_enum_option(&logger_verbosity, '<' + join(log_level_names, "|") + '>',
                                    "one of " + join(log_level_names, ", "));
  verbosity.key = "troupe.logger.verbosity";
  verbosity.description = "the least severe messages the logger prints";
  add_builtin(std::move(verbosity));
}

actor_system_config::~actor_system_config() = default;

void actor_system_config::add_actor_factory(std::string name, actor_factory make) {
  actor_factories_[std::move(name)] = std::move(make);
}

const actor_system_config::actor_factory*
actor_system_config::find_actor_factory(std::string_view name) const {
  auto i = actor_factories_.find(name);
  return i != actor_factories_.end() ? &i->second : nullptr;
}

void actor_system_config::add_module(std::string_view name, module_factory make) {
  for (auto& [known, fn] : modules_)
    if (known == name)
      return;
  modules_.emplace_back(name, make);
}

void actor_system_config::add_option_impl(config_option opt, bool null_storage) {
  auto caller = "add_option(\"" + opt.key + "\")";
  if (null_storage)
    throw std::logic_error("troupe: " + caller + ": storage is null");
  declare(std::move(opt), caller, false);
}

void actor_system_config::declare(config_option opt, const std::string& caller,
                                  bool plain_key) {
  auto fail = [&caller](std::string_view why) {
    throw std::logic_error("troupe: " + caller + ": " + std::string{why});
  };
  if (!is_dotted_name(opt.key, plain_key ? 1 : 2)) {
    if (plain_key)
      fail("a key is a name such as port or a dotted name such as app.rate, made of "
           "letters, digits, '-' and '_'");
    fail("a key is a dotted name such as app.rate, made of letters, digits, '-' and '_'");
  }
  // A key "troupe" would also take the [troupe] table of a config file.
  if (opt.key == "troupe" || opt.key.starts_with("troupe."))
    fail("keys starting with troupe. belong to Troupe");
  if (opt.key == "help" || opt.key == "config-file")
    fail("--" + opt.key + " belongs to Troupe");
  if (find_option(opt.key) != nullptr)
    fail("key declared twice");
  for (size_t i = 0; i < opt.short_names.size(); ++i) {
    char c = opt.short_names[i];
    std::string flag{'-', c};
    // A digit would make -5 an option where it is a negative number.
    if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z'))
      fail("a short name is a letter, such as p for -p, not " + single_quoted(flag));
    if (c == 'h')
      fail("-h belongs to --help");
    if (opt.short_names.find(c) != i)
      fail(flag + " given twice");
    if (auto other = find_short_option(c))
      fail(flag + " belongs to --" + other->key + " already");
  }
  options_.push_back(std::move(opt));
}

void actor_system_config::add_builtin(config_option opt) {
  options_.push_back(std::move(opt));
}

const config_option* actor_system_config::find_option(std::string_view key) const noexcept {
  auto i = std::find_if(options_.begin(), options_.end(),
                        [key](const config_option& x) { return x.key == key; });
  return i != options_.end() ? &*i : nullptr;
}

config_option* actor_system_config::find_option(std::string_view key) noexcept {
  return const_cast<config_option*>(std::as_const(*this).find_option(key));
}

const config_option* actor_system_config::find_short_option(char name) const noexcept {
  auto i = std::find_if(options_.begin(), options_.end(), [name](const config_option& x) {
    return x.short_names.find(name) != std::string::npos;
  });
  return i != options_.end() ? &*i : nullptr;
}

error actor_system_config::read_given(
  std::string_view key, std::string_view type_name, bool list,
  const std::function<std::string(std::span<const std::string>)>& read) const {
  auto opt = find_option(key);
  if (opt == nullptr)
    return make_error(errc::unknown_key,
                      "unknown key " + single_quoted(key) + suggestion(key, options_));
  if (!opt->is_given)
    return make_error(errc::unknown_key, "no value for " + single_quoted(key)
                                           + ": not given on the command line, in the "
                                             "config file or with set()");
  std::string text;
  for (const auto& x : opt->given) {
    if (!text.empty())
      text += ',';
    text += x;
  }
  auto cannot = [&](std::string_view why) {
    std::string msg{key};
    msg += ": cannot read the ";
    msg += opt->type_name;
    msg += ' ';
    msg += single_quoted(text);
    msg += " as ";
    msg += type_name;
    msg += why;
    return make_error(errc::malformed_value, std::move(msg));
  };
  // A list is no scalar, even one with a single element, and the other way
  // round.
  if (list != (opt->kind == config_kind::string_list))
    return cannot("");
  if (auto what = read(opt->given); !what.empty())
    return cannot(": expected " + what);
  return {};
}

error actor_system_config::set(std::string_view key, std::string_view value) {
  auto opt = find_option(key);
  if (opt == nullptr) {
    return make_error(errc::unknown_key,
                      "unknown key " + single_quoted(key) + suggestion(key, options_));
  }
  std::vector<std::string> values;
  if (opt->kind == config_kind::string_list)
    split_list(value, values);
  else
    values.emplace_back(value);
  if (auto what = opt->assign(values, true); !what.empty())
    return malformed("", key, what, single_quoted(value));
  opt->given = std::move(values);
  opt->is_given = true;
  return {};
}

error actor_system_config::parse(int argc, const char* const* argv) {
  std::vector<std::string> args;
  if (argc > 0 && argv != nullptr && argv[0] != nullptr) {
    std::string_view name{argv[0]};
    program_name_ = name.substr(std::min(name.rfind('/') + 1, name.size()));
    for (int i = 1; i < argc; ++i)
      args.emplace_back(argv[i]);
  }
  return parse_impl(std::move(args));
}

error actor_system_config::parse(std::vector<std::string> args) {
  return parse_impl(std::move(args));
}

error actor_system_config::parse_impl(std::vector<std::string> args) {
  helptext_requested_ = false;
  // CLI11 would read "--key" after a bare "--" as positional too, but then
  // its extras no longer tell which arguments followed the "--".
  std::vector<std::string> after_separator;
  if (auto i = std::find(args.begin(), args.end(), "--"); i != args.end()) {
    after_separator.assign(std::make_move_iterator(i + 1), std::make_move_iterator(args.end()));
    args.erase(i, args.end());
  }
  // Short names as CAF reads them: -p 8080 and -p8080 give a value (the
  // next argument whatever it looks like, so -n -5 works), -s alone sets a
  // boolean. They become --key=value here, keeping their place among the
  // long forms, whose last occurrence wins. An error waits until CLI11 has
  // looked for --help, which wins over everything. An empty value given
  // explicitly (--key= or -p "") gets empty_value_mark.
  error short_error;
  {
    std::vector<std::string> expanded;
    for (size_t i = 0; i < args.size(); ++i) {
      auto& arg = args[i];
      const config_option* opt = nullptr;
      if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-')
        opt = find_short_option(arg[1]);
      if (opt == nullptr) {
        if (arg.starts_with("--") && arg.find('=') == arg.size() - 1)
          arg += empty_value_mark;
        expanded.push_back(std::move(arg));
      } else if (opt->kind == config_kind::boolean) {
        if (arg.size() == 2)
          expanded.push_back("--" + opt->key);
        else if (!short_error)
          short_error = malformed("", opt->key,
                                  arg.substr(0, 2) + " alone (or --" + opt->key
                                    + "=true|false)",
                                  single_quoted(arg));
      } else if (arg.size() > 2) {
        expanded.push_back("--" + opt->key + '=' + arg.substr(2));
      } else if (i + 1 < args.size()) {
        auto& value = args[++i];
        if (value.empty())
          value += empty_value_mark;
        expanded.push_back("--" + opt->key + '=' + value);
      } else {
        // No value: reported as for --key at the end.
        expanded.push_back("--" + opt->key);
      }
    }
    args = std::move(expanded);
  }
  // Every option takes zero or one value, so "--key --other" never swallows
  // "--other", and CLI11 keeps each occurrence for us to check.
  CLI::App app;
  CLI::Option* help = nullptr;
  CLI::Option* config_file = nullptr;
  std::vector<std::pair<config_option*, CLI::Option*>> cli_options;
  try {
    app.allow_extras();
    app.set_help_flag();
    help = app.add_flag("-h,--help");
    config_file = app.add_option("--config-file")
                    ->expected(0, 1)
                    ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
    for (auto& opt : options_) {
      CLI::Option* cli_opt = nullptr;
      if (opt.kind == config_kind::boolean)
        cli_opt = app.add_flag("--" + opt.key + "{true}");
      else
        cli_opt = app.add_option("--" + opt.key)->expected(0, 1);
      cli_opt->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
      cli_options.emplace_back(&opt, cli_opt);
    }
    std::reverse(args.begin(), args.end()); // CLI11 takes them back to front
    app.parse(args);
  } catch (const CLI::Error& ex) {
    return make_error(errc::parse_error, std::string{"command line: "} + ex.what());
  }
  if (help->count() > 0) {
    helptext_requested_ = true;
    return {};
  }
  if (short_error)
    return short_error;
  // Unknown keys and positional arguments.
  std::vector<std::string> remainder;
  for (auto& arg : app.remaining()) {
    if (!arg.starts_with("-") || arg == "-") {
      remainder.push_back(std::move(arg));
      continue;
    }
    // Taking "-x" as positional would hide a mistyped option, like an
    // unknown key.
    if (!arg.starts_with("--")) {
      auto name = std::string_view{arg}.substr(1);
      auto hint = suggestion(name.substr(0, name.find('=')), options_, {"help", "config-file"});
      if (hint.empty()) {
        std::string shorts;
        for (const auto& opt : options_) {
          for (char c : opt.short_names) {
            shorts += shorts.empty() ? " (" : ", ";
            shorts += '-';
            shorts += c;
          }
        }
        if (!shorts.empty())
          shorts = " or by a short name" + shorts + ')';
        hint = "; options are written --key=value" + shorts
               + ", and arguments after a bare -- are positional";
      }
      return make_error(errc::unknown_key,
                        "unknown option " + single_quoted(arg) + " on the command line" + hint);
    }
    auto key = std::string_view{arg}.substr(2);
    key = key.substr(0, key.find('='));
    return make_error(errc::unknown_key,
                      "unknown key " + single_quoted(key) + " on the command line"
                        + suggestion(key, options_, {"help", "config-file"}));
  }
  remainder.insert(remainder.end(), std::make_move_iterator(after_separator.begin()),
                   std::make_move_iterator(after_separator.end()));
  std::vector<pending_value> pending;
  // The file first, so that the command line's values overwrite it.
  if (config_file->count() > 0) {
    auto path = unmark_empty(config_file->results().back());
    if (path.empty())
      return malformed("", "config-file", "a path", "''");
    std::ifstream in{path, std::ios::binary};
    if (!in)
      return make_error(errc::parse_error, "cannot open config file " + single_quoted(path)
                                             + ": " + std::strerror(errno));
    std::string content{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
    if (in.bad())
      return make_error(errc::parse_error, "cannot read config file " + single_quoted(path));
    toml::table root;
    try {
      root = toml::parse(content, path);
    } catch (const toml::parse_error& ex) {
      return make_error(errc::parse_error,
                        location(path, ex.source().begin) + std::string{ex.description()});
    }
    auto has_options_below = [this](const std::string& key) {
      return std::any_of(options_.begin(), options_.end(), [&key](const config_option& x) {
        return x.key.size() > key.size() && x.key.starts_with(key) && x.key[key.size()] == '.';
      });
    };
    // Walks the tables depth first; a key names an option or a table.
    auto walk = [&](auto& self, const toml::table& tbl, const std::string& prefix) -> error {
      for (const auto& [k, node] : tbl) {
        auto key = prefix + std::string{k.str()};
        auto opt = find_option(key);
        auto sub = node.as_table();
        // A table whose name is also a key ("tls" and "tls.ca-file") holds
        // the options below it; no option takes a table.
        if (sub != nullptr && has_options_below(key))
          opt = nullptr;
        if (opt != nullptr) {
          std::vector<std::string> values;
          if (!toml_to_values(*opt, node, values))
            return malformed(location(path, node.source().begin), key, expected_toml(*opt),
                             describe_toml(node));
          if (auto what = opt->assign(values, false); !what.empty())
            return malformed(location(path, node.source().begin), key, what,
                             single_quoted(values.back()));
          pending.push_back(pending_value{opt, std::move(values)});
        } else if (sub != nullptr) {
          if (auto err = self(self, *sub, key + '.'))
            return err;
        } else {
          return make_error(errc::unknown_key,
                            location(path, k.source().begin) + "unknown key "
                              + single_quoted(key) + " in " + path
                              + suggestion(key, options_));
        }
      }
      return {};
    };
    if (auto err = walk(walk, root, ""))
      return err;
  }
  for (auto [opt, cli_opt] : cli_options) {
    if (cli_opt->count() == 0)
      continue;
    const auto& results = cli_opt->results();
    std::vector<std::string> values;
    if (opt->kind == config_kind::string_list) {
      for (const auto& x : results)
        split_list(unmark_empty(x), values);
    } else {
      // The last occurrence wins, as in most command-line programs.
      values.push_back(results.empty() ? std::string{} : unmark_empty(results.back()));
      if (auto what = opt->assign(values, false); !what.empty())
        return malformed("", opt->key, what, single_quoted(values.back()));
    }
    pending.push_back(pending_value{opt, std::move(values)});
  }
  // Everything is valid: store it.
  for (auto& x : pending) {
    x.opt->assign(x.values, true);
    x.opt->given = std::move(x.values);
    x.opt->is_given = true;
  }
  remainder_ = std::move(remainder);
  return {};
}

std::string actor_system_config::helptext() const {
  std::string out = "Usage: ";
  out += program_name_.empty() ? std::string{"program"} : program_name_;
  out += " [options] [--] [arguments]\n\nOptions:\n";
  auto entry = [&out](std::string_view head, std::string_view default_text,
                      std::string_view range, std::string_view description) {
    out += "  ";
    out += head;
    if (!default_text.empty()) {
      out += "  (default: ";
      out += default_text;
      if (!range.empty()) {
        out += ", range: ";
        out += range;
      }
      out += ')';
    }
    out += '\n';
    // Descriptions wrap at 80 columns, indented under their option.
    std::string_view rest = description;
    while (!rest.empty()) {
      auto n = rest.size() <= 74 ? rest.size() : rest.rfind(' ', 74);
      if (n == std::string_view::npos || n == 0)
        n = std::min(rest.find(' '), rest.size());
      out += "      ";
      out += rest.substr(0, n);
      out += '\n';
      rest.remove_prefix(std::min(n + 1, rest.size()));
    }
  };
  entry("-h, --help", "", "", "print this text");
  entry("--config-file=<path>", "", "",
        "read options from a TOML file whose tables spell the keys ([troupe.scheduler] "
        "max-threads = 4); the command line wins over it");
  for (const auto& opt : options_) {
    std::string head;
    for (char c : opt.short_names) {
      head += '-';
      head += c;
      head += ", ";
    }
    head += "--" + opt.key;
    std::string default_text = opt.default_text;
    if (opt.kind == config_kind::boolean) {
      head += "[=true|false]";
    } else {
      head += '=';
      head += opt.placeholder;
    }
    if (!opt.has_default)
      default_text.clear();
    else if (default_text.empty())
      default_text = opt.kind == config_kind::string_list ? "empty" : "\"\"";
    entry(head, default_text, opt.range, opt.description);
  }
  return out;
}

// -- opt_group -----------------------------------------------------------------

// Here rather than in a source file of its own: it is a front-end to
// declare() above.
void opt_group::add_impl(detail::config_option opt, std::string_view name,
                         std::string_view description) {
  auto caller = "opt_group{\"" + category_ + "\"}.add(\"" + std::string{name} + "\")";
  auto comma = name.find(',');
  if (comma != std::string_view::npos) {
    opt.short_names = name.substr(comma + 1);
    name = name.substr(0, comma);
    if (opt.short_names.empty())
      throw std::logic_error("troupe: " + caller
                             + ": a comma comes before short names, as in \"port,p\"");
  }
  // CAF's "global" group has keys without a prefix.
  bool global = category_ == "global";
  opt.key = global ? std::string{name} : category_ + '.' + std::string{name};
  opt.description = description;
  cfg_->declare(std::move(opt), caller, global);
}

std::string to_string(stream_execution x) {
  return x == stream_execution::threads ? "threads" : "scheduled";
}

bool from_string(std::string_view str, stream_execution& x) {
  if (str == "scheduled")
    x = stream_execution::scheduled;
  else if (str == "threads")
    x = stream_execution::threads;
  else
    return false;
  return true;
}

} // namespace troupe
