// actor_system::shutdown and the destructor's wait: it waits while anything
// inside the system can still make an actor run (a message in flight, a
// timer, a blocking receive with a timeout, an actor that sends itself
// messages), then one grace period for a message from outside, then stops
// what is left; nothing is dropped without being counted. The same rule,
// step by step on the deterministic fixture: activity_test.cpp.

#include "troupe/actor_system.hpp"

#include "troupe/anon_mail.hpp"
#include "troupe/blocking_actor.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/logger.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/stateful_actor.hpp"

#include "support/policies.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::patience;
using troupe::test::policy_config;

namespace {

class shutdowns : public troupe::test::policy_test {
protected:
  shutdowns() {
    cfg.shutdown.grace_period = 50ms;
  }

  policy_config cfg{GetParam()};
};

/// Collects the warnings logged while it lives.
class log_capture {
public:
  log_capture() {
    previous_ = logger::set_sink([this](log_level level, std::string_view line) {
      if (level != log_level::warning)
        return;
      std::lock_guard guard{mtx_};
      lines_.emplace_back(line);
    });
  }

  ~log_capture() {
    logger::set_sink(previous_);
  }

  std::string warnings() const {
    std::lock_guard guard{mtx_};
    std::string out;
    for (auto& x : lines_)
      out += x + "\n";
    return out;
  }

private:
  mutable std::mutex mtx_;
  std::vector<std::string> lines_;
  logger::sink_type previous_;
};

struct peer_state {
  actor peer;
  std::shared_ptr<std::atomic<int>> released;
  ~peer_state() {
    if (released)
      ++*released;
  }
};

TEST_P(shutdowns, two_actors_holding_each_other_in_state_are_stopped_after_the_grace_period) {
  auto released = std::make_shared<std::atomic<int>>(0);
  {
    actor_system sys{cfg};
    auto make = [&] {
      return sys.spawn([released](stateful_actor<peer_state>* self) {
        self->state.released = released;
        return behavior{[self](actor other) { self->state.peer = std::move(other); }};
      });
    };
    auto a = make();
    auto b = make();
    scoped_actor self{sys};
    self->send(a, b);
    self->send(b, a);
  }
  EXPECT_EQ(released->load(), 2);
}

TEST_P(shutdowns, an_actor_whose_handle_outlives_the_system_is_stopped_and_released_later) {
  std::optional<actor> kept;
  {
    actor_system sys{cfg};
    kept = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  }
  EXPECT_TRUE(actor_cast_raw(*kept)->terminated());
  EXPECT_EQ(actor_cast_raw(*kept)->fail_state(), exit_reason::system_shutdown);
  kept.reset(); // releases the actor after the system is gone
}

TEST_P(shutdowns, a_blocking_receive_gives_its_error_handler_system_shutdown) {
  std::promise<error> seen;
  {
    actor_system sys{cfg};
    sys.spawn([&seen](blocking_actor* self) {
      self->receive([](int) {}, [&seen](const error& err) { seen.set_value(err); });
    });
  }
  auto result = seen.get_future();
  ASSERT_EQ(result.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(result.get(), errc::system_shutdown);
}

TEST_P(shutdowns, a_blocking_receive_without_error_handler_ends_the_actor) {
  auto reached = std::make_shared<std::atomic<bool>>(false);
  {
    actor_system sys{cfg};
    sys.spawn([reached](blocking_actor* self) {
      self->receive([](int) {});
      *reached = true; // never: receive throws actor_exited
    });
  }
  EXPECT_FALSE(reached->load());
}

TEST_P(shutdowns, a_pending_blocking_request_gets_system_shutdown) {
  std::promise<error> seen;
  {
    actor_system sys{cfg};
    // Keeps every int request in its stash, unanswered.
    auto holder = sys.spawn([](event_based_actor* self) {
      self->set_default_handler(skip);
      return behavior{[](const std::string&) {}};
    });
    sys.spawn([&seen, holder](blocking_actor* self) {
      self->request(holder, infinite, 1)
        .receive([](int) {}, [&seen](const error& err) { seen.set_value(err); });
    });
  }
  auto result = seen.get_future();
  ASSERT_EQ(result.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(result.get(), errc::system_shutdown);
}

TEST_P(shutdowns, a_request_queued_at_an_actor_stopped_by_shutdown_gets_system_shutdown) {
  actor_system sys{cfg};
  auto stashed = std::make_shared<std::atomic<bool>>(false);
  auto holder = sys.spawn([stashed](event_based_actor* self) {
    self->set_default_handler([stashed](scheduled_actor*, message&) {
      *stashed = true;
      return detail::handler_result{detail::result_kind::skip, {}, {}};
    });
    return behavior{[](const std::string&) {}};
  });
  scoped_actor self{sys};
  auto pending = self->request(holder, patience, 1);
  while (!*stashed)
    std::this_thread::sleep_for(1ms);
  // The exit shutdown() sends, here to this one actor only.
  anon_send_exit(holder, exit_reason::system_shutdown);
  error seen;
  pending.receive([](int) { ADD_FAILURE() << "an answer"; }, [&](const error& err) { seen = err; });
  EXPECT_EQ(seen, errc::system_shutdown);
}

TEST_P(shutdowns, an_actor_sending_to_itself_forever_is_reported_and_stopped_by_shutdown) {
  actor_system sys{cfg};
  sys.spawn([](event_based_actor* self) {
    self->send(self->self_handle(), 0);
    return behavior{[self](int n) { self->send(self->self_handle(), n + 1); }};
  });
  // It keeps running, so the destructor would wait for it; the report says
  // what it does, and shutdown() stops it.
  std::string report;
  while (report.find("sent itself") == std::string::npos) {
    auto lines = sys.live_actor_report();
    report = lines.empty() ? "" : lines.front();
  }
  EXPECT_NE(report.find("(event-based actor)"), std::string::npos) << report;
  sys.shutdown();
  EXPECT_TRUE(sys.await_all_actors_done(patience));
}

TEST_P(shutdowns, an_actor_that_still_runs_is_waited_for_past_the_grace_period) {
  log_capture log;
  auto finished = std::make_shared<std::atomic<bool>>(false);
  // A grace period no preemption of a loaded machine outlasts: a worker held
  // up for all of it would look like an actor that stopped running.
  cfg.shutdown.grace_period = 200ms;
  cfg.shutdown.report_interval = 50ms;
  {
    actor_system sys{cfg};
    // Works for some 3 grace periods, one short step at a time, then quits.
    sys.spawn([finished](event_based_actor* self) {
      auto until = std::chrono::steady_clock::now() + 600ms;
      self->send(self->self_handle(), 0);
      return behavior{[self, finished, until](int n) {
        std::this_thread::sleep_for(1ms);
        if (std::chrono::steady_clock::now() < until) {
          self->send(self->self_handle(), n + 1);
          return;
        }
        *finished = true;
        self->quit();
      }};
    });
  }
  EXPECT_TRUE(finished->load());
  auto text = log.warnings();
  EXPECT_NE(text.find("can still make one run"), std::string::npos) << text;
  EXPECT_NE(text.find("sent itself"), std::string::npos) << text;
  EXPECT_EQ(text.find("stopping them"), std::string::npos) << text;
}

TEST_P(shutdowns, idle_actors_are_stopped_and_reported_after_the_grace_period) {
  log_capture log;
  std::optional<actor> kept; // outlives the system, as a handle in a static does
  {
    actor_system sys{cfg};
    kept = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  }
  kept.reset();
  auto text = log.warnings();
  EXPECT_NE(text.find("none has run for the grace period"), std::string::npos) << text;
  EXPECT_NE(text.find("(event-based actor): 0 queued messages"), std::string::npos) << text;
}

TEST_P(shutdowns, an_actor_trapping_exits_is_stopped_too) {
  actor_system sys{cfg};
  auto a = sys.spawn([](event_based_actor* self) {
    self->set_exit_handler([](exit_msg&) {});
    return behavior{[](int x) { return x; }};
  });
  sys.shutdown();
  EXPECT_TRUE(sys.await_all_actors_done(patience));
  EXPECT_EQ(actor_cast_raw(a)->fail_state(), exit_reason::system_shutdown);
}

TEST_P(shutdowns, a_delayed_message_dropped_by_shutdown_is_a_dead_letter) {
  actor_system sys{cfg};
  {
    auto a = sys.spawn([] { return behavior{[](int) {}}; });
    scoped_actor self{sys};
    self->delayed_send(a, 30s, 1);
  }
  auto before = sys.dead_letters();
  sys.shutdown();
  EXPECT_EQ(sys.dead_letters(), before + 1);
  EXPECT_TRUE(sys.await_all_actors_done(patience));
}

TEST_P(shutdowns, the_destructor_waits_for_a_delayed_message_past_the_grace_period) {
  auto handled = std::make_shared<std::atomic<bool>>(false);
  {
    actor_system sys{cfg};
    auto a = sys.spawn([handled] { return behavior{[handled](int) { *handled = true; }}; });
    // Six grace periods away, and the actor has nothing else to do.
    anon_mail(1).delay(300ms).send(a);
  }
  EXPECT_TRUE(handled->load());
}

TEST_P(shutdowns, a_backlog_of_slow_messages_is_handled_in_full) {
  auto handled = std::make_shared<std::atomic<int>>(0);
  {
    actor_system sys{cfg};
    auto a = sys.spawn([handled] {
      return behavior{[handled](int) {
        std::this_thread::sleep_for(20ms);
        ++*handled;
      }};
    });
    // Some 8 grace periods of work, all queued at once.
    for (int i = 0; i < 20; ++i)
      anon_mail(i).send(a);
  }
  EXPECT_EQ(handled->load(), 20);
}

TEST_P(shutdowns, a_handler_that_runs_longer_than_the_grace_period_is_not_cut_short) {
  auto second = std::make_shared<std::atomic<bool>>(false);
  {
    actor_system sys{cfg};
    auto a = sys.spawn([second](event_based_actor* self) {
      return behavior{[self, second](int n) {
        if (n == 2) {
          *second = true;
          return;
        }
        // Nothing queued meanwhile; what it sends after would be dropped
        // by a shutdown during the handler.
        std::this_thread::sleep_for(300ms);
        self->mail(2).send(self);
      }};
    });
    anon_mail(1).send(a);
  }
  EXPECT_TRUE(second->load());
}

TEST_P(shutdowns, a_request_times_out_before_the_system_ends) {
  auto seen = std::make_shared<std::promise<error>>();
  {
    actor_system sys{cfg};
    auto holder = sys.spawn([] { return behavior{[](int) { return delegated<int>{}; }}; });
    sys.spawn([holder, seen](event_based_actor* self) {
      self->request(holder, 300ms, 1).then([](int) {}, [seen](error& err) {
        seen->set_value(err);
      });
      return behavior{[](const std::string&) {}};
    });
  }
  auto result = seen->get_future();
  ASSERT_EQ(result.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(result.get(), errc::request_timeout);
}

TEST_P(shutdowns, a_blocking_receive_with_a_timeout_times_out_before_the_system_ends) {
  auto timed_out = std::make_shared<std::atomic<bool>>(false);
  {
    actor_system sys{cfg};
    sys.spawn([timed_out](blocking_actor* self) {
      self->receive([](int) {}, after(300ms) >> [timed_out] { *timed_out = true; });
    });
  }
  EXPECT_TRUE(timed_out->load());
}

TEST_P(shutdowns, an_actor_sending_itself_messages_keeps_the_system_until_shutdown_with_grace) {
  log_capture log;
  cfg.shutdown.report_interval = 20ms;
  std::thread ender;
  std::optional<actor> looper;
  {
    actor_system sys{cfg};
    looper = sys.spawn([](event_based_actor* self) {
      self->mail(0).send(self);
      return behavior{[self](int n) { self->mail(n + 1).send(self); }};
    });
    // Ends it once the destructor said what it waits for.
    ender = std::thread{[&sys, &log] {
      troupe::test::eventually(
        [&] { return log.warnings().find("sent itself") != std::string::npos; });
      sys.shutdown(20ms);
    }};
  }
  ender.join();
  auto text = log.warnings();
  EXPECT_NE(text.find("actor#" + std::to_string(looper->id()) + " (event-based actor)"),
            std::string::npos)
    << text;
  EXPECT_EQ(actor_cast_raw(*looper)->fail_state(), exit_reason::system_shutdown);
  looper.reset();
}

TEST_P(shutdowns, a_system_whose_actors_finish_in_time_reports_nothing) {
  log_capture log;
  cfg.shutdown.grace_period = std::chrono::duration_cast<std::chrono::milliseconds>(patience);
  {
    actor_system sys{cfg};
    auto a = sys.spawn([] { return behavior{[](int x) { return x; }}; });
    scoped_actor self{sys};
    self->request(a, patience, 1).receive([](int) {}, [](const error&) { ADD_FAILURE(); });
  }
  EXPECT_EQ(log.warnings(), "");
}

TEST_P(shutdowns, a_second_shutdown_sends_no_second_exit) {
  actor_system sys{cfg};
  std::promise<void> stopped;
  // Still running, and listed, when shutdown is called again.
  sys.spawn([&stopped](blocking_actor* self) {
    self->receive([](int) {}, [&stopped](const error&) { stopped.set_value(); });
    std::this_thread::sleep_for(50ms);
  });
  sys.shutdown();
  stopped.get_future().wait();
  auto before = sys.dead_letters();
  sys.shutdown();
  EXPECT_TRUE(sys.await_all_actors_done(patience));
  // A second exit would have been left in its mailbox: a dead letter.
  EXPECT_EQ(sys.dead_letters(), before);
}

TEST_P(shutdowns, an_actor_spawned_after_shutdown_is_stopped_by_the_destructor) {
  std::optional<actor> late;
  {
    actor_system sys{cfg};
    sys.shutdown();
    late = sys.spawn([] { return behavior{[](int x) { return x; }}; });
  }
  EXPECT_EQ(actor_cast_raw(*late)->fail_state(), exit_reason::system_shutdown);
  late.reset();
}

TROUPE_TEST_EVERY_POLICY(shutdowns);

TEST(shutdown, a_message_from_outside_within_the_grace_period_is_handled) {
  actor_system_config cfg;
  // Far longer than the sender's pause: the message comes within it even
  // on a loaded machine.
  cfg.shutdown.grace_period = 2s;
  auto handled = std::make_shared<std::atomic<int>>(0);
  std::thread outside;
  {
    actor_system sys{cfg};
    auto a = sys.spawn([handled] { return behavior{[handled](int) { ++*handled; }}; });
    // A handle outside the system, which the destructor can't see.
    outside = std::thread{[a] {
      std::this_thread::sleep_for(100ms);
      anon_mail(1).send(a);
    }};
  }
  outside.join();
  EXPECT_EQ(handled->load(), 1);
}

} // namespace
