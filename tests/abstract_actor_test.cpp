#include "troupe/abstract_actor.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/scoped_actor.hpp"
#include "troupe/system_messages.hpp"

#include "support/actor_fixture.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <utility>

using namespace std::chrono_literals;
using namespace std::string_literals;
using namespace troupe;

using troupe::test::patience;

namespace {

/// Echoes ints; links to or unlinks from the actor it gets with "link" or
/// "unlink" (and answers true); quits with the error it gets.
behavior linker(event_based_actor* self) {
  return {
    [](int x) { return x; },
    [self](const std::string& what, const actor& other) {
      if (what == "link")
        self->link_to(other);
      else
        self->unlink_from(other);
      return true;
    },
    [self](const error& reason) { self->quit(reason); },
  };
}

/// An actor whose work outlives its mailbox: it holds its exit notice until
/// the test calls release_exit_notice(), which must come after held() (a
/// release before the hold sends nothing; terminated() turns true before
/// on_cleanup runs).
class holding_actor : public event_based_actor {
public:
  explicit holding_actor(actor_config& cfg) : event_based_actor(cfg) {
    may_hold_exit_notice_ = true;
  }

  behavior make_behavior() override {
    return {[this](const error& reason) { quit(reason); }};
  }

  void on_cleanup(const error& reason, execution_unit* ctx) override {
    event_based_actor::on_cleanup(reason, ctx);
    hold_exit_notice();
    held_.store(true, std::memory_order_release);
  }

  /// Any thread: true once the actor terminated and holds its notice.
  bool held() const noexcept {
    return held_.load(std::memory_order_acquire);
  }

private:
  std::atomic<bool> held_{false};
};

/// Waits until `a`, a holding_actor, holds its exit notice.
void await_held(const actor& a) {
  auto* raw = static_cast<holding_actor*>(actor_cast_raw(a));
  while (!raw->held())
    std::this_thread::sleep_for(1ms);
}

class actor_lifecycle : public troupe::test::actor_fixture {
protected:
  /// Collects `n` down_msg, by the ID of the actor that went down.
  std::map<actor_id, error> downs(size_t n) {
    std::map<actor_id, error> result;
    for (size_t i = 0; i < n; ++i) {
      auto x = next<down_msg>();
      result.emplace(x.source.id(), std::move(x.reason));
    }
    return result;
  }

  /// Sends an int round trip: true once `dest` handled all it got before.
  bool alive(const actor& dest) {
    bool answered = false;
    self->request(dest, patience, 1).receive([&](int) { answered = true; },
                                             [](const error&) {});
    return answered;
  }

  void link(const actor& x, const actor& y, const char* what = "link") {
    bool done = false;
    self->request(x, patience, std::string{what}, y)
      .receive([&](bool) { done = true; },
               [](const error& err) { ADD_FAILURE() << to_string(err); });
    ASSERT_TRUE(done);
  }
};

// -- monitors -------------------------------------------------------------------------

TEST_P(actor_lifecycle, a_monitor_gets_a_down_msg_with_the_exit_reason) {
  auto a = sys.spawn(linker);
  self->monitor(a);
  self->send(a, make_error(exit_reason::user_shutdown));
  auto down = next<down_msg>();
  EXPECT_TRUE(down.source == a.address());
  EXPECT_EQ(down.reason, exit_reason::user_shutdown);
}

TEST_P(actor_lifecycle, an_event_based_monitor_gets_the_down_msg_at_its_down_handler) {
  auto target = sys.spawn(linker);
  // Kept: a watcher without handles would be cleaned up as unreachable.
  auto watcher = sys.spawn(
    [r = reporter](event_based_actor* watcher, actor target) {
      watcher->monitor(target);
      watcher->set_down_handler([=](down_msg& x) {
        watcher->send(r, x.source == target.address(), x.reason);
        watcher->quit();
      });
      return behavior{[](int) {}};
    },
    target);
  // The watcher may monitor only after the target is gone: both orders
  // must give the down_msg.
  self->send(target, make_error(errc::runtime_error));
  bool from_target = false;
  error reason;
  self->receive(
    [&](bool b, error& err) {
      from_target = b;
      reason = std::move(err);
    },
    after(patience) >> [] { ADD_FAILURE() << "no down_msg reported"; });
  EXPECT_TRUE(from_target);
  EXPECT_EQ(reason, errc::runtime_error);
}

TEST_P(actor_lifecycle, monitoring_an_actor_that_already_terminated_gives_a_down_msg_at_once) {
  auto a = sys.spawn(linker);
  self->monitor(a);
  self->send(a, make_error(exit_reason::user_shutdown));
  ASSERT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
  ASSERT_TRUE(actor_cast_raw(a)->terminated());
  self->monitor(a);
  // Delivered by monitor() itself, before it returned.
  auto down = next<down_msg>();
  EXPECT_TRUE(down.source == a.address());
  EXPECT_EQ(down.reason, exit_reason::user_shutdown);
}

TEST_P(actor_lifecycle, demonitor_stops_the_down_msg) {
  auto a = sys.spawn(linker);
  self->monitor(a);
  self->demonitor(a);
  // A second observer that monitors after us: its report comes after our
  // down_msg would have been queued.
  // Kept: a watcher without handles would be cleaned up as unreachable.
  auto watcher = sys.spawn(
    [r = reporter](event_based_actor* watcher, actor target) {
      watcher->monitor(target);
      watcher->set_down_handler([=](down_msg&) {
        watcher->send(r, "watcher saw it"s);
        watcher->quit();
      });
      return behavior{[](int) {}};
    },
    a);
  ASSERT_TRUE(alive(a));
  self->send(a, make_error(exit_reason::user_shutdown));
  EXPECT_EQ(next<std::string>(), "watcher saw it");
  EXPECT_FALSE(has_queued<down_msg>());
}

// -- links ------------------------------------------------------------------------------

TEST_P(actor_lifecycle, a_link_makes_the_other_actor_exit_with_the_same_non_normal_reason) {
  auto a = sys.spawn(linker);
  auto b = sys.spawn(linker);
  self->monitor(a);
  self->monitor(b);
  link(a, b);
  self->send(b, make_error(exit_reason::user_shutdown));
  auto reasons = downs(2);
  EXPECT_EQ(reasons[a.id()], exit_reason::user_shutdown);
  EXPECT_EQ(reasons[b.id()], exit_reason::user_shutdown);
}

TEST_P(actor_lifecycle, links_work_in_both_directions) {
  auto a = sys.spawn(linker);
  auto b = sys.spawn(linker);
  self->monitor(a);
  link(a, b);
  self->send(a, make_error(errc::runtime_error));
  self->monitor(b);
  auto reasons = downs(2);
  EXPECT_EQ(reasons[a.id()], errc::runtime_error);
  EXPECT_EQ(reasons[b.id()], errc::runtime_error);
}

TEST_P(actor_lifecycle, linking_to_a_terminated_actor_delivers_its_exit_at_once) {
  auto a = sys.spawn(linker);
  auto b = sys.spawn(linker);
  self->monitor(a);
  self->monitor(b);
  self->send(b, make_error(exit_reason::user_shutdown));
  ASSERT_EQ(downs(1).count(b.id()), 1u);
  self->send(a, "link"s, b); // no round trip: a may be gone before it answers
  EXPECT_EQ(downs(1)[a.id()], exit_reason::user_shutdown);
}

TEST_P(actor_lifecycle, a_normal_exit_of_a_linked_actor_does_not_terminate_the_other) {
  auto a = sys.spawn(linker);
  auto b = sys.spawn(linker);
  self->monitor(b);
  link(a, b);
  self->send(b, make_error(exit_reason::normal)); // an empty error: quit normally
  EXPECT_EQ(next<down_msg>().reason, exit_reason::normal);
  // b sent its exit_msg to a before it sent us the down_msg.
  EXPECT_TRUE(alive(a));
}

TEST_P(actor_lifecycle, unlink_stops_the_propagation) {
  auto a = sys.spawn(linker);
  auto b = sys.spawn(linker);
  self->monitor(b);
  link(a, b);
  link(b, a, "unlink");
  self->send(b, make_error(exit_reason::user_shutdown));
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
  EXPECT_TRUE(alive(a));
}

// -- trapping exits ------------------------------------------------------------------------

TEST_P(actor_lifecycle, an_exit_handler_gets_the_exit_msg_instead_of_dying) {
  auto a = sys.spawn([r = reporter](event_based_actor* a) {
    a->set_exit_handler([=](exit_msg& x) { a->send(r, x.reason); });
    return linker(a);
  });
  auto b = sys.spawn(linker);
  self->monitor(b);
  link(a, b);
  self->send(b, make_error(exit_reason::user_shutdown));
  EXPECT_EQ(next<error>(), exit_reason::user_shutdown);
  EXPECT_TRUE(alive(a));
}

TEST_P(actor_lifecycle, trap_exit_delivers_the_exit_msg_to_the_behavior) {
  auto a = sys.spawn([r = reporter](event_based_actor* a) {
    a->trap_exit(true);
    return linker(a).or_else(behavior{[=](exit_msg& x) { a->send(r, x.reason); }});
  });
  auto b = sys.spawn(linker);
  link(a, b);
  self->send(b, make_error(errc::runtime_error));
  EXPECT_EQ(next<error>(), errc::runtime_error);
  EXPECT_TRUE(alive(a));
}

TEST_P(actor_lifecycle, kill_cannot_be_trapped) {
  auto a = sys.spawn([r = reporter](event_based_actor* a) {
    a->set_exit_handler([=](exit_msg& x) { a->send(r, x.reason); });
    return linker(a);
  });
  self->monitor(a);
  ASSERT_TRUE(alive(a));
  anon_send_exit(a, exit_reason::kill);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::kill);
  // A report would have been queued before the down_msg.
  EXPECT_FALSE(has_queued<error>());
}

TEST_P(actor_lifecycle, send_exit_terminates_with_the_given_reason) {
  auto a = sys.spawn(linker);
  auto b = sys.spawn(linker);
  self->monitor(a);
  self->monitor(b);
  self->send_exit(a, exit_reason::user_shutdown);
  anon_send_exit(b, make_error(errc::runtime_error, "from outside"));
  auto reasons = downs(2);
  EXPECT_EQ(reasons[a.id()], exit_reason::user_shutdown);
  EXPECT_EQ(reasons[b.id()], errc::runtime_error);
}

TEST_P(actor_lifecycle, an_exit_with_reason_normal_is_ignored_unless_trapped) {
  auto a = sys.spawn(linker);
  anon_send_exit(a, exit_reason::normal);
  EXPECT_TRUE(alive(a));
}

// -- dead letters and unreachable actors -----------------------------------------------------

TEST_P(actor_lifecycle, a_message_to_a_terminated_actor_is_a_dead_letter) {
  auto a = sys.spawn(linker);
  self->monitor(a);
  self->send(a, make_error(exit_reason::user_shutdown));
  ASSERT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
  auto before = sys.dead_letters();
  self->send(a, 1);
  EXPECT_EQ(sys.dead_letters(), before + 1);
  anon_send(a, 2);
  EXPECT_EQ(sys.dead_letters(), before + 2);
}

TEST_P(actor_lifecycle, a_request_to_a_terminated_actor_gets_actor_down) {
  auto a = sys.spawn(linker);
  self->monitor(a);
  self->send(a, make_error(exit_reason::user_shutdown));
  ASSERT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
  error err;
  self->request(a, patience, 1).receive([](int) { ADD_FAILURE() << "a dead actor answered"; },
                                        [&](const error& x) { err = x; });
  EXPECT_EQ(err, errc::actor_down);
}

TEST_P(actor_lifecycle, requests_left_in_the_mailbox_at_termination_get_actor_down) {
  auto a = sys.spawn([](event_based_actor* a) {
    a->set_default_handler(skip);
    return behavior{[a](const std::string&) { a->quit(exit_reason::user_shutdown); }};
  });
  // Skipped, so still queued when the string makes the actor quit.
  auto pending = self->request(a, patience, 1);
  self->send(a, "quit");
  error err;
  pending.receive([](int) { ADD_FAILURE() << "answered"; }, [&](const error& x) { err = x; });
  EXPECT_EQ(err, errc::actor_down);
}

TEST_P(actor_lifecycle, an_actor_without_handles_terminates_as_unreachable) {
  auto a = sys.spawn(linker);
  self->monitor(a);
  auto id = a.id();
  a = nullptr;
  auto down = next<down_msg>();
  EXPECT_EQ(down.source.id(), id);
  EXPECT_EQ(down.reason, exit_reason::unreachable);
}

TEST_P(actor_lifecycle, messages_queued_before_the_last_handle_goes_are_still_handled) {
  auto a = sys.spawn([r = reporter](event_based_actor* a) {
    return behavior{[=](int x) { a->send(r, x); }};
  });
  self->monitor(a);
  for (int i = 1; i <= 3; ++i)
    self->send(a, i);
  a = nullptr;
  for (int i = 1; i <= 3; ++i)
    EXPECT_EQ(next<int>(), i);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::unreachable);
}

// -- a held exit notice ---------------------------------------------------------------

TEST_P(actor_lifecycle, a_held_exit_notice_reaches_monitors_and_links_only_when_released) {
  auto a = sys.spawn<holding_actor>();
  auto b = sys.spawn(linker);
  link(b, a);
  self->monitor(a);
  self->monitor(b);
  self->send(a, make_error(exit_reason::user_shutdown));
  // A link added after the exit waits for the notice too.
  auto c = sys.spawn(linker);
  self->monitor(c);
  await_held(a);
  link(c, a);
  EXPECT_TRUE(alive(b)) << "the link hears of the exit only at release";
  EXPECT_FALSE(has_queued<down_msg>()) << "the monitor hears of it only at release";
  auto* raw = actor_cast_raw(a);
  raw->release_exit_notice(nullptr);
  raw->release_exit_notice(nullptr); // a second release sends nothing
  auto reasons = downs(3);
  EXPECT_EQ(reasons[a.id()], exit_reason::user_shutdown);
  EXPECT_EQ(reasons[b.id()], exit_reason::user_shutdown);
  EXPECT_EQ(reasons[c.id()], exit_reason::user_shutdown);
}

TEST_P(actor_lifecycle, await_all_actors_done_waits_for_a_held_exit_notice) {
  auto a = sys.spawn<holding_actor>();
  self->monitor(a);
  self->send(a, make_error(exit_reason::user_shutdown));
  std::atomic<bool> done{false};
  std::thread waiter{[&] {
    sys.await_all_actors_done();
    done = true;
  }};
  await_held(a);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(done) << "the actor counts as live while its notice is held";
  actor_cast_raw(a)->release_exit_notice(nullptr);
  EXPECT_EQ(next<down_msg>().reason, exit_reason::user_shutdown);
  waiter.join();
  EXPECT_TRUE(done);
}

TEST_P(actor_lifecycle, the_last_handle_going_releases_a_held_exit_notice) {
  auto a = sys.spawn<holding_actor>();
  self->monitor(a);
  self->send(a, make_error(exit_reason::user_shutdown));
  auto id = a.id();
  a = nullptr;
  auto down = next<down_msg>();
  EXPECT_EQ(down.source.id(), id);
  EXPECT_EQ(down.reason, exit_reason::user_shutdown);
}

} // namespace

TROUPE_TEST_EVERY_POLICY(actor_lifecycle);
