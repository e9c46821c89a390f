#include "troupe/detail/timer_service.hpp"

#include "../support/unstartable_threads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <latch>
#include <memory>
#include <numeric>
#include <random>
#include <semaphore>
#include <string_view>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

using namespace std::chrono_literals;
using troupe::detail::invalid_timer_id;
using troupe::detail::timer_id;
using troupe::detail::timer_service;

namespace {

using clock_type = timer_service::clock;

/// An action that counts its runs and the destruction of its one live copy.
struct probe {
  std::atomic<int>* runs;
  std::atomic<int>* destroyed;

  probe(std::atomic<int>& r, std::atomic<int>& d) : runs(&r), destroyed(&d) {}
  probe(probe&& other) noexcept
    : runs(std::exchange(other.runs, nullptr)),
      destroyed(std::exchange(other.destroyed, nullptr)) {}
  probe& operator=(probe&&) = delete;
  ~probe() {
    if (destroyed != nullptr)
      destroyed->fetch_add(1);
  }
  void operator()() {
    runs->fetch_add(1);
  }
};

/// Far enough away that no test ever reaches it.
clock_type::time_point far_future() {
  return clock_type::now() + 1h;
}

} // namespace

TEST(timer_service, actions_run_in_deadline_order_and_never_before_their_deadline) {
  constexpr int n = 20;
  timer_service svc;
  std::vector<int> offsets(n);
  std::iota(offsets.begin(), offsets.end(), 0);
  std::shuffle(offsets.begin(), offsets.end(), std::mt19937{42});
  auto base = clock_type::now() + 5ms;
  std::vector<int> order; // written on the timer thread only
  std::vector<bool> early(n, false);
  std::latch done{n};
  for (auto k : offsets) {
    auto deadline = base + k * 1ms;
    svc.schedule(deadline, [&, k, deadline] {
      early[k] = clock_type::now() < deadline;
      order.push_back(k);
      done.count_down();
    });
  }
  // Started once all are scheduled: a test thread held up for the 5 ms of
  // slack would otherwise see earlier deadlines inserted after later ones ran.
  svc.start();
  done.wait();
  std::vector<int> sorted(n);
  std::iota(sorted.begin(), sorted.end(), 0);
  EXPECT_EQ(order, sorted);
  EXPECT_EQ(std::count(early.begin(), early.end(), true), 0);
  EXPECT_EQ(svc.pending(), 0u);
}

TEST(timer_service, timers_with_equal_deadlines_run_in_the_order_they_were_scheduled) {
  constexpr int n = 10;
  timer_service svc;
  auto deadline = clock_type::now() + 2ms;
  std::vector<int> order;
  std::latch done{n};
  for (int i = 0; i < n; ++i)
    svc.schedule(deadline, [&, i] {
      order.push_back(i);
      done.count_down();
    });
  svc.start();
  done.wait();
  std::vector<int> expected(n);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(order, expected);
}

TEST(timer_service, a_timer_scheduled_earlier_than_the_one_being_waited_for_wakes_the_thread) {
  timer_service svc;
  svc.start();
  std::atomic<int> runs{0}, destroyed{0};
  svc.schedule(far_future(), probe{runs, destroyed});
  std::binary_semaphore ran{0};
  svc.schedule(clock_type::now(), [&] { ran.release(); });
  ran.acquire(); // hangs (and times out) if the thread kept sleeping
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(svc.pending(), 1u);
}

TEST(timer_service, timers_scheduled_before_start_run_once_it_starts) {
  timer_service svc;
  std::atomic<int> runs{0}, destroyed{0};
  std::binary_semaphore ran{0};
  svc.schedule(clock_type::now() - 1s, [&] { ran.release(); });
  svc.schedule(clock_type::now(), probe{runs, destroyed});
  EXPECT_EQ(svc.pending(), 2u);
  EXPECT_EQ(runs.load(), 0) << "no thread runs them yet";
  svc.start();
  svc.start(); // a second start changes nothing
  ran.acquire();
  svc.stop();
  EXPECT_EQ(runs.load() + destroyed.load(), 2) << "ran, or destroyed by stop";
}

TEST(timer_service, a_cancelled_action_is_destroyed_without_running) {
  timer_service svc;
  svc.start();
  std::atomic<int> runs{0}, destroyed{0};
  auto id = svc.schedule(far_future(), probe{runs, destroyed});
  EXPECT_NE(id, invalid_timer_id);
  EXPECT_EQ(svc.pending(), 1u);
  EXPECT_TRUE(svc.cancel(id));
  EXPECT_EQ(destroyed.load(), 1) << "destroyed before cancel returns";
  EXPECT_EQ(svc.pending(), 0u);
  EXPECT_FALSE(svc.cancel(id)) << "cancelling twice";
  svc.stop();
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(destroyed.load(), 1);
}

TEST(timer_service, cancel_returns_false_once_the_action_ran) {
  timer_service svc;
  svc.start();
  std::binary_semaphore ran{0};
  auto id = svc.schedule(clock_type::now(), [&] { ran.release(); });
  ran.acquire();
  EXPECT_FALSE(svc.cancel(id));
}

TEST(timer_service, cancel_of_an_id_it_never_gave_out_returns_false) {
  timer_service svc;
  EXPECT_FALSE(svc.cancel(invalid_timer_id));
  EXPECT_FALSE(svc.cancel(12345));
  auto id = svc.schedule(far_future(), [] {});
  EXPECT_FALSE(svc.cancel(id + 1));
  EXPECT_FALSE(svc.cancel(id ^ (uint64_t{1} << 40)));
  EXPECT_EQ(svc.pending(), 1u);
}

TEST(timer_service, a_stale_id_does_not_cancel_the_timer_that_reused_its_slot) {
  timer_service svc;
  std::atomic<int> runs{0}, destroyed{0};
  auto first = svc.schedule(far_future(), [] {});
  ASSERT_TRUE(svc.cancel(first));
  auto second = svc.schedule(far_future(), probe{runs, destroyed});
  EXPECT_NE(first, second);
  EXPECT_FALSE(svc.cancel(first));
  EXPECT_EQ(svc.pending(), 1u);
  EXPECT_EQ(destroyed.load(), 0);
  EXPECT_TRUE(svc.cancel(second));
  EXPECT_EQ(destroyed.load(), 1);
}

TEST(timer_service, cancelling_timers_anywhere_keeps_the_others_in_order) {
  // Random deadlines (with ties) and random cancellations exercise removal
  // from the middle of the heap; the survivors must still run sorted by
  // deadline, ties in schedule order.
  constexpr int n = 500;
  timer_service svc;
  std::mt19937 rng{7};
  auto base = clock_type::now() + 1ms;
  std::vector<clock_type::time_point> deadlines(n);
  std::vector<timer_id> ids(n);
  std::vector<int> order;
  for (int i = 0; i < n; ++i) {
    deadlines[i] = base + std::chrono::microseconds(rng() % 200) * 10;
    ids[i] = svc.schedule(deadlines[i], [&, i] { order.push_back(i); });
  }
  std::vector<int> expected;
  for (int i = 0; i < n; ++i)
    if (rng() % 2 == 0)
      EXPECT_TRUE(svc.cancel(ids[i]));
    else
      expected.push_back(i);
  std::stable_sort(expected.begin(), expected.end(),
                   [&](int x, int y) { return deadlines[x] < deadlines[y]; });
  std::binary_semaphore last_ran{0};
  svc.schedule(base + 2ms, [&] { last_ran.release(); }); // after all
  ASSERT_EQ(svc.pending(), expected.size() + 1);
  svc.start();
  last_ran.acquire();
  EXPECT_EQ(order, expected);
}

TEST(timer_service, stop_destroys_pending_actions_without_running_them) {
  std::atomic<int> runs{0}, destroyed{0};
  timer_service svc;
  svc.start();
  for (int i = 0; i < 3; ++i)
    svc.schedule(far_future(), probe{runs, destroyed});
  svc.stop();
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(destroyed.load(), 3);
  EXPECT_EQ(svc.pending(), 0u);
  svc.stop(); // idempotent
}

TEST(timer_service, schedule_after_stop_returns_an_invalid_id_and_destroys_the_action) {
  std::atomic<int> runs{0}, destroyed{0};
  timer_service svc;
  svc.start();
  svc.stop();
  EXPECT_EQ(svc.schedule(clock_type::now(), probe{runs, destroyed}), invalid_timer_id);
  EXPECT_EQ(destroyed.load(), 1);
  EXPECT_EQ(runs.load(), 0);
  svc.start(); // a stopped service stays stopped
  EXPECT_EQ(svc.schedule(clock_type::now(), [] {}), invalid_timer_id);
}

TEST(timer_service, the_destructor_destroys_pending_actions_of_a_service_never_started) {
  std::atomic<int> runs{0}, destroyed{0};
  {
    timer_service svc;
    svc.schedule(clock_type::now(), probe{runs, destroyed});
  }
  EXPECT_EQ(runs.load(), 0);
  EXPECT_EQ(destroyed.load(), 1);
}

TEST(timer_service, stop_waits_for_an_action_that_is_running) {
  timer_service svc;
  svc.start();
  std::binary_semaphore started{0}, go{0};
  std::atomic<bool> finished{false};
  std::atomic<bool> stop_returned{false};
  svc.schedule(clock_type::now(), [&] {
    started.release();
    go.acquire();
    finished = true;
  });
  started.acquire();
  std::thread stopper{[&] {
    svc.stop();
    stop_returned = true;
  }};
  for (int i = 0; i < 100; ++i)
    std::this_thread::yield();
  EXPECT_FALSE(stop_returned.load()) << "stop() returned while an action ran";
  go.release();
  stopper.join();
  EXPECT_TRUE(finished.load());
}

TEST(timer_service, an_action_that_stops_the_clock_while_another_thread_stops_it_returns) {
  timer_service svc;
  svc.start();
  std::binary_semaphore started{0};
  std::atomic<bool> action_returned{false};
  svc.schedule(clock_type::now(), [&] {
    started.release();
    // Long enough for the other stop() to wait for this action.
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
    svc.stop();
    action_returned = true;
  });
  started.acquire();
  svc.stop(); // joins the timer thread, which runs the action's stop()
  EXPECT_TRUE(action_returned.load());
}

TEST(timer_service, an_action_can_schedule_and_cancel_timers) {
  timer_service svc;
  svc.start();
  std::atomic<int> runs{0}, destroyed{0};
  auto victim = svc.schedule(far_future(), probe{runs, destroyed});
  std::binary_semaphore second_ran{0};
  bool cancelled = false;
  svc.schedule(clock_type::now(), [&] {
    cancelled = svc.cancel(victim);
    svc.schedule(clock_type::now(), [&] { second_ran.release(); });
  });
  second_ran.acquire();
  EXPECT_TRUE(cancelled);
  EXPECT_EQ(destroyed.load(), 1);
  EXPECT_EQ(runs.load(), 0);
}

TEST(timer_service, an_action_may_stop_the_service) {
  std::binary_semaphore stopped{0};
  std::atomic<int> runs{0}, destroyed{0};
  {
    timer_service svc;
    svc.start();
    svc.schedule(far_future(), probe{runs, destroyed});
    svc.schedule(clock_type::now(), [&] {
      svc.stop(); // must not wait for its own thread
      stopped.release();
    });
    stopped.acquire();
    EXPECT_EQ(destroyed.load(), 1);
    EXPECT_EQ(svc.schedule(clock_type::now(), [] {}), invalid_timer_id);
  } // the destructor joins the thread
  EXPECT_EQ(runs.load(), 0);
}

TEST(timer_service, move_only_actions_are_accepted) {
  timer_service svc;
  svc.start();
  auto value = std::make_unique<int>(7);
  std::binary_semaphore ran{0};
  int seen = 0;
  svc.schedule(clock_type::now(), [&, v = std::move(value)] {
    seen = *v;
    ran.release();
  });
  ran.acquire();
  EXPECT_EQ(seen, 7);
}

TEST(timer_service, many_threads_schedule_and_cancel_concurrently) {
  constexpr int num_threads = 4;
  constexpr int per_thread = 5'000;
  constexpr int total = num_threads * per_thread;
  timer_service svc;
  svc.start();
  // Per timer: how often it ran (timer thread) and whether cancel() won.
  std::vector<std::atomic<int>> ran(total);
  std::vector<std::atomic<int>> early(total);
  std::vector<char> cancelled(total, 0);
  std::atomic<int> destroyed{0};
  std::atomic<int> runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < num_threads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      std::vector<std::pair<int, timer_id>> mine;
      for (int i = 0; i < per_thread; ++i) {
        int k = t * per_thread + i;
        auto deadline = clock_type::now() + std::chrono::microseconds(rng() % 3'000);
        struct action {
          probe p;
          std::atomic<int>* ran;
          std::atomic<int>* early;
          clock_type::time_point deadline;
          void operator()() {
            if (clock_type::now() < deadline)
              early->fetch_add(1);
            ran->fetch_add(1);
            p();
            p.runs->notify_all();
          }
        };
        auto id = svc.schedule(deadline, action{probe{runs, destroyed}, &ran[k],
                                                &early[k], deadline});
        ASSERT_NE(id, invalid_timer_id);
        mine.emplace_back(k, id);
        // Cancel a random earlier timer of ours now and then; some of them
        // are due or running already.
        if (rng() % 2 == 0) {
          auto& [victim, victim_id] = mine[rng() % mine.size()];
          if (victim_id != invalid_timer_id) {
            cancelled[victim] = svc.cancel(victim_id) ? 1 : 0;
            victim_id = invalid_timer_id;
          }
        }
      }
    });
  for (auto& t : threads)
    t.join();
  int num_cancelled = static_cast<int>(std::count(cancelled.begin(), cancelled.end(), 1));
  RecordProperty("cancelled", num_cancelled);
  // Every timer not cancelled runs; wait for all of them.
  for (auto n = runs.load(); n < total - num_cancelled; n = runs.load())
    runs.wait(n);
  svc.stop();
  EXPECT_EQ(runs.load(), total - num_cancelled);
  EXPECT_EQ(destroyed.load(), total);
  for (int k = 0; k < total; ++k) {
    EXPECT_EQ(ran[k].load(), cancelled[k] ? 0 : 1) << "timer " << k;
    EXPECT_EQ(early[k].load(), 0) << "timer " << k << " ran before its deadline";
  }
}

TEST(timer_service, a_timer_thread_that_cannot_start_is_a_system_error_naming_it) {
  troupe::detail::timer_service timers;
  std::atomic<bool> ran{false};
  timers.schedule(clock_type::now(), [&ran] { ran = true; });
  {
    troupe::test::unstartable_threads refuse;
    if (!refuse.active())
      GTEST_SKIP() << "threads still start under this build";
    try {
      timers.start();
      ADD_FAILURE() << "start() returned";
    } catch (const std::system_error& ex) {
      EXPECT_EQ(ex.code(), std::errc::resource_unavailable_try_again);
      EXPECT_TRUE(std::string_view{ex.what()}.starts_with("troupe: cannot start the timer thread"))
        << ex.what();
    }
  }
  // Nothing was started: a second start() runs the timer.
  timers.start();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{30};
  while (!ran && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  EXPECT_TRUE(ran);
}
