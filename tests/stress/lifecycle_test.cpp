// Links, monitors and shutdown under load: hundreds of actors die in random
// order, each in one of the ways an actor can die, and every actor linked
// to or monitoring them must hear about each death exactly once, with the
// reason it died of. Then actors that flood each other with messages are
// stopped in mid-flight, and every message must be either handled or
// counted as a dead letter.

#include "stress_support.hpp"

#include "troupe/all.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace stress_lifecycle {

/// Reasons of our own to kill actors with: many distinct codes, so a reason
/// delivered for the wrong actor is caught.
enum class reason : uint8_t {
  none = 0,
  first = 1,
  last = 60,
};

} // namespace stress_lifecycle

TROUPE_BEGIN_TYPE_ID_BLOCK(lifecycle_test, 3150)
  TROUPE_ADD_TYPE_ID(lifecycle_test, (stress_lifecycle::reason))
  TROUPE_ADD_ATOM(lifecycle_test, lc_crash_atom)
  TROUPE_ADD_ATOM(lifecycle_test, lc_stop_atom)
  TROUPE_ADD_ATOM(lifecycle_test, lc_monitor_atom)
  TROUPE_ADD_ATOM(lifecycle_test, lc_sync_atom)
  TROUPE_ADD_ATOM(lifecycle_test, lc_token_atom)
TROUPE_END_TYPE_ID_BLOCK(lifecycle_test)

template <>
struct troupe::is_error_code_enum<stress_lifecycle::reason> : std::true_type {};

using namespace troupe;
using stress::scaled;

namespace {

// -- dying ---------------------------------------------------------------------------

/// The ways the test makes an actor die.
enum class death : uint8_t {
  exit_with_own_reason,  // anon_send_exit with a reason of ours
  exit_kill,             // anon_send_exit(kill): cannot be trapped
  exit_user_shutdown,    // anon_send_exit(user_shutdown)
  quit_with_own_reason,  // asked to quit(reason) from inside
  quit_normally,         // asked to quit() from inside
  exception,             // a handler throws
  unreachable,           // the last handle is dropped
};

constexpr int deaths = 7;

struct doom {
  death how;
  error why;
};

/// Deaths a test can't use.
enum exclude : unsigned {
  exclude_none = 0,
  // A normal exit does not take linked actors down with it.
  exclude_normal = 1,
  // kill is never trapped, not even when it comes from a linked actor: a
  // supervisor linked to a killed worker dies with it.
  exclude_kill = 2,
  // The test still needs the handle.
  exclude_unreachable = 4,
};

bool excluded(death how, unsigned excl) {
  return (how == death::quit_normally && (excl & exclude_normal) != 0)
         || (how == death::exit_kill && (excl & exclude_kill) != 0)
         || (how == death::unreachable && (excl & exclude_unreachable) != 0);
}

/// A random way to die for worker `index`, with the reason it must report.
doom random_doom(std::mt19937_64& rng, uint32_t index, unsigned excl) {
  std::uniform_int_distribution<int> pick_how{0, deaths - 1};
  death how;
  do
    how = static_cast<death>(pick_how(rng));
  while (excluded(how, excl));
  using stress_lifecycle::reason;
  std::uniform_int_distribution<int> pick_code{static_cast<int>(reason::first),
                                               static_cast<int>(reason::last)};
  auto own = static_cast<reason>(pick_code(rng));
  auto name = "worker " + std::to_string(index);
  switch (how) {
    case death::exit_with_own_reason:
      return {how, error{own, name}};
    case death::exit_kill:
      return {how, error{exit_reason::kill}};
    case death::exit_user_shutdown:
      return {how, error{exit_reason::user_shutdown}};
    case death::quit_with_own_reason:
      return {how, error{own, name + " quits"}};
    case death::quit_normally:
      return {how, error{}};
    case death::exception:
      return {how, error{exit_reason::unhandled_exception, name + " crashed"}};
    case death::unreachable:
      break;
  }
  return {death::unreachable, error{exit_reason::unreachable}};
}

/// Makes `hdl` die as `d` says (drops `hdl` for an unreachable death).
void execute(actor& hdl, const doom& d) {
  switch (d.how) {
    case death::exit_with_own_reason:
    case death::exit_kill:
    case death::exit_user_shutdown:
      anon_send_exit(hdl, d.why);
      break;
    case death::quit_with_own_reason:
      anon_send(hdl, d.why);
      break;
    case death::quit_normally:
      anon_send(hdl, lc_stop_atom_v);
      break;
    case death::exception:
      anon_send(hdl, lc_crash_atom_v);
      break;
    case death::unreachable:
      hdl = nullptr;
      break;
  }
}

bool same_reason(const error& x, const error& y) {
  return x == y && x.context() == y.context();
}

/// A worker that links to `link` (if valid) and dies when told to.
behavior worker(event_based_actor* self, uint32_t index, actor link) {
  if (link)
    self->link_to(link);
  return {
    [self](error& why) { self->quit(std::move(why)); },
    [self](lc_stop_atom) { self->quit(); },
    [index](lc_crash_atom) -> void {
      throw std::runtime_error("worker " + std::to_string(index) + " crashed");
    },
  };
}

/// The same worker as a blocking actor on a thread of its own. An exit_msg
/// ends it from inside `receive`; it never becomes unreachable (its thread
/// holds a reference until it returns).
void blocking_worker(blocking_actor* self, uint32_t index, actor link) {
  if (link)
    self->link_to(link);
  for (bool running = true; running;)
    self->receive(
      [&](error& why) {
        self->quit(std::move(why));
        running = false;
      },
      [&](lc_stop_atom) {
        self->quit();
        running = false;
      },
      [index](lc_crash_atom) -> void {
        throw std::runtime_error("worker " + std::to_string(index) + " crashed");
      });
}

/// Spawns worker `index`: most are event-based, a few detached or blocking
/// (which have a thread of their own and so can't become unreachable).
actor spawn_worker(actor_system& sys, uint32_t index, actor link) {
  switch (index % 25) {
    case 0:
      return sys.spawn<detached>(worker, index, std::move(link));
    case 1:
      return sys.spawn(blocking_worker, index, std::move(link));
    default:
      return sys.spawn(worker, index, std::move(link));
  }
}

unsigned thread_exclusions(uint32_t index) {
  return index % 25 < 2 ? exclude_unreachable : exclude_none;
}

// -- hearing about deaths ---------------------------------------------------------

struct death_record {
  actor_id source;
  error why;
};

/// Written only by its actor; the test reads it after a sync request to
/// that actor has been answered.
using death_log = std::vector<death_record>;

/// Traps the exits of its linked workers and logs them.
behavior supervisor(event_based_actor* self, death_log* log) {
  self->set_exit_handler([log](exit_msg& msg) {
    log->push_back({msg.source.id(), msg.reason});
  });
  return {
    [log](lc_sync_atom) { return static_cast<uint64_t>(log->size()); },
  };
}

/// Monitors whatever it is told to and logs each down_msg.
behavior observer(event_based_actor* self, death_log* log) {
  self->set_down_handler([log](down_msg& msg) {
    log->push_back({msg.source.id(), msg.reason});
  });
  return {
    [self](lc_monitor_atom, const actor& hdl) { self->monitor(hdl); },
    [log](lc_sync_atom) { return static_cast<uint64_t>(log->size()); },
  };
}

class lifecycle : public troupe::test::policy_test {
protected:
  void SetUp() override {
    sys_ = std::make_unique<actor_system>(cfg_);
    self_ = std::make_unique<scoped_actor>(*sys_);
  }

  void TearDown() override {
    self_.reset();
    stress::destroy(sys_, "lifecycle");
  }

  /// Waits until only `survivors` actors run: every death has been
  /// announced (an actor unregisters after telling links and monitors).
  void await_survivors(size_t survivors) {
    ASSERT_TRUE(stress::wait_until([&] { return sys_->running_actors() == survivors; }))
      << sys_->running_actors() - survivors << " actors that should have died still run";
  }

  /// Waits until `hdl` has handled everything sent to it before.
  void sync(const actor& hdl) {
    bool ok = false;
    (*self_)->request(hdl, stress::patience, lc_sync_atom_v)
      .receive([&](uint64_t) { ok = true; }, [&](const error&) {});
    ASSERT_TRUE(ok) << "no answer to a sync request";
  }

  /// Checks that `log` holds exactly one record for each actor in
  /// `expected`, with its expected reason, and nothing else.
  static void check_log(const char* who, const death_log& log,
                        const std::map<actor_id, error>& expected) {
    std::map<actor_id, int> seen;
    int failures = 0;
    // Reports the first few failures only: one bug tends to cause hundreds.
    auto report = [&] { return ++failures <= 10; };
    for (auto& rec : log) {
      auto i = expected.find(rec.source);
      if (i == expected.end()) {
        if (report())
          ADD_FAILURE() << who << " heard of actor#" << rec.source << ", which it should not";
        continue;
      }
      if (++seen[rec.source] > 1 && report())
        ADD_FAILURE() << who << " heard of actor#" << rec.source << " more than once";
      if (!same_reason(rec.why, i->second) && report())
        ADD_FAILURE() << who << " heard actor#" << rec.source << " died of "
                      << to_string(rec.why) << ", expected " << to_string(i->second);
    }
    for (auto& [id, why] : expected)
      if (seen[id] == 0 && report())
        ADD_FAILURE() << who << " never heard of actor#" << id << " (" << to_string(why)
                      << ")";
    EXPECT_EQ(failures, 0) << who;
  }

  stress::config cfg_{GetParam()};
  std::unique_ptr<actor_system> sys_;
  std::unique_ptr<scoped_actor> self_;
};

// -- links and monitors -------------------------------------------------------------

// Each round is quick; several rounds give the races more chances.
constexpr int rounds = scaled(20, 5);

TEST_P(lifecycle, every_death_reaches_each_linked_supervisor_and_monitor_once) {
  constexpr uint32_t supervisors = 5;
  constexpr uint32_t linked = scaled<uint32_t>(500, 50);
  constexpr uint32_t unlinked = scaled<uint32_t>(500, 50);
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::mt19937_64 rng{20261123u + round};
    std::vector<death_log> supervisor_logs(supervisors);
    death_log observer_log;
    std::vector<actor> sups;
    for (auto& log : supervisor_logs)
      sups.push_back(sys_->spawn(supervisor, &log));
    auto obs = sys_->spawn(observer, &observer_log);
    // Workers 0..linked-1 link to a supervisor (and are never killed with
    // `kill`, which would take the supervisor down too); the observer
    // monitors all.
    std::vector<actor> workers;
    for (uint32_t i = 0; i < linked + unlinked; ++i) {
      workers.push_back(spawn_worker(*sys_, i, i < linked ? sups[i % supervisors] : actor{}));
      (*self_)->send(obs, lc_monitor_atom_v, workers.back());
    }
    sync(obs);
    std::vector<std::map<actor_id, error>> expected_exits(supervisors);
    std::map<actor_id, error> expected_downs;
    std::vector<std::pair<uint32_t, doom>> dooms;
    for (uint32_t i = 0; i < workers.size(); ++i) {
      auto d = random_doom(rng, i, (i < linked ? exclude_kill : exclude_none)
                                     | thread_exclusions(i));
      if (i < linked)
        expected_exits[i % supervisors][workers[i].id()] = d.why;
      expected_downs[workers[i].id()] = d.why;
      dooms.emplace_back(i, std::move(d));
    }
    std::shuffle(dooms.begin(), dooms.end(), rng);
    for (auto& [i, d] : dooms)
      execute(workers[i], d);
    await_survivors(supervisors + 1);
    for (auto& s : sups)
      sync(s);
    sync(obs);
    for (uint32_t s = 0; s < supervisors; ++s)
      check_log(("supervisor " + std::to_string(s)).c_str(), supervisor_logs[s],
                expected_exits[s]);
    check_log("observer", observer_log, expected_downs);
    // kill, because the supervisors trap every other exit.
    for (auto& s : sups)
      anon_send_exit(s, exit_reason::kill);
    anon_send_exit(obs, exit_reason::kill);
    stress::await_all_done(*sys_, "supervisors and observer");
  }
  // Each worker got exactly one message that killed it; none was left over.
  EXPECT_EQ(sys_->dead_letters(), 0u);
}

TEST_P(lifecycle, a_death_spreads_along_a_chain_of_links_with_the_same_reason) {
  constexpr uint32_t chains = scaled<uint32_t>(60, 10);
  constexpr uint32_t length = 10;
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::mt19937_64 rng{42u + round};
    death_log observer_log;
    auto obs = sys_->spawn(observer, &observer_log);
    std::vector<std::vector<actor>> members(chains);
    for (uint32_t c = 0; c < chains; ++c)
      for (uint32_t j = 0; j < length; ++j) {
        // Each member links to the one before it, so the chain is connected
        // only through links.
        auto prev = j == 0 ? actor{} : members[c][j - 1];
        members[c].push_back(spawn_worker(*sys_, c * length + j, prev));
        (*self_)->send(obs, lc_monitor_atom_v, members[c].back());
      }
    sync(obs);
    std::map<actor_id, error> expected;
    std::vector<std::pair<uint32_t, doom>> dooms;
    for (uint32_t c = 0; c < chains; ++c) {
      std::uniform_int_distribution<uint32_t> pick{0, length - 1};
      auto victim = pick(rng);
      auto d = random_doom(rng, c * length + victim,
                           exclude_normal | thread_exclusions(c * length + victim));
      for (auto& m : members[c])
        expected[m.id()] = d.why;
      dooms.emplace_back(c * length + victim, std::move(d));
    }
    std::shuffle(dooms.begin(), dooms.end(), rng);
    for (auto& [i, d] : dooms)
      execute(members[i / length][i % length], d);
    await_survivors(1);
    sync(obs);
    check_log("observer", observer_log, expected);
    anon_send_exit(obs, exit_reason::kill);
    stress::await_all_done(*sys_, "observer");
  }
}

TEST_P(lifecycle, two_linked_actors_killed_at_once_each_die_once_of_one_of_the_two_reasons) {
  // Both ends of a link terminate at the same time, each with its own
  // reason, and each also gets the other's exit_msg: each dies once, and
  // never both of the other's reason (one of them died first).
  constexpr uint32_t pairs = scaled<uint32_t>(500, 50);
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::mt19937_64 rng{99u + round};
    death_log observer_log;
    auto obs = sys_->spawn(observer, &observer_log);
    std::vector<actor> firsts;
    std::vector<actor> seconds;
    for (uint32_t p = 0; p < pairs; ++p) {
      firsts.push_back(sys_->spawn(worker, 2 * p, actor{}));
      seconds.push_back(sys_->spawn(worker, 2 * p + 1, firsts.back()));
      (*self_)->send(obs, lc_monitor_atom_v, firsts.back());
      (*self_)->send(obs, lc_monitor_atom_v, seconds.back());
    }
    sync(obs);
    std::vector<std::pair<doom, doom>> dooms;
    std::vector<uint32_t> order(2 * pairs);
    for (uint32_t p = 0; p < pairs; ++p) {
      auto excl = exclude_normal | exclude_unreachable;
      dooms.emplace_back(random_doom(rng, 2 * p, excl), random_doom(rng, 2 * p + 1, excl));
      order[2 * p] = 2 * p;
      order[2 * p + 1] = 2 * p + 1;
    }
    std::shuffle(order.begin(), order.end(), rng);
    for (auto i : order) {
      auto& pair = dooms[i / 2];
      if (i % 2 == 0)
        execute(firsts[i / 2], pair.first);
      else
        execute(seconds[i / 2], pair.second);
    }
    await_survivors(1);
    sync(obs);
    std::map<actor_id, std::vector<error>> heard;
    for (auto& rec : observer_log)
      heard[rec.source].push_back(rec.why);
    int failures = 0;
    for (uint32_t p = 0; p < pairs && failures < 10; ++p) {
      auto& a = heard[firsts[p].id()];
      auto& b = heard[seconds[p].id()];
      if (a.size() != 1 || b.size() != 1) {
        ++failures;
        ADD_FAILURE() << "pair " << p << ": heard " << a.size() << " and " << b.size()
                      << " deaths";
        continue;
      }
      auto& ra = dooms[p].first.why;
      auto& rb = dooms[p].second.why;
      bool own_a = same_reason(a[0], ra);
      bool own_b = same_reason(b[0], rb);
      bool ok = (own_a && own_b) || (own_a && same_reason(b[0], ra))
                || (own_b && same_reason(a[0], rb));
      if (!ok) {
        ++failures;
        ADD_FAILURE() << "pair " << p << " died of " << to_string(a[0]) << " and "
                      << to_string(b[0]) << ", killed with " << to_string(ra) << " and "
                      << to_string(rb);
      }
    }
    EXPECT_EQ(heard.size(), 2 * pairs);
    anon_send_exit(obs, exit_reason::kill);
    stress::await_all_done(*sys_, "observer");
  }
}

/// Links to and monitors `target` from its spawn function, trapping exits,
/// and logs both notices.
struct watcher_logs {
  death_log exits;
  death_log downs;
};

behavior watcher(event_based_actor* self, actor target, watcher_logs* logs) {
  self->set_exit_handler([logs](exit_msg& msg) {
    logs->exits.push_back({msg.source.id(), msg.reason});
  });
  self->set_down_handler([logs](down_msg& msg) {
    logs->downs.push_back({msg.source.id(), msg.reason});
  });
  self->link_to(target);
  self->monitor(target);
  return {
    [logs](lc_sync_atom) { return static_cast<uint64_t>(logs->exits.size()); },
  };
}

TEST_P(lifecycle, linking_to_an_actor_while_it_dies_reports_its_death_exactly_once) {
  // The link and the monitor race with the target's termination: either
  // the target is already down (the notice comes at once) or it is still
  // up (the notice comes when it dies); never both, never neither.
  constexpr uint32_t targets = scaled<uint32_t>(500, 50);
  for (int round = 0; round < rounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    std::mt19937_64 rng{1234u + round};
    std::vector<actor> victims;
    std::vector<doom> dooms;
    std::vector<std::unique_ptr<watcher_logs>> logs;
    std::vector<actor> watchers;
    for (uint32_t i = 0; i < targets; ++i) {
      victims.push_back(sys_->spawn(worker, i, actor{}));
      dooms.push_back(random_doom(rng, i, exclude_kill | exclude_unreachable));
      logs.push_back(std::make_unique<watcher_logs>());
    }
    for (uint32_t i = 0; i < targets; ++i) {
      // Kill first or spawn the watcher first, at random.
      bool kill_first = (rng() & 1) != 0;
      if (kill_first)
        execute(victims[i], dooms[i]);
      watchers.push_back(sys_->spawn(watcher, victims[i], logs[i].get()));
      if (!kill_first)
        execute(victims[i], dooms[i]);
    }
    await_survivors(targets);
    int failures = 0;
    for (uint32_t i = 0; i < targets; ++i) {
      // A watcher runs its spawn function on its first activation, which
      // may come after our first request is queued: a notice for a target
      // already down, sent from there, lands behind that request. The
      // second answer comes after every notice.
      sync(watchers[i]);
      sync(watchers[i]);
      std::map<actor_id, error> expected{{victims[i].id(), dooms[i].why}};
      check_log("a watcher's exits", logs[i]->exits, expected);
      check_log("a watcher's downs", logs[i]->downs, expected);
      if (HasFailure() && ++failures > 3)
        break;
    }
    for (auto& w : watchers)
      anon_send_exit(w, exit_reason::kill);
    stress::await_all_done(*sys_, "watchers");
  }
}

TEST_P(lifecycle, linking_and_monitoring_actors_that_already_died_reports_them_at_once) {
  constexpr uint32_t workers = scaled<uint32_t>(300, 30);
  std::mt19937_64 rng{7};
  std::vector<actor> dead;
  std::map<actor_id, error> expected;
  for (uint32_t i = 0; i < workers; ++i) {
    dead.push_back(sys_->spawn(worker, i, actor{}));
    // The observer needs a handle to monitor the dead worker.
    auto d = random_doom(rng, i, exclude_kill | exclude_unreachable);
    expected[dead.back().id()] = d.why;
    auto hdl = dead.back();
    execute(hdl, d);
  }
  await_survivors(0);
  death_log observer_log;
  death_log supervisor_log;
  auto obs = sys_->spawn(observer, &observer_log);
  // A late supervisor links to each dead worker from its own spawn
  // function: each link_to must produce an exit_msg at once.
  auto sup = sys_->spawn(
    [&supervisor_log](event_based_actor* self, std::vector<actor> targets) {
      for (auto& t : targets)
        self->link_to(t);
      return supervisor(self, &supervisor_log);
    },
    dead);
  for (auto& w : dead)
    (*self_)->send(obs, lc_monitor_atom_v, w);
  // Wait until all the answers are there, then sync to read the logs.
  auto answered = [&](const actor& hdl) {
    uint64_t n = 0;
    (*self_)->request(hdl, stress::patience, lc_sync_atom_v)
      .receive([&](uint64_t x) { n = x; }, [](const error&) {});
    return n >= workers;
  };
  ASSERT_TRUE(stress::wait_until([&] { return answered(obs) && answered(sup); }));
  check_log("observer", observer_log, expected);
  check_log("late supervisor", supervisor_log, expected);
  anon_send_exit(obs, exit_reason::kill);
  anon_send_exit(sup, exit_reason::kill);
  stress::await_all_done(*sys_, "late observer and supervisor");
}

// -- shutdown while messages are in flight -------------------------------------------

struct flood_counters {
  // Incremented before each send, so sent >= handled + dead letters always.
  std::atomic<uint64_t> sent{0};
  std::atomic<uint64_t> handled{0};
  // Actors that quit on their own.
  std::atomic<uint64_t> quitters{0};
  // States destroyed: each actor's goes when it terminates.
  std::atomic<uint64_t> states_destroyed{0};
};

struct flood_state {
  std::shared_ptr<const std::vector<actor>> peers;
  flood_counters* counters = nullptr;
  uint64_t rng = 0;
  uint64_t handled = 0;

  flood_state() = default;
  flood_state(const flood_state&) = delete;
  flood_state& operator=(const flood_state&) = delete;

  ~flood_state() {
    if (counters != nullptr)
      counters->states_destroyed.fetch_add(1, std::memory_order_relaxed);
  }
};

/// Passes every token it gets on to a random peer; with `quota` > 0 quits
/// after handling that many.
behavior flooder(stateful_actor<flood_state>* self, uint32_t index,
                 std::shared_ptr<const std::vector<actor>> peers, flood_counters* counters,
                 uint64_t quota) {
  self->state.peers = std::move(peers);
  self->state.counters = counters;
  self->state.rng = 0x9E3779B97F4A7C15ull * (index + 1);
  return {
    [self, counters, quota](lc_token_atom) {
      auto& st = self->state;
      // xorshift: cheap and good enough to scatter the tokens.
      st.rng ^= st.rng << 13;
      st.rng ^= st.rng >> 7;
      st.rng ^= st.rng << 17;
      counters->sent.fetch_add(1, std::memory_order_relaxed);
      self->send((*st.peers)[st.rng % st.peers->size()], lc_token_atom_v);
      counters->handled.fetch_add(1, std::memory_order_relaxed);
      if (quota > 0 && ++st.handled == quota) {
        counters->quitters.fetch_add(1, std::memory_order_relaxed);
        self->quit(error{stress_lifecycle::reason::first, "quota reached"});
      }
    },
  };
}

/// Spawns `n` flooders and starts `tokens` tokens at each (sent by this
/// thread, after every flooder has its peers).
std::vector<actor> start_flood(actor_system& sys, uint32_t n, uint32_t tokens,
                               flood_counters& counters, const std::vector<uint64_t>& quotas) {
  auto peers = std::make_shared<std::vector<actor>>();
  for (uint32_t i = 0; i < n; ++i)
    peers->push_back(sys.spawn(flooder, i, std::shared_ptr<const std::vector<actor>>{peers},
                               &counters, quotas.empty() ? 0 : quotas[i]));
  auto result = *peers;
  for (uint32_t t = 0; t < tokens; ++t)
    for (auto& p : result) {
      counters.sent.fetch_add(1, std::memory_order_relaxed);
      anon_send(p, lc_token_atom_v);
    }
  return result;
}

constexpr uint32_t flooders = scaled<uint32_t>(200, 40);
constexpr uint32_t tokens_each = 10;

TEST_P(lifecycle, stopping_flooding_actors_mid_flight_turns_every_token_into_a_dead_letter) {
  flood_counters counters;
  auto actors = start_flood(*sys_, flooders, tokens_each, counters, {});
  constexpr uint64_t warm_up = scaled<uint64_t>(500'000, 30'000);
  ASSERT_TRUE(stress::wait_until([&] { return counters.handled.load() >= warm_up; }));
  // Exits in random order while the tokens fly; each actor gets exactly
  // one and is alive until it handles it (its peers keep it reachable).
  std::mt19937_64 rng{1};
  std::shuffle(actors.begin(), actors.end(), rng);
  for (auto& a : actors)
    anon_send_exit(a, exit_reason::user_shutdown);
  actors.clear();
  stress::await_all_done(*sys_, "flooders after user_shutdown");
  auto sent = counters.sent.load();
  auto handled = counters.handled.load();
  // Every token is passed on until it reaches a terminated actor, so each
  // of them ends as exactly one dead letter.
  EXPECT_EQ(sys_->dead_letters(), uint64_t{flooders} * tokens_each);
  EXPECT_EQ(sent, handled + sys_->dead_letters());
  EXPECT_GE(handled, warm_up);
  EXPECT_EQ(counters.states_destroyed.load(), flooders);
}

TEST_P(lifecycle, actors_that_quit_in_the_middle_of_a_flood_account_for_every_message) {
  flood_counters counters;
  std::mt19937_64 rng{2};
  // Random quotas: the actors quit one after another while tokens fly.
  constexpr uint64_t mean_quota = scaled<uint64_t>(3'000, 500);
  std::uniform_int_distribution<uint64_t> pick{mean_quota / 2, mean_quota * 3 / 2};
  std::vector<uint64_t> quotas;
  for (uint32_t i = 0; i < flooders; ++i)
    quotas.push_back(pick(rng));
  auto actors = start_flood(*sys_, flooders, tokens_each, counters, quotas);
  const uint64_t tokens = uint64_t{flooders} * tokens_each;
  // Each token ends as one dead letter; once all have, nothing moves.
  ASSERT_TRUE(stress::wait_until([&] { return sys_->dead_letters() >= tokens; }))
    << sys_->dead_letters() << " of " << tokens << " tokens ended";
  // The actors that have not reached their quota wait forever: stop them.
  // Exits to those that already quit are dead letters too.
  for (auto& a : actors)
    anon_send_exit(a, exit_reason::user_shutdown);
  actors.clear();
  stress::await_all_done(*sys_, "flooders that did not quit");
  auto quitters = counters.quitters.load();
  EXPECT_GT(quitters, 0u);
  EXPECT_EQ(sys_->dead_letters(), tokens + quitters);
  EXPECT_EQ(counters.sent.load(), counters.handled.load() + tokens);
  EXPECT_EQ(counters.states_destroyed.load(), flooders);
}

TEST_P(lifecycle, destroying_the_system_right_after_stopping_a_flood_returns) {
  // No waiting before the destructor: it must wait for the flooders
  // itself, with tokens still in their mailboxes.
  flood_counters counters;
  auto actors = start_flood(*sys_, flooders, tokens_each, counters, {});
  ASSERT_TRUE(stress::wait_until([&] { return counters.handled.load() >= flooders; }));
  for (auto& a : actors)
    anon_send_exit(a, exit_reason::user_shutdown);
  actors.clear();
  self_.reset();
  stress::destroy(sys_, "right after stopping the flood");
  // Each flooder held handles to all others: only terminating them all
  // breaks that cycle and frees their states.
  EXPECT_EQ(counters.states_destroyed.load(), flooders);
}

TROUPE_TEST_EVERY_POLICY(lifecycle);

} // namespace
