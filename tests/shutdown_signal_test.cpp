// A TROUPE_MAIN program waits while its actors have something to do, and
// SIGINT or SIGTERM ends it after the grace period with exit code 128 + the
// signal (tests/shutdown_program.cpp, started as a child process).

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace std::chrono_literals;

namespace {

/// The program as a child process, its stdout read through a pipe.
class program {
public:
  explicit program(std::vector<std::string> args) {
    int out[2];
    if (pipe(out) != 0)
      throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    args.insert(args.begin(), SHUTDOWN_PROGRAM);
    std::vector<char*> argv;
    for (auto& x : args)
      argv.push_back(x.data());
    argv.push_back(nullptr);
    int rc = posix_spawn(&pid_, SHUTDOWN_PROGRAM, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    from_child_ = out[0];
    if (rc != 0)
      pid_ = -1;
  }

  program(const program&) = delete;
  program& operator=(const program&) = delete;

  ~program() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(from_child_);
  }

  /// The next line it prints; empty once it closed stdout.
  std::string read_line() {
    std::string line;
    char c;
    while (read(from_child_, &c, 1) == 1 && c != '\n')
      line += c;
    return line;
  }

  void signal(int sig) {
    kill(pid_, sig);
  }

  /// Its exit code once it exited within `limit`; -1 if it was killed by a
  /// signal, -2 if it still runs (then it is killed).
  int wait_exit(std::chrono::seconds limit) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(10ms);
    }
    return -2;
  }

  bool started() const noexcept {
    return pid_ > 0;
  }

private:
  pid_t pid_ = -1;
  int from_child_ = -1;
};

} // namespace

TEST(shutdown_signal, a_program_that_keeps_ticking_runs_until_sigint_and_exits_with_130) {
  program p{{"--mode=forever", "--troupe.shutdown.grace-period=100ms"}};
  ASSERT_TRUE(p.started());
  EXPECT_EQ(p.read_line(), "ticking");
  // Far past the grace period: its main returned long ago.
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(p.wait_exit(0s), -2) << "it ended without a signal";
  p.signal(SIGINT);
  EXPECT_EQ(p.wait_exit(60s), 128 + SIGINT);
}

TEST(shutdown_signal, sigterm_ends_it_too) {
  program p{{"--mode=forever", "--troupe.shutdown.grace-period=100ms"}};
  ASSERT_TRUE(p.started());
  EXPECT_EQ(p.read_line(), "ticking");
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait_exit(60s), 128 + SIGTERM);
}

TEST(shutdown_signal, a_delayed_message_past_the_grace_period_is_delivered_before_the_end) {
  program p{{"--mode=timer", "--troupe.shutdown.grace-period=50ms"}};
  ASSERT_TRUE(p.started());
  EXPECT_EQ(p.read_line(), "delivered");
  EXPECT_EQ(p.wait_exit(60s), 0);
}

TEST(shutdown_signal, sigint_ends_a_main_that_waits_in_a_receive_without_error_handler) {
  program p{{"--mode=receive", "--troupe.shutdown.grace-period=50ms"}};
  ASSERT_TRUE(p.started());
  EXPECT_EQ(p.read_line(), "receiving");
  p.signal(SIGINT);
  EXPECT_EQ(p.wait_exit(60s), 128 + SIGINT);
}

TEST(shutdown_signal, a_second_signal_of_either_kind_kills_the_process_at_once) {
  // A grace period the test does not wait for.
  program p{{"--mode=forever", "--troupe.shutdown.grace-period=1h"}};
  ASSERT_TRUE(p.started());
  EXPECT_EQ(p.read_line(), "ticking");
  p.signal(SIGINT);
  // The first one's handler restores the default ones: give it the time.
  std::this_thread::sleep_for(200ms);
  p.signal(SIGTERM);
  EXPECT_EQ(p.wait_exit(60s), -1) << "not killed by the second signal";
}
