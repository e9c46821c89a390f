// The locality policy: the steal order over a synthetic topology (one thief
// driven by hand, no threads), where unblocked actors and hubs start, the
// per-level steal counters, and the configuration keys. The whole actor and
// scheduler suite runs on the policy too (tests/support/policies.hpp).

#include "../../src/scheduler/stealing/worker.hpp"
#include "../support/policies.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/actor_system_config.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

using namespace troupe;
using namespace std::chrono_literals;

namespace {

// -- one thief by hand --------------------------------------------------------

/// A job that is never run, only moved between queues.
struct token final : resumable {
  int id;
  explicit token(int x) : id(x) {}
  resume_result resume(execution_unit*, size_t) override {
    return resume_result::done;
  }
  void ref_resumable() const noexcept override {}
  void deref_resumable() const noexcept override {}
};

struct hand_worker final : detail::stealing::worker {
  using worker::worker;
  void exec_later(resumable*) override {}
};

/// A locality core whose workers never run: the test thread pushes onto
/// their deques and steals as any of them.
struct hand_core final : detail::stealing::core {
  explicit hand_core(const scheduler_config& cfg) : core(cfg) {
    for (size_t i = 0; i < size(); ++i)
      workers.push_back(std::make_unique<hand_worker>(*this, i));
  }
  ~hand_core() override {
    for (auto& w : workers) // The tokens live on the test's stack.
      while (w->deque.pop() || (w->affinity && w->affinity->try_pop())) {
      }
  }
  void run_worker(size_t) override {}
  void request_stop() override {}
};

scheduler_config synthetic(const char* topology, size_t workers,
                           locality_placement placement = detail::default_locality_placement) {
  scheduler_config cfg;
  cfg.policy = "locality";
  cfg.topology = topology;
  cfg.max_threads = workers;
  cfg.placement = placement;
  return cfg;
}

int id_of(std::optional<resumable*> job) {
  return job ? static_cast<token*>(*job)->id : -1;
}

/// Two packages of two NUMA nodes of two cores: worker 0's levels are its
/// node (1), its package (2-3), the machine (4-7).
constexpr const char* two_packages = "package:2 numa:2 core:2 pu:1";

TEST(locality_steal_order, a_thief_takes_from_its_own_node_before_the_other_package) {
  hand_core c{synthetic(two_packages, 8)};
  token near{1}, mid{2}, far{3};
  c.workers[6]->deque.push(&far);
  c.workers[3]->deque.push(&mid);
  c.workers[1]->deque.push(&near);
  auto& thief = *c.workers[0];
  EXPECT_EQ(id_of(thief.steal_round()), 1);
  EXPECT_EQ(id_of(thief.steal_round()), 2);
  EXPECT_EQ(id_of(thief.steal_round()), 3);
  EXPECT_EQ(id_of(thief.steal_round()), -1);
  auto stats = thief.counters.snapshot();
  EXPECT_EQ(stats.steals, 3u);
  ASSERT_EQ(thief.place->levels.size(), 3u);
  for (size_t lv = 0; lv < 3; ++lv)
    EXPECT_EQ(thief.level_steals[lv].get(), 1u) << "level " << lv;
}

TEST(locality_steal_order, no_thief_steals_across_nodes_while_its_own_node_has_work) {
  // Workers 0 and 1 share node 0; 2 and 3 are the other node.
  hand_core c{synthetic("numa:2 core:2 pu:1", 4)};
  constexpr int n = 32;
  std::deque<token> near, far;
  for (int i = 0; i < n; ++i) {
    c.workers[1]->deque.push(&near.emplace_back(i));
    c.workers[2]->deque.push(&far.emplace_back(n + i));
    c.workers[3]->deque.push(&far.emplace_back(2 * n + i));
  }
  auto& thief = *c.workers[0];
  ASSERT_EQ(thief.place->levels.size(), 2u);
  for (int i = 0; i < n; ++i) {
    auto id = id_of(thief.steal_round());
    ASSERT_GE(id, 0) << "round " << i << " found nothing";
    ASSERT_LT(id, n) << "round " << i << " crossed nodes while worker 1 had work";
  }
  EXPECT_EQ(thief.level_steals[0].get(), uint64_t{n});
  EXPECT_EQ(thief.level_steals[1].get(), 0u);
  // Its node is empty now: the next steal crosses.
  EXPECT_GE(id_of(thief.steal_round()), n);
  EXPECT_EQ(thief.level_steals[1].get(), 1u);
}

TEST(locality_steal_order, levels_whose_deques_look_empty_cost_no_steal_attempt) {
  hand_core c{synthetic(two_packages, 8)};
  token far{7};
  c.workers[7]->deque.push(&far);
  auto& thief = *c.workers[0];
  EXPECT_EQ(id_of(thief.steal_round()), 7);
  auto stats = thief.counters.snapshot();
  EXPECT_EQ(stats.steal_attempts, 1u); // Only the one victim with work.
  EXPECT_EQ(thief.level_steals[2].get(), 1u);
}

TEST(locality_steal_order, a_thief_takes_from_the_affinity_queue_of_a_busy_worker_only) {
  hand_core c{synthetic(two_packages, 8)};
  token placed{5};
  ASSERT_TRUE(c.workers[5]->affinity->try_push(&placed));
  EXPECT_TRUE(c.work_visible());
  c.workers[5]->counters.end_idle();
  c.workers[5]->counters.begin_idle(); // Idle: the job is its own to run.
  EXPECT_EQ(id_of(c.workers[0]->steal_round()), -1);
  EXPECT_TRUE(c.work_visible()) << "the scheduler is not done while it waits";
  EXPECT_TRUE(c.work_for(*c.workers[5])) << "its owner's re-check before parking sees it";
  EXPECT_FALSE(c.work_for(*c.workers[0])) << "another worker may park: the owner takes it";
  c.workers[5]->counters.end_idle(); // Busy, but it may just have finished.
  EXPECT_TRUE(c.work_for(*c.workers[0])) << "a thief may have to take it: stay awake";
  EXPECT_EQ(id_of(c.workers[0]->steal_round()), -1);
  std::this_thread::sleep_for(1ms); // Busy with one job all along: stuck.
  EXPECT_EQ(id_of(c.workers[0]->steal_round()), 5);
  EXPECT_FALSE(c.work_visible());
}

TEST(locality_steal_order, a_thief_takes_a_busy_workers_placed_backlog_without_waiting) {
  hand_core c{synthetic(two_packages, 8)};
  token first{1}, second{2};
  ASSERT_TRUE(c.workers[5]->affinity->try_push(&first));
  ASSERT_TRUE(c.workers[5]->affinity->try_push(&second));
  c.workers[5]->counters.end_idle(); // Busy, and it just started its job.
  EXPECT_EQ(id_of(c.workers[0]->steal_round()), 1) << "the oldest of a backlog goes";
  EXPECT_EQ(id_of(c.workers[0]->steal_round()), -1) << "one left: the owner's, for now";
  c.workers[5]->counters.begin_idle();
  ASSERT_TRUE(c.workers[5]->affinity->try_push(&first));
  EXPECT_EQ(id_of(c.workers[0]->steal_round()), -1) << "an idle owner takes its own backlog";
}

TEST(locality_steal_order, a_searching_worker_takes_what_was_placed_on_it_first) {
  hand_core c{synthetic(two_packages, 8)};
  token mine{0}, near{1};
  c.workers[1]->deque.push(&near);
  ASSERT_TRUE(c.workers[0]->affinity->try_push(&mine));
  EXPECT_EQ(id_of(c.workers[0]->steal_round()), 0);
  EXPECT_EQ(c.workers[0]->counters.snapshot().steals, 0u);
}

TEST(locality_steal_order, the_owner_runs_its_deque_dry_before_its_affinity_queue) {
  // The owner pops the deque's newest end: only a deque that runs dry lets
  // its oldest jobs run.
  hand_core c{synthetic(two_packages, 8)};
  auto& w = *c.workers[0];
  token local[4] = {token{10}, token{11}, token{12}, token{13}};
  token placed[2] = {token{20}, token{21}};
  for (auto& x : local)
    w.deque.push(&x);
  for (auto& x : placed)
    ASSERT_TRUE(w.affinity->try_push(&x));
  detail::stealing::core::current_worker = &w;
  std::vector<int> order;
  while (auto job = w.next_local())
    order.push_back(id_of(job));
  detail::stealing::core::current_worker = nullptr;
  EXPECT_EQ(order, (std::vector<int>{13, 12, 11, 10, 20, 21}));
}

TEST(locality_steal_order, a_placed_job_runs_every_61st_look_behind_a_deque_that_never_runs_dry) {
  // The deque is refilled after each pop, as by an actor that keeps
  // unblocking others; the placed jobs still run, one per interval.
  hand_core c{synthetic(two_packages, 8)};
  auto& w = *c.workers[0];
  token local{10};
  token placed[2] = {token{20}, token{21}};
  for (auto& x : placed)
    ASSERT_TRUE(w.affinity->try_push(&x));
  detail::stealing::core::current_worker = &w;
  std::vector<size_t> placed_at;
  for (size_t look = 1; look <= 3 * defaults::scheduler::injection_interval; ++look) {
    w.deque.push(&local);
    auto id = id_of(w.next_local());
    if (id != 10) {
      placed_at.push_back(look);
      ASSERT_TRUE(w.deque.pop()); // The one pushed for this look.
    }
  }
  detail::stealing::core::current_worker = nullptr;
  auto n = defaults::scheduler::injection_interval;
  EXPECT_EQ(placed_at, (std::vector<size_t>{n, 2 * n}));
}

/// The look at which an outside job comes out of next_local, behind a deque
/// refilled to `backlog` jobs after each pop; 0 if not within `looks`.
size_t outside_job_runs_at(size_t backlog, size_t looks) {
  hand_core c{synthetic(two_packages, 8)};
  auto& w = *c.workers[0];
  token local{10}, outside{30};
  for (size_t i = 0; i < backlog; ++i)
    w.deque.push(&local);
  EXPECT_TRUE(c.injection.push(&outside));
  detail::stealing::core::current_worker = &w;
  size_t at = 0;
  for (size_t look = 1; look <= looks && at == 0; ++look) {
    if (id_of(w.next_local()) == 30)
      at = look;
    else
      w.deque.push(&local);
  }
  detail::stealing::core::current_worker = nullptr;
  return at;
}

TEST(locality_steal_order, outside_work_waits_behind_a_long_deque_but_not_for_ever) {
  // Outside work starts more work: behind a deque longer than the limit it
  // is taken every max_deferred_looks-th interval, else every interval.
  using namespace defaults::scheduler;
  auto n = injection_interval;
  EXPECT_EQ(outside_job_runs_at(outside_backlog_limit, 4 * n), n);
  EXPECT_EQ(outside_job_runs_at(outside_backlog_limit + 1, 2 * n * max_deferred_looks),
            n * max_deferred_looks);
}

TEST(locality_steal_order, most_thieves_back_off_from_a_single_deque_their_node_crowds) {
  // Node 0 is workers 0-3; only worker 1 has work. With the node's polling
  // count far above half of it, a thief steals in few rounds; with nobody
  // else polling, in every round.
  hand_core c{synthetic("numa:2 core:4 pu:1", 8)};
  std::deque<token> jobs; // Tokens don't move.
  for (int i = 0; i < 200; ++i)
    jobs.emplace_back(i);
  for (auto& j : jobs)
    c.workers[1]->deque.push(&j);
  auto& thief = *c.workers[0];
  ASSERT_TRUE(thief.place->levels[0].same_numa_node);
  auto rounds_won = [&](uint32_t others_polling) {
    c.locality->polling[0].count.store(others_polling);
    int won = 0;
    for (int i = 0; i < 100; ++i)
      won += thief.steal_round() ? 1 : 0;
    c.locality->polling[0].count.store(0);
    return won;
  };
  EXPECT_EQ(rounds_won(0), 100);
  // 19 others and the thief poll: about half of the node's 4 workers, 2 in
  // 20, go on (random, but seeded by the worker's index).
  auto crowded = rounds_won(19);
  EXPECT_GT(crowded, 0) << "somebody must still steal";
  EXPECT_LT(crowded, 30);
}

TEST(locality_steal_order, a_second_deque_with_work_means_no_back_off) {
  hand_core c{synthetic("numa:2 core:4 pu:1", 8)};
  std::deque<token> jobs; // Tokens don't move.
  for (int i = 0; i < 200; ++i)
    jobs.emplace_back(i);
  for (size_t i = 0; i < jobs.size(); ++i)
    c.workers[1 + i % 2]->deque.push(&jobs[i]);
  c.locality->polling[0].count.store(200);
  int won = 0;
  for (int i = 0; i < 100; ++i)
    won += c.workers[0]->steal_round() ? 1 : 0;
  c.locality->polling[0].count.store(0);
  EXPECT_EQ(won, 100);
}

// -- the steal back-off (plain work stealing and the locality policy) --------

scheduler_config plain(size_t workers) {
  scheduler_config cfg;
  cfg.max_threads = workers;
  return cfg;
}

class steal_backoff : public testing::TestWithParam<bool> {
protected:
  scheduler_config config() const {
    return GetParam() ? synthetic("numa:2 core:2 pu:1", 4) : plain(4);
  }
};

INSTANTIATE_TEST_SUITE_P(policies, steal_backoff, testing::Values(false, true),
                         [](const auto& info) {
                           return info.param ? "locality" : "work_stealing";
                         });

int64_t now_ns() {
  return detail::worker_counters::now_ns();
}

TEST_P(steal_backoff, a_thief_whose_steal_ran_short_leaves_the_others_alone_for_a_while) {
  hand_core c{config()};
  std::deque<token> jobs;
  for (int i = 0; i < 4; ++i)
    c.workers[1]->deque.push(&jobs.emplace_back(i));
  auto& thief = *c.workers[0];
  // Out of work at once: it did not pay. Read before the steal, `start` is
  // within short_steal of it, and the back-off runs from `start`.
  auto start = now_ns();
  ASSERT_GE(id_of(thief.steal_round()), 0);
  thief.note_out_of_work(start);
  auto blocked = id_of(thief.steal_round());
  auto looked = now_ns();
  // A slow machine may take the whole back-off before the round looks.
  if (looked - start < defaults::scheduler::steal_backoff.count()) {
    EXPECT_EQ(blocked, -1) << "stole during its back-off";
  }
  token outside{9};
  ASSERT_TRUE(c.injection.push(&outside));
  EXPECT_EQ(id_of(thief.steal_round()), 9) << "outside work still runs";
  EXPECT_TRUE(c.work_for(thief)) << "its re-check before parking still sees the deque";
  std::this_thread::sleep_for(1ms);
  EXPECT_GE(id_of(thief.steal_round()), 0) << "the back-off ended";
  EXPECT_EQ(thief.counters.snapshot().steals, blocked >= 0 ? 3u : 2u);
}

TEST_P(steal_backoff, a_steal_that_kept_the_thief_busy_is_followed_by_more) {
  hand_core c{config()};
  std::deque<token> jobs;
  for (int i = 0; i < 3; ++i)
    c.workers[1]->deque.push(&jobs.emplace_back(i));
  auto& thief = *c.workers[0];
  ASSERT_GE(id_of(thief.steal_round()), 0);
  // Busy for longer than short_steal with what it stole.
  thief.note_out_of_work(now_ns() + 2 * defaults::scheduler::short_steal.count());
  ASSERT_GE(id_of(thief.steal_round()), 0);
  thief.note_out_of_work(now_ns() + 2 * defaults::scheduler::short_steal.count());
  // A busy period that began otherwise (its own work, outside work) starts
  // no back-off, however short.
  thief.note_out_of_work(now_ns());
  EXPECT_GE(id_of(thief.steal_round()), 0);
  EXPECT_EQ(thief.counters.snapshot().steals, 3u);
}

TEST(locality_placement, affinity_sends_an_unblocked_actor_back_to_the_worker_that_ran_it) {
  hand_core c{synthetic(two_packages, 8, locality_placement::affinity)};
  token job{1};
  auto& w0 = *c.workers[0];
  EXPECT_EQ(c.placement_of(&job, &w0).target, nullptr) << "a new actor starts where it is";
  job.set_last_worker(5);
  EXPECT_EQ(c.placement_of(&job, &w0).target, c.workers[5].get());
  EXPECT_EQ(c.placement_of(&job, nullptr).target, c.workers[5].get()) << "from outside too";
  EXPECT_EQ(c.placement_of(&job, c.workers[5].get()).target, nullptr) << "already there";
}

TEST(locality_placement, affinity_runs_an_actor_here_while_its_last_worker_has_a_placed_backlog) {
  hand_core c{synthetic(two_packages, 8, locality_placement::affinity)};
  auto& home = *c.workers[5];
  std::deque<token> placed;
  for (size_t i = 1; i < defaults::scheduler::placed_backlog_limit; ++i)
    ASSERT_TRUE(home.affinity->try_push(&placed.emplace_back(static_cast<int>(i))));
  token job{0};
  job.set_last_worker(5);
  EXPECT_EQ(c.placement_of(&job, c.workers[0].get()).target, &home) << "one below the limit";
  ASSERT_TRUE(home.affinity->try_push(&placed.emplace_back(-1)));
  EXPECT_EQ(c.placement_of(&job, c.workers[0].get()).target, nullptr) << "it would wait behind them";
  EXPECT_EQ(c.placement_of(&job, nullptr).target, nullptr) << "from outside too";
  ASSERT_TRUE(home.affinity->try_pop());
  EXPECT_EQ(c.placement_of(&job, c.workers[0].get()).target, &home) << "room again";
}

TEST(locality_placement, affinity_counts_the_deque_of_its_last_worker_in_the_backlog) {
  // The owner runs its deque before its affinity queue: a placed job waits
  // behind both.
  hand_core c{synthetic(two_packages, 8, locality_placement::affinity)};
  auto& home = *c.workers[5];
  std::deque<token> queued;
  auto half = defaults::scheduler::placed_backlog_limit / 2;
  for (size_t i = 0; i < half; ++i)
    home.deque.push(&queued.emplace_back(static_cast<int>(i)));
  for (size_t i = 1; i < half; ++i)
    ASSERT_TRUE(home.affinity->try_push(&queued.emplace_back(-static_cast<int>(i))));
  token job{0};
  job.set_last_worker(5);
  EXPECT_EQ(c.placement_of(&job, c.workers[0].get()).target, &home) << "one below the limit";
  home.deque.push(&queued.emplace_back(99));
  EXPECT_EQ(c.placement_of(&job, c.workers[0].get()).target, nullptr) << "it would wait behind them";
  ASSERT_TRUE(home.deque.pop());
  EXPECT_EQ(c.placement_of(&job, c.workers[0].get()).target, &home) << "room again";
}

TEST(locality_placement, affinity_lets_an_actor_follow_the_one_worker_that_keeps_waking_it) {
  hand_core c{synthetic(two_packages, 8, locality_placement::affinity)};
  token job{1};
  job.set_last_worker(5);
  auto* w0 = c.workers[0].get();
  auto* w1 = c.workers[1].get();
  // Wakes from two workers in turn: no streak, it stays on its worker.
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(c.placement_of(&job, i % 2 == 0 ? w0 : w1).target, c.workers[5].get());
  // A wake on its own worker ends a streak too.
  for (uint32_t i = 1; i < defaults::scheduler::follow_after_wakes; ++i)
    EXPECT_EQ(c.placement_of(&job, w0).target, c.workers[5].get());
  EXPECT_EQ(c.placement_of(&job, c.workers[5].get()).target, nullptr);
  for (uint32_t i = 1; i < defaults::scheduler::follow_after_wakes; ++i)
    EXPECT_EQ(c.placement_of(&job, w0).target, c.workers[5].get());
  EXPECT_EQ(c.placement_of(&job, w0).target, nullptr) << "woken by w0 only: it follows";
  EXPECT_EQ(c.placement_of(&job, w0).target, c.workers[5].get())
    << "until it has run there, its last worker is still 5";
  EXPECT_EQ(c.placement_of(&job, nullptr).target, c.workers[5].get()) << "outside wakes count not";
}

TEST(locality_placement, local_placement_runs_an_unblocked_actor_on_the_senders_worker) {
  hand_core c{synthetic(two_packages, 8)};
  token job{1};
  job.set_last_worker(5);
  EXPECT_EQ(c.placement_of(&job, c.workers[0].get()).target, nullptr);
  EXPECT_EQ(c.placement_of(&job, nullptr).target, nullptr);
}

TEST(locality_placement, hubs_take_the_numa_nodes_farthest_apart_first) {
  hand_core c{synthetic(two_packages, 8)};
  // Nodes 0 and 1 share package 0, nodes 2 and 3 package 1; two workers
  // each. The first hub goes to node 0, the next to the other package.
  std::vector<uint32_t> nodes;
  for (int i = 0; i < 8; ++i) {
    token hub_job{i};
    hub_job.set_last_worker(resumable::new_hub);
    auto* w = c.placement_of(&hub_job, nullptr).target;
    nodes.push_back(w != nullptr ? w->place->numa_node : 0);
    EXPECT_EQ(hub_job.last_worker(), resumable::never_ran) << "only its first start is spread";
  }
  EXPECT_EQ(nodes, (std::vector<uint32_t>{0, 2, 1, 3, 0, 2, 1, 3}));
}

// -- placement, with running workers ------------------------------------------

struct where {
  std::mutex mtx;
  std::vector<std::thread::id> ids;
  void add() {
    std::lock_guard guard{mtx};
    ids.push_back(std::this_thread::get_id());
  }
};

struct locality_config : actor_system_config {
  locality_config(const char* topology, size_t workers, locality_placement placement) {
    scheduler.policy = "locality";
    scheduler.topology = topology;
    scheduler.max_threads = workers;
    scheduler.placement = placement;
  }
};

TEST(locality_placement, work_placed_on_a_worker_runs_even_while_two_actors_keep_it_busy) {
  // One worker: no thief. Two actors ping-pong through its slot for as long
  // as the test runs; a request to a third actor placed on the same worker
  // must still be served.
  locality_config cfg{"numa:1 core:1 pu:1", 1, locality_placement::affinity};
  actor_system sys{cfg};
  std::atomic<bool> stop{false};
  auto bouncer = [&stop](event_based_actor* self) -> behavior {
    return {[self, &stop](actor other) {
      if (!stop.load())
        self->send(other, actor{self->self_handle()});
    }};
  };
  auto a = sys.spawn(bouncer);
  auto b = sys.spawn(bouncer);
  auto echo = sys.spawn([](event_based_actor*) -> behavior {
    return {[](int x) { return x + 1; }};
  });
  scoped_actor self{sys};
  int got = 0;
  self->request(echo, test::patience, 1).receive([&](int x) { got = x; }, [](error&) {});
  ASSERT_EQ(got, 2); // The echo has run once: its worker is now known.
  self->send(a, b);
  self->request(echo, test::patience, 2)
    .receive([&](int x) { got = x; }, [](error& err) { FAIL() << to_string(err); });
  stop.store(true);
  EXPECT_EQ(got, 3);
}

TEST(locality_placement, affinity_keeps_an_actor_whose_last_worker_is_parked_on_the_senders) {
  // Two workers, one hub on each: the first (the sender) keeps its worker
  // busy until the other worker, the receiver's last, has parked; then it
  // sends. Waking the parked worker for the receiver would cost more than
  // its cached state saves, so the receiver runs on the sender's worker.
  where receiver_ran;
  std::atomic<bool> receiver_started{false};
  std::atomic<bool> go{false};
  std::thread::id sender_thread;
  std::atomic<bool> sender_started{false};
  locality_config cfg{"numa:2 core:1 pu:1", 2, locality_placement::affinity};
  actor_system sys{cfg};
  auto receiver = sys.spawn<hub>([&](event_based_actor*) -> behavior {
    receiver_ran.add();
    receiver_started.store(true);
    return {[&](int) { receiver_ran.add(); }};
  });
  ASSERT_TRUE(test::eventually([&] { return receiver_started.load(); }));
  sys.spawn<hub>([&, receiver](event_based_actor* self) -> behavior {
    sender_thread = std::this_thread::get_id();
    sender_started.store(true);
    test::spin_until([&] { return go.load(); });
    self->send(receiver, 1);
    self->quit();
    return {};
  });
  ASSERT_TRUE(test::eventually([&] { return sender_started.load(); }));
  // The sender's worker runs it: a worker blocked in the kernel now is the
  // receiver's.
  ASSERT_TRUE(test::eventually([&] {
    for (auto& w : sys.scheduler_stats())
      if (w.parks > w.wakeups)
        return true;
    return false;
  }));
  go.store(true);
  ASSERT_TRUE(test::eventually([&] {
    std::lock_guard guard{receiver_ran.mtx};
    return receiver_ran.ids.size() == 2;
  }));
  std::lock_guard guard{receiver_ran.mtx};
  ASSERT_NE(receiver_ran.ids[0], sender_thread) << "the hubs share a worker";
  EXPECT_EQ(receiver_ran.ids[1], sender_thread);
}

TEST(locality_placement, the_policy_refuses_an_idle_mode_other_than_adaptive) {
  locality_config cfg{"numa:2 core:1 pu:1", 2, locality_placement::local};
  cfg.scheduler.idle_mode = idle_mode::event;
  try {
    actor_system sys{cfg};
    FAIL() << "no error";
  } catch (const std::invalid_argument& ex) {
    EXPECT_NE(std::string{ex.what()}.find("troupe.scheduler.idle-mode"), std::string::npos)
      << ex.what();
  }
}

TEST(locality_placement, hubs_start_on_different_numa_nodes) {
  locality_config cfg{"numa:4 core:1 pu:1", 4, locality_placement::local};
  actor_system sys{cfg};
  // On a synthetic topology worker i is core i, node i: its thread is what
  // tells the node, so each hub reports its worker's thread.
  constexpr int hubs = 4;
  where seen;
  std::atomic<int> started{0};
  for (int i = 0; i < hubs; ++i)
    sys.spawn<hub>([&](event_based_actor* self) -> behavior {
      seen.add();
      started.fetch_add(1);
      self->quit();
      return {};
    });
  test::eventually([&] { return started.load() >= hubs; });
  ASSERT_EQ(started.load(), hubs);
  std::set<std::thread::id> threads(seen.ids.begin(), seen.ids.end());
  // Each starts where it was placed: thieves leave an idle worker's
  // affinity queue alone, even one whose thread has not started yet.
  EXPECT_EQ(threads.size(), 4u);
}

TEST(locality_placement, stats_count_steals_by_level_and_name_the_policy) {
  locality_config cfg{two_packages, 8, locality_placement::local};
  actor_system sys{cfg};
  EXPECT_STREQ(sys.scheduler().name(), "locality");
  // Fan work out from one actor so that thieves find it.
  std::atomic<int> done{0};
  constexpr int jobs = 2000;
  sys.spawn([&](event_based_actor* self) {
    for (int i = 0; i < jobs; ++i)
      self->spawn([&](event_based_actor* child) {
        volatile double x = 1;
        for (int k = 0; k < 2000; ++k)
          x = x * 1.0000001;
        done.fetch_add(1);
        child->quit();
      });
    self->quit();
  });
  test::eventually([&] { return done.load() >= jobs; });
  ASSERT_EQ(done.load(), jobs);
  uint64_t steals = 0, by_level = 0;
  for (auto& s : sys.scheduler_stats()) {
    ASSERT_EQ(s.steals_by_level.size(), 3u);
    steals += s.steals;
    for (auto n : s.steals_by_level)
      by_level += n;
  }
  EXPECT_GT(steals, 0u) << "the children never left the spawner's worker";
  EXPECT_EQ(by_level, steals);
}

TEST(locality_placement, work_stealing_reports_no_levels) {
  actor_system_config cfg;
  cfg.scheduler.max_threads = 2;
  actor_system sys{cfg};
  for (auto& s : sys.scheduler_stats())
    EXPECT_TRUE(s.steals_by_level.empty());
}

// -- configuration -------------------------------------------------------------

TEST(locality_config, the_keys_parse_and_bad_values_name_the_key) {
  actor_system_config cfg;
  auto err = cfg.parse({"--troupe.scheduler.policy=locality",
                        "--troupe.scheduler.topology=numa:2 core:2 pu:1",
                        "--troupe.scheduler.placement=affinity"});
  EXPECT_FALSE(err) << to_string(err);
  EXPECT_EQ(cfg.scheduler.policy, "locality");
  EXPECT_EQ(cfg.scheduler.topology, "numa:2 core:2 pu:1");
  EXPECT_EQ(cfg.scheduler.placement, locality_placement::affinity);

  actor_system_config bad_topology;
  err = bad_topology.parse({"--troupe.scheduler.topology=core:banana"});
  ASSERT_TRUE(err);
  EXPECT_NE(to_string(err).find("troupe.scheduler.topology"), std::string::npos)
    << to_string(err);
  EXPECT_EQ(bad_topology.scheduler.topology, "");

  actor_system_config bad_placement;
  err = bad_placement.parse({"--troupe.scheduler.placement=nearby"});
  ASSERT_TRUE(err);
  EXPECT_NE(to_string(err).find("troupe.scheduler.placement"), std::string::npos)
    << to_string(err);
  EXPECT_NE(to_string(err).find("local, affinity"), std::string::npos) << to_string(err);
}

TEST(locality_config, workers_are_pinned_where_the_cores_do_not_share_one_cache) {
  auto pinned = [](const char* topology, size_t workers, bool pin_workers) {
    auto cfg = synthetic(topology, workers);
    cfg.pin_workers = pin_workers;
    return detail::stealing::locality_state{cfg}.pinned;
  };
  EXPECT_FALSE(pinned("l3:1 core:4 pu:1", 4, false)) << "one shared cache: the kernel places";
  EXPECT_TRUE(pinned("l3:1 core:4 pu:1", 4, true)) << "pin-workers pins anyway";
  EXPECT_TRUE(pinned("l3:2 core:2 pu:1", 4, false)) << "two caches: a move loses data";
  EXPECT_TRUE(pinned("numa:2 core:2 pu:1", 4, false));
  EXPECT_TRUE(pinned("l3:1 core:2 pu:1", 4, false)) << "two workers share a core";
}

TEST(locality_config, this_machines_topology_runs_actors) {
  locality_config cfg{"", 2, locality_placement::local};
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto echo = sys.spawn([](event_based_actor*) -> behavior {
    return {[](int x) { return x + 1; }};
  });
  int got = 0;
  self->request(echo, test::patience, 41).receive([&](int x) { got = x; },
                                                  [](error& err) { FAIL() << to_string(err); });
  EXPECT_EQ(got, 42);
}

} // namespace
