// A node that dies, freezes or comes back, as separate processes: the test
// forks a child that runs its own actor system and publishes an actor,
// then kills (SIGKILL) or stops (SIGSTOP) it. Every fork happens before
// the test starts any thread of its own.

#include "troupe/actor_system.hpp"
#include "troupe/event_based_actor.hpp"
#include "troupe/net/middleman.hpp"
#include "troupe/scoped_actor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

using namespace std::chrono_literals;
using namespace troupe;

namespace {

/// A child process that, once started, serves on a port an actor that
/// answers an int32_t with its double and never answers a std::string.
/// The fork happens in the constructor, before the test makes threads;
/// the child waits in read() until start() names the port.
class child_node {
public:
  child_node() {
    int to_parent[2];
    int from_parent[2];
    if (pipe(to_parent) != 0 || pipe(from_parent) != 0)
      throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0)
      throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      close(to_parent[0]);
      close(from_parent[1]);
      serve(to_parent[1], from_parent[0]);
    }
    close(to_parent[1]);
    close(from_parent[0]);
    from_child_ = to_parent[0];
    to_child_ = from_parent[1];
  }

  child_node(const child_node&) = delete;
  child_node& operator=(const child_node&) = delete;

  ~child_node() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      kill(pid_, SIGCONT);
      waitpid(pid_, nullptr, 0);
    }
    close(from_child_);
    close(to_child_);
  }

  /// Lets the child publish on `port` (0: any); returns the port, 0 if it
  /// failed.
  uint16_t start(uint16_t port = 0) {
    if (write(to_child_, &port, sizeof(port)) != sizeof(port))
      return 0;
    uint16_t published = 0;
    if (read(from_child_, &published, sizeof(published)) != sizeof(published))
      return 0;
    return published;
  }

  void signal(int sig) {
    kill(pid_, sig);
    if (sig == SIGKILL) {
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

private:
  [[noreturn]] static void serve(int to_parent, int from_parent) {
    uint16_t port = 0;
    if (read(from_parent, &port, sizeof(port)) != sizeof(port))
      _exit(0);
    {
      actor_system_config cfg;
      cfg.load<net::middleman>();
      cfg.shutdown.grace_period = 100ms;
      actor_system sys{cfg};
      auto worker = sys.spawn([](event_based_actor* self) {
        // A promise dropped would answer with broken_promise: keep them.
        auto kept = std::make_shared<std::vector<response_promise>>();
        return behavior{
          [](int32_t x) { return 2 * x; },
          [self, kept](const std::string&) {
            kept->push_back(self->make_response_promise());
            return kept->back();
          },
        };
      });
      auto published = sys.middleman().publish(worker, port);
      uint16_t p = published ? *published : 0;
      if (write(to_parent, &p, sizeof(p)) != sizeof(p))
        _exit(1);
      // Until the parent closes its end (or kills this process).
      char c;
      while (read(from_parent, &c, 1) > 0) {
      }
      anon_send_exit(worker, exit_reason::user_shutdown);
    }
    _exit(0);
  }

  pid_t pid_ = -1;
  int from_child_ = -1;
  int to_child_ = -1;
};

struct local_node {
  local_node() {
    cfg.load<net::middleman>();
    cfg.net.heartbeat_interval = 100ms;
    cfg.net.heartbeat_timeout = 600ms;
    sys = std::make_unique<actor_system>(cfg);
  }

  actor_system_config cfg;
  std::unique_ptr<actor_system> sys;
};

/// Two child processes (forked first, before any thread), the local node,
/// and a scoped actor on it.
class node_loss : public ::testing::Test {
protected:
  /// The actor `node` serves, monitored by `self`.
  expected<actor> reach(child_node& node, uint16_t port = 0) {
    auto published = node.start(port);
    if (published == 0)
      return make_error(errc::cannot_connect_to_node, "the child did not publish");
    last_port = published;
    auto remote = local.sys->middleman().remote_actor("127.0.0.1", published);
    if (remote)
      self->monitor(*remote);
    return remote;
  }

  child_node child;
  child_node second;
  local_node local;
  scoped_actor self{*local.sys};
  uint16_t last_port = 0;
};

} // namespace

TEST_F(node_loss, a_killed_node_fails_its_monitors_and_every_waiting_request_at_once) {
  auto remote = reach(child);
  ASSERT_TRUE(remote) << to_string(remote.error());
  // 1,000 requests the remote actor keeps without answering, with a
  // timeout far beyond the test's.
  constexpr int n = 1000;
  auto failed = std::make_shared<int>(0);
  auto requester = local.sys->spawn([r = *remote, failed](event_based_actor* self) {
    for (int i = 0; i < n; ++i)
      self->request(r, 10min, std::string{"wait"})
        .then([](int32_t) {},
              [self, failed](const error& err) {
                if (err == exit_reason::remote_link_unreachable && ++*failed == n)
                  self->quit();
              });
  });
  // A round trip first, so that every request has reached the child.
  int32_t doubled = 0;
  self->request(*remote, 10s, int32_t{21}).receive([&](int32_t y) { doubled = y; },
                                                   [](const error&) {});
  ASSERT_EQ(doubled, 42);
  auto killed = std::chrono::steady_clock::now();
  child.signal(SIGKILL);
  error reason;
  self->receive([&](const down_msg& msg) { reason = msg.reason; },
                after(10s) >> [] { FAIL() << "no down_msg"; });
  EXPECT_EQ(reason, exit_reason::remote_link_unreachable) << to_string(reason);
  EXPECT_LT(std::chrono::steady_clock::now() - killed, local.cfg.net.heartbeat_timeout + 2s);
  self->monitor(requester);
  self->receive([](const down_msg&) {}, after(10s) >> [] { FAIL() << "requests still wait"; });
  EXPECT_EQ(*failed, n);
  // The dead node's handle stays dead.
  self->request(*remote, 10s, int32_t{1}).receive([](int32_t) { FAIL() << "an answer"; },
                                                  [&](const error& err) {
                                                    EXPECT_EQ(err,
                                                              exit_reason::remote_link_unreachable);
                                                  });
}

TEST_F(node_loss, a_frozen_node_is_noticed_by_its_missing_heartbeats) {
  auto remote = reach(child);
  ASSERT_TRUE(remote) << to_string(remote.error());
  child.signal(SIGSTOP);
  error reason;
  self->receive([&](const down_msg& msg) { reason = msg.reason; },
                after(20s) >> [] { FAIL() << "no down_msg"; });
  EXPECT_EQ(reason, exit_reason::remote_link_unreachable);
  EXPECT_NE(reason.context().find("heartbeat"), std::string::npos) << to_string(reason);
}

TEST_F(node_loss, a_restarted_node_is_reached_again_and_old_handles_stay_dead) {
  auto old_handle = reach(child);
  ASSERT_TRUE(old_handle) << to_string(old_handle.error());
  auto port = last_port;
  child.signal(SIGKILL);
  self->receive([](const down_msg&) {}, after(10s) >> [] { FAIL() << "no down_msg"; });
  auto again = reach(second, port);
  ASSERT_TRUE(again) << to_string(again.error());
  EXPECT_NE(*again, *old_handle);
  int32_t doubled = 0;
  self->request(*again, 10s, int32_t{4}).receive([&](int32_t y) { doubled = y; },
                                                 [](const error& e) { FAIL() << to_string(e); });
  EXPECT_EQ(doubled, 8);
  self->request(*old_handle, 10s, int32_t{4}).receive([](int32_t) { FAIL() << "a dead handle"; },
                                                      [](const error&) {});
}
