// Two programs built from different sources: this test and
// tests/net/type_table_peer.cpp name the same types under other type IDs
// (the handshake translates them by name), and each knows a type the other
// lacks (a clear error for whoever sends it, on either side, at once).

#include "interop_types.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/type_id.hpp"
#include "troupe/net/middleman.hpp"
#include "troupe/scoped_actor.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <string>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace std::chrono_literals;
using namespace troupe;

TROUPE_BEGIN_TYPE_ID_BLOCK(type_table_test, troupe::first_custom_type_id)
  TROUPE_ADD_TYPE_ID(type_table_test, (interop::order))
  TROUPE_ADD_TYPE_ID(type_table_test, (interop::test_only))
  TROUPE_ADD_TYPE_ID(type_table_test, (interop::receipt))
TROUPE_END_TYPE_ID_BLOCK(type_table_test)

namespace {

/// The peer program as a child process; its stdin closing ends it.
class peer_program {
public:
  peer_program() {
    int out[2];
    int in[2];
    if (pipe(out) != 0 || pipe(in) != 0)
      throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    char* argv[] = {const_cast<char*>(TYPE_TABLE_PEER), nullptr};
    int rc = posix_spawn(&pid_, TYPE_TABLE_PEER, &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    to_child_ = in[1];
    if (rc != 0) {
      close(out[0]);
      pid_ = -1;
      return;
    }
    // The port, as a line.
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n')
      line += c;
    close(out[0]);
    port_ = static_cast<uint16_t>(std::strtoul(line.c_str(), nullptr, 10));
  }

  peer_program(const peer_program&) = delete;
  peer_program& operator=(const peer_program&) = delete;

  ~peer_program() {
    close(to_child_);
    if (pid_ > 0) {
      // It ends by itself; a hung one is killed after 10 s.
      for (int i = 0; i < 1000; ++i) {
        if (waitpid(pid_, nullptr, WNOHANG) == pid_)
          return;
        usleep(10'000);
      }
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  /// Where it published its actor; 0 if it did not start.
  uint16_t port() const noexcept {
    return port_;
  }

private:
  pid_t pid_ = -1;
  int to_child_ = -1;
  uint16_t port_ = 0;
};

struct type_table_test : ::testing::Test {
  type_table_test() {
    cfg.load<net::middleman>();
    cfg.shutdown.grace_period = 200ms;
    sys = std::make_unique<actor_system>(cfg);
  }

  actor connect() {
    EXPECT_NE(peer.port(), 0) << "the peer program did not start: " << TYPE_TABLE_PEER;
    auto remote = sys->middleman().remote_actor("127.0.0.1", peer.port());
    EXPECT_TRUE(remote) << to_string(remote.error());
    return remote ? *remote : actor{};
  }

  // Started first: its fork happens before this process makes threads.
  peer_program peer;
  actor_system_config cfg;
  std::unique_ptr<actor_system> sys;
};

} // namespace

TEST_F(type_table_test, the_programs_give_the_same_types_other_ids) {
  // The peer's block starts 40 IDs later and lists the types the other way.
  EXPECT_EQ(type_id_v<interop::order>, first_custom_type_id);
  EXPECT_EQ(type_id_v<interop::receipt>, first_custom_type_id + 2);
}

TEST_F(type_table_test, a_value_crosses_to_a_program_that_numbers_its_type_otherwise) {
  auto clerk = connect();
  ASSERT_TRUE(clerk);
  scoped_actor self{*sys};
  interop::receipt got;
  self->request(clerk, 10s, interop::order{42, "tea"})
    .receive([&](const interop::receipt& x) { got = x; },
             [](const error& err) { FAIL() << to_string(err); });
  EXPECT_EQ(got.id, 42);
  EXPECT_EQ(got.text, "tea confirmed");
}

TEST_F(type_table_test, a_type_the_peer_lacks_fails_the_request_at_once_naming_it) {
  auto clerk = connect();
  ASSERT_TRUE(clerk);
  scoped_actor self{*sys};
  error err;
  auto started = std::chrono::steady_clock::now();
  self->request(clerk, 60s, interop::test_only{1})
    .receive([](const interop::receipt&) { FAIL() << "an answer to a value it cannot read"; },
             [&](const error& e) { err = e; });
  EXPECT_EQ(err, errc::unsupported_type) << to_string(err);
  EXPECT_NE(err.context().find("interop::test_only"), std::string::npos) << to_string(err);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s) << "failed at its timeout only";
}

TEST_F(type_table_test, an_answer_of_a_type_this_node_lacks_fails_the_request_at_once) {
  auto clerk = connect();
  ASSERT_TRUE(clerk);
  scoped_actor self{*sys};
  error err;
  auto started = std::chrono::steady_clock::now();
  self->request(clerk, 60s, get_atom_v)
    .receive([](const message&) { FAIL() << "an answer this node cannot read"; },
             [&](const error& e) { err = e; });
  EXPECT_EQ(err, errc::unsupported_type) << to_string(err);
  EXPECT_NE(err.context().find("interop::peer_only"), std::string::npos) << to_string(err);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s) << "failed at its timeout only";
}
