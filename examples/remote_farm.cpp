// A farm whose workers live in another process: the patterns layer as it
// is, with each replica's actor spawned on a worker node (remote_spawn).
// The program starts the worker node itself (the same program with
// --worker-node), asks it for four workers, and spreads the numbers 1 to
// 2,000 over them: each worker answers the length of a number's Collatz
// sequence.
//
//   remote_farm                  # both nodes, as a demo
//   remote_farm --worker-node    # the worker node alone; prints its port

#include <troupe/all.hpp>
#include <troupe/net/middleman.hpp>
#include <troupe/patterns.hpp>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace troupe;
using namespace std::chrono_literals;

namespace {

/// The worker: the number of steps from n to 1.
behavior collatz_worker() {
  return {[](int64_t n) {
    int32_t steps = 0;
    for (; n != 1; ++steps)
      n = n % 2 == 0 ? n / 2 : 3 * n + 1;
    return steps;
  }};
}

struct farm_config : actor_system_config {
  farm_config() {
    opt_group{custom_options_, "global"}.add(worker_node, "worker-node",
                                             "serve workers instead of farming out");
    load<net::middleman>();
    add_actor_type("collatz", collatz_worker);
  }

  bool worker_node = false;
};

/// The worker node: listens, prints its port, serves until stdin closes.
int run_worker_node(const farm_config& cfg) {
  actor_system sys{cfg};
  auto port = sys.middleman().open(0);
  if (!port) {
    std::cerr << to_string(port.error()) << '\n';
    return 1;
  }
  std::cout << *port << std::endl;
  for (std::string line; std::getline(std::cin, line);) {
  }
  return 0;
}

/// Starts this program with --worker-node; its port, its pid, and a pipe
/// whose closing stops it.
struct worker_process {
  pid_t pid = -1;
  uint16_t port = 0;
  int stdin_fd = -1;

  static worker_process start() {
    worker_process result;
    int out[2];
    int in[2];
    if (pipe(out) != 0 || pipe(in) != 0)
      return result;
    result.pid = fork();
    if (result.pid == 0) {
      dup2(out[1], STDOUT_FILENO);
      dup2(in[0], STDIN_FILENO);
      close(out[0]);
      close(in[1]);
      execl("/proc/self/exe", "remote_farm", "--worker-node", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    close(in[0]);
    result.stdin_fd = in[1];
    char buf[16] = {};
    auto n = read(out[0], buf, sizeof(buf) - 1);
    close(out[0]);
    if (n > 0)
      result.port = static_cast<uint16_t>(std::stoul(buf));
    return result;
  }

  void stop() {
    if (stdin_fd >= 0)
      close(stdin_fd);
    if (pid > 0)
      waitpid(pid, nullptr, 0);
  }
};

int run_farm(const farm_config& cfg) {
  auto worker = worker_process::start();
  if (worker.port == 0) {
    std::cerr << "the worker node did not start\n";
    worker.stop();
    return 1;
  }
  int status = 1;
  {
    actor_system sys{cfg};
    auto& mm = sys.middleman();
    auto node = mm.connect("127.0.0.1", worker.port);
    if (!node) {
      std::cerr << to_string(node.error()) << '\n';
      worker.stop();
      return 1;
    }
    // Each replica of the farm asks the worker node for an actor of its
    // own; the patterns layer sends it every item as a request.
    auto remote_worker = [&mm, n = *node](actor_system&) {
      auto hdl = mm.remote_spawn(n, "collatz");
      return hdl ? *hdl : actor{};
    };
    auto farm = patterns::spawn_pattern(
      sys, patterns::farm(patterns::seq_actor{remote_worker}.name("collatz"), 4));
    scoped_actor self{sys};
    int32_t longest = 0;
    int64_t at = 0;
    int answered = 0;
    for (int64_t n = 1; n <= 2000; ++n)
      self->request(farm, 10s, n).receive(
        [&](int32_t steps) {
          ++answered;
          if (steps > longest) {
            longest = steps;
            at = n;
          }
        },
        [&](const error& err) { std::cerr << n << ": " << to_string(err) << '\n'; });
    std::cout << answered << " numbers farmed out to 4 workers on node " << to_string(*node)
              << "; the longest sequence: " << longest << " steps, from " << at << '\n';
    status = answered == 2000 && longest == 181 && at == 1161 ? 0 : 1;
    anon_send_exit(farm, exit_reason::user_shutdown);
  }
  worker.stop();
  return status;
}

} // namespace

int main(int argc, char** argv) {
  farm_config cfg;
  if (auto err = cfg.parse(argc, argv)) {
    std::cerr << to_string(err) << '\n';
    return 1;
  }
  return cfg.worker_node ? run_worker_node(cfg) : run_farm(cfg);
}
