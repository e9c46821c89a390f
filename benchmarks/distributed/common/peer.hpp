#pragma once

// The two processes of one measurement of the distributed study, whatever
// system they are written for:
//
//   <program> <case> --threads=T [--scale=quick|full] [--<size>=N ...]
//
// runs the client. Unless given --port=P (a server started by hand), it
// starts its own server first, the same program with --serve=1 --spawned=1
// --port=0, on 127.0.0.1, and pins the client to the first usable CPU and
// the server to the second when there are two (--pin=0 leaves both free).
// The server prints "port N" on its first stdout line and, once it has
// answered the case's last message, "server_cpu S": its CPU seconds from
// the first measured message to the last answer. It then waits for its
// stdin to close, which is how the client ends it. Both roles give up after
// --timeout seconds. Plain C++17: the CAF 0.17 programs include it too.

#include "common/options.hpp"

#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <iterator>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace dist {

enum class kind { ping_pong, throughput_small, throughput_1k, requests, node_loss };

constexpr const char* case_names[] = {"ping_pong", "throughput_small", "throughput_1k",
                                      "requests", "node_loss"};

/// The only address either role uses.
constexpr const char* host = "127.0.0.1";

struct config {
  kind what = kind::ping_pong;
  std::string name;
  size_t threads = 1;
  bool server = false;
  bool spawned = false;
  uint16_t port = 0;
  bool pin = true;
  uint64_t timeout_s = 0;
  /// Measured operations: round trips, messages or requests.
  uint64_t ops = 0;
  /// ping_pong: round trips before the measured ones (negative values).
  uint64_t warmup = 0;
  /// requests: requests in flight.
  uint64_t window = 0;
  /// throughput_1k: bytes of each message's payload.
  uint64_t payload = 0;
  /// node_loss: the timeout of the requests the server never answers.
  uint64_t request_timeout_ms = 0;
  /// Troupe: run the receivers of network messages on the I/O thread
  /// (troupe.net.inline-receivers, on by default).
  bool inline_receivers = true;
  /// argv[0] and the size flags, as given (for the spawned server).
  std::vector<std::string> argv;
};

[[noreturn]] inline void die(const char* what) {
  std::fprintf(stderr, "%s\n", what);
  std::fflush(stderr);
  std::_Exit(1);
}

[[noreturn]] inline void die_errno(const char* what) {
  std::fprintf(stderr, "%s: %s\n", what, std::strerror(errno));
  std::fflush(stderr);
  std::_Exit(1);
}

inline void on_timeout(int) {
  static const char msg[] = "timed out (--timeout)\n";
  [[maybe_unused]] auto n = ::write(2, msg, sizeof(msg) - 1);
  ::_exit(124);
}

[[noreturn]] inline void usage(const char* program, int status) {
  std::fprintf(status == 0 ? stdout : stderr,
               "usage: %s <case> --threads=T [--scale=quick|full] [--<size>=N ...]\n"
               "cases: ping_pong throughput_small throughput_1k requests\n"
               "  %s <case> --help   lists the size flags of a case\n",
               program, program);
  std::exit(status);
}

/// `node_semantics`: the program has actors whose node can be lost
/// (node_loss is its case too).
inline config parse(int argc, char** argv, bool node_semantics = false) {
  const char* program = argc > 0 ? argv[0] : "remote";
  if (argc < 2)
    usage(program, 2);
  std::string_view first = argv[1];
  if (first == "--help" || first == "-h")
    usage(program, 0);
  config cfg;
  size_t index = 0;
  while (index < std::size(case_names) && first != case_names[index])
    ++index;
  if (index == std::size(case_names)) {
    std::fprintf(stderr, "%s: unknown case '%s'\n", program, argv[1]);
    usage(program, 2);
  }
  cfg.what = static_cast<kind>(index);
  cfg.name = case_names[index];
  std::vector<bench::size_flag> flags = {
    {"serve", 0, 0, "1: the server role"},
    {"spawned", 0, 0, "1: started by the client, which closes stdin to end it"},
    {"port", 0, 0, "client: a running server's port; server: the port (0: any)"},
    {"pin", 1, 1, "1: client on the first usable CPU, server on the second"},
    {"timeout", 100, 540, "seconds before either role gives up"},
    {"inline-receivers", 1, 1, "troupe only, 0: troupe.net.inline-receivers off on both sides"},
  };
  const char* ops_flag = "";
  switch (cfg.what) {
    case kind::ping_pong:
      ops_flag = "round-trips";
      flags.push_back({ops_flag, 20'000, 200'000, "measured round trips"});
      flags.push_back({"warmup", 1'000, 10'000, "round trips before them"});
      break;
    case kind::throughput_small:
      ops_flag = "messages";
      flags.push_back({ops_flag, 1'000'000, 3'000'000, "int messages streamed"});
      break;
    case kind::throughput_1k:
      ops_flag = "messages";
      flags.push_back({ops_flag, 100'000, 300'000, "1 KiB messages streamed"});
      flags.push_back({"payload", 1024, 1024, "bytes per message"});
      break;
    case kind::requests:
      ops_flag = "requests";
      flags.push_back({ops_flag, 300'000, 3'000'000, "requests answered"});
      flags.push_back({"window", 100, 100, "requests in flight"});
      break;
    case kind::node_loss:
      ops_flag = "requests";
      flags.push_back({ops_flag, 1'000, 1'000, "requests pending when the server dies"});
      flags.push_back({"request-timeout-ms", 5'000, 5'000, "their timeout"});
      break;
  }
  // Usage and errors name the case: "remote ping_pong: ...".
  std::string title = std::string{program} + " " + cfg.name;
  std::vector<char*> rest{title.data()};
  for (int i = 2; i < argc; ++i)
    rest.push_back(argv[i]);
  bench::options opts{static_cast<int>(rest.size()), rest.data(), flags};
  rest[0] = argv[0];
  cfg.threads = opts.threads();
  cfg.server = opts["serve"] != 0;
  cfg.spawned = opts["spawned"] != 0;
  if (opts["port"] > 65535)
    die("--port must be below 65536");
  cfg.port = static_cast<uint16_t>(opts["port"]);
  cfg.pin = opts["pin"] != 0;
  cfg.timeout_s = opts["timeout"];
  cfg.inline_receivers = opts["inline-receivers"] != 0;
  cfg.ops = opts[ops_flag];
  if (cfg.ops == 0 || cfg.ops > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    die("the operation count must be between 1 and 2^31 - 1");
  if (cfg.what == kind::ping_pong) {
    cfg.warmup = opts["warmup"];
    if (cfg.warmup > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
      die("--warmup must be below 2^31");
  }
  if (cfg.what == kind::requests) {
    cfg.window = opts["window"];
    if (cfg.window == 0)
      die("--window must be at least 1");
  }
  if (cfg.what == kind::throughput_1k)
    cfg.payload = opts["payload"];
  if (cfg.what == kind::node_loss)
    cfg.request_timeout_ms = opts["request-timeout-ms"];
  for (auto* arg : rest)
    cfg.argv.emplace_back(arg);
  if (cfg.what == kind::node_loss && !node_semantics)
    die("node_loss: plain sockets have no node to lose; the study runs this case for actor "
        "runtimes only");
  // A peer that went away shows as an error, not as SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  if (cfg.timeout_s > 0) {
    ::signal(SIGALRM, on_timeout);
    ::alarm(static_cast<unsigned>(cfg.timeout_s));
  }
  return cfg;
}

/// What the client checks at the end: ping_pong and requests sum the values
/// answered (1..N), the throughput cases count the messages received,
/// node_loss the requests that failed.
inline uint64_t expected_checksum(const config& cfg) {
  if (cfg.what == kind::throughput_small || cfg.what == kind::throughput_1k
      || cfg.what == kind::node_loss)
    return cfg.ops;
  return cfg.ops * (cfg.ops + 1) / 2;
}

/// User + system CPU seconds of this process, all threads.
inline double process_cpu() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
         + static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

using steady = std::chrono::steady_clock;

inline int64_t nanos_between(steady::time_point from, steady::time_point to) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(to - from).count();
}

// -- CPU placement ---------------------------------------------------------------

/// The first two usable CPUs, or -1 for both when pinning is off or there
/// is only one.
inline std::pair<int, int> choose_cpus(bool pin) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (!pin || sched_getaffinity(0, sizeof(set), &set) != 0)
    return {-1, -1};
  std::vector<int> usable;
  for (int cpu = 0; cpu < CPU_SETSIZE && usable.size() < 2; ++cpu)
    if (CPU_ISSET(cpu, &set))
      usable.push_back(cpu);
  if (usable.size() < 2)
    return {-1, -1};
  return {usable[0], usable[1]};
}

/// Pins the calling thread, and every thread it starts later, to `cpu`.
inline bool pin_to(int cpu) {
  if (cpu < 0)
    return true;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof(set), &set) == 0;
}

// -- the server's side -------------------------------------------------------------

/// What a server tells its client, and how it ends.
class server_side {
public:
  explicit server_side(const config& cfg) : spawned_(cfg.spawned) {
    if (spawned_)
      std::thread{[this] { watch_stdin(); }}.detach();
  }

  /// Announces the port the server listens on.
  void ready(uint16_t port) {
    std::printf("port %u\n", static_cast<unsigned>(port));
    std::fflush(stdout);
  }

  /// The first measured message arrived (only the first call counts).
  void begin() noexcept {
    if (!begun_.load(std::memory_order_relaxed)
        && !begun_.exchange(true, std::memory_order_relaxed))
      cpu_at_begin_ = process_cpu();
  }

  /// The case's last answer is out: reports the CPU spent since begin().
  void done() {
    if (done_.exchange(true))
      return;
    auto cpu = process_cpu() - cpu_at_begin_;
    std::printf("server_cpu %.6f\n", cpu);
    std::fflush(stdout);
    std::lock_guard<std::mutex> guard{mtx_};
    finished_ = true;
    cv_.notify_all();
  }

  bool is_done() const noexcept {
    return done_.load();
  }

  /// Blocks until done().
  void wait_done() {
    std::unique_lock<std::mutex> guard{mtx_};
    cv_.wait(guard, [this] { return finished_; });
  }

  /// Ends the process: when spawned, once the client closes stdin; else
  /// after a short linger so that the last answer leaves. Skips every
  /// destructor, so a runtime's shutdown never delays the client.
  [[noreturn]] void finish() {
    std::fflush(stdout);
    if (!spawned_) {
      std::this_thread::sleep_for(std::chrono::milliseconds{200});
      std::_Exit(0);
    }
    for (;;)
      ::pause(); // watch_stdin() exits
  }

private:
  void watch_stdin() {
    char buf[64];
    for (;;) {
      auto n = ::read(0, buf, sizeof(buf));
      if (n > 0 || (n < 0 && errno == EINTR))
        continue;
      break;
    }
    if (done_.load())
      std::_Exit(0);
    std::fprintf(stderr, "server: the client went away before the last answer\n");
    std::fflush(stderr);
    std::_Exit(3);
  }

  bool spawned_;
  std::atomic<bool> begun_{false};
  std::atomic<bool> done_{false};
  double cpu_at_begin_ = 0;
  std::mutex mtx_;
  std::condition_variable cv_;
  bool finished_ = false;
};

// -- the client's side ---------------------------------------------------------------

/// What the client measured.
struct outcome {
  double seconds = 0;
  double client_cpu = 0;
  /// NaN when the server did not say (one started by hand).
  double server_cpu = std::numeric_limits<double>::quiet_NaN();
  /// ping_pong: each measured round trip.
  std::vector<int64_t> rtt_ns;
  /// node_loss: from the server's SIGKILL to the down_msg, and to the last
  /// pending request's failure.
  double down_ms = std::numeric_limits<double>::quiet_NaN();
  double requests_failed_ms = std::numeric_limits<double>::quiet_NaN();
};

/// node_loss: what the client's actor records as the server's node dies,
/// for the thread that killed it. Any thread.
struct loss_record {
  std::atomic<int64_t> down_at{0};
  std::atomic<int64_t> failed_at{0};
  std::atomic<uint64_t> failed{0};
  /// Set once every pending request has reached the server.
  std::promise<void> ready;

  static int64_t now() {
    return steady::now().time_since_epoch().count();
  }

  void down() {
    down_at = now();
  }

  /// One pending request failed; true for the last of `total`.
  bool request_failed(uint64_t total) {
    if (++failed != total)
      return false;
    failed_at = now();
    return true;
  }

  /// The figures, counted from the server's kill at `killed`.
  void report(steady::time_point killed, outcome& out) const {
    auto from = killed.time_since_epoch().count();
    out.down_ms = static_cast<double>(down_at.load() - from) / 1e6;
    out.requests_failed_ms = static_cast<double>(failed_at.load() - from) / 1e6;
    out.seconds = std::max(out.down_ms, out.requests_failed_ms) / 1e3;
  }
};

/// Wall and CPU time of the client's measured window.
class stopwatch {
public:
  void start() {
    cpu_ = process_cpu();
    t0_ = steady::now();
  }

  void stop(outcome& out) const {
    auto t1 = steady::now();
    out.seconds = static_cast<double>(nanos_between(t0_, t1)) * 1e-9;
    out.client_cpu = process_cpu() - cpu_;
  }

private:
  steady::time_point t0_{};
  double cpu_ = 0;
};

/// The client's peer: the server it spawned (or one started by hand).
class client_side {
public:
  /// Spawns the server unless cfg.port names one, then pins this process.
  /// Call before the program starts any thread.
  explicit client_side(const config& cfg) : cfg_(cfg) {
    auto [client_cpu, server_cpu] = choose_cpus(cfg.pin);
    if (cfg.port != 0) {
      port_ = cfg.port;
    } else {
      spawn(server_cpu);
      read_port();
    }
    if (!pin_to(client_cpu))
      die_errno("client: sched_setaffinity");
  }

  client_side(const client_side&) = delete;
  client_side& operator=(const client_side&) = delete;

  ~client_side() {
    if (pid_ > 0)
      stop();
  }

  uint16_t port() const noexcept {
    return port_;
  }

  /// node_loss: kills the server (SIGKILL) and reaps it; returns when.
  steady::time_point kill_server() {
    auto now = steady::now();
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
    return now;
  }

  /// Reads the server's CPU, ends it, prints the metrics and the checksum;
  /// returns main's exit status.
  int finish(outcome& out, uint64_t checksum) {
    int status = 0;
    if (pid_ > 0) {
      out.server_cpu = read_server_cpu();
      if (std::isnan(out.server_cpu)) {
        std::fprintf(stderr, "client: the server reported no CPU time\n");
        status = 1;
      }
      int code = stop();
      if (code != 0) {
        std::fprintf(stderr, "client: the server exited with status %d\n", code);
        status = 1;
      }
    }
    print_metrics(out);
    int sum_status = bench::checksum(checksum_label(), checksum, expected_checksum(cfg_));
    std::fflush(stdout);
    return status != 0 ? status : sum_status;
  }

private:
  const char* checksum_label() const {
    if (cfg_.what == kind::node_loss)
      return "failed";
    return cfg_.what == kind::throughput_small || cfg_.what == kind::throughput_1k
             ? "received"
             : "sum";
  }

  void spawn(int cpu) {
    int to_child[2];
    int from_child[2];
    if (::pipe(to_child) != 0 || ::pipe(from_child) != 0)
      die_errno("client: pipe");
    std::vector<std::string> args{cfg_.argv[0], cfg_.name};
    for (size_t i = 1; i < cfg_.argv.size(); ++i) {
      std::string_view arg = cfg_.argv[i];
      if (arg.rfind("--port=", 0) == 0 || arg.rfind("--serve=", 0) == 0
          || arg.rfind("--spawned=", 0) == 0)
        continue;
      args.push_back(cfg_.argv[i]);
    }
    args.insert(args.end(), {"--serve=1", "--spawned=1", "--port=0"});
    std::vector<char*> raw;
    for (auto& arg : args)
      raw.push_back(arg.data());
    raw.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    pid_ = ::fork();
    if (pid_ < 0)
      die_errno("client: fork");
    if (pid_ == 0) {
      ::dup2(to_child[0], 0);
      ::dup2(from_child[1], 1);
      ::close(to_child[0]);
      ::close(to_child[1]);
      ::close(from_child[0]);
      ::close(from_child[1]);
      if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof(set), &set);
      }
      ::execv("/proc/self/exe", raw.data());
      static const char msg[] = "client: cannot exec the server\n";
      [[maybe_unused]] auto n = ::write(2, msg, sizeof(msg) - 1);
      ::_exit(127);
    }
    ::close(to_child[0]);
    ::close(from_child[1]);
    to_child_ = to_child[1];
    from_child_ = from_child[0];
  }

  /// The server's next stdout line, or "" at EOF or after `timeout_ms`.
  std::string read_line(int timeout_ms) {
    auto deadline = steady::now() + std::chrono::milliseconds{timeout_ms};
    for (;;) {
      auto nl = pending_.find('\n');
      if (nl != std::string::npos) {
        auto line = pending_.substr(0, nl);
        pending_.erase(0, nl + 1);
        return line;
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline
                                                                        - steady::now())
                    .count();
      if (left <= 0)
        return {};
      pollfd pfd{from_child_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, static_cast<int>(left));
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready <= 0)
        return {};
      char buf[256];
      auto n = ::read(from_child_, buf, sizeof(buf));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return {};
      pending_.append(buf, static_cast<size_t>(n));
    }
  }

  void read_port() {
    auto line = read_line(30'000);
    unsigned port = 0;
    if (std::sscanf(line.c_str(), "port %u", &port) != 1 || port == 0 || port > 65535) {
      std::fprintf(stderr, "client: the server announced no port (got '%s')\n",
                   line.c_str());
      stop();
      std::exit(1);
    }
    port_ = static_cast<uint16_t>(port);
  }

  double read_server_cpu() {
    for (;;) {
      auto line = read_line(30'000);
      if (line.empty())
        return std::numeric_limits<double>::quiet_NaN();
      double cpu = 0;
      if (std::sscanf(line.c_str(), "server_cpu %lf", &cpu) == 1)
        return cpu;
    }
  }

  /// Closes the server's stdin and reaps it (killed after 10 s); returns its
  /// exit status, or 128 + the signal that ended it.
  int stop() {
    if (to_child_ >= 0) {
      ::close(to_child_);
      to_child_ = -1;
    }
    int status = 0;
    auto deadline = steady::now() + std::chrono::seconds{10};
    for (;;) {
      auto r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_)
        break;
      if (r < 0 && errno != EINTR) {
        status = 0;
        break;
      }
      if (steady::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds{1});
    }
    pid_ = -1;
    if (from_child_ >= 0) {
      ::close(from_child_);
      from_child_ = -1;
    }
    if (WIFSIGNALED(status))
      return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  }

  void print_metrics(outcome& out) const {
    auto ops = static_cast<double>(cfg_.ops);
    std::printf("metric seconds %.6f s\n", out.seconds);
    if (cfg_.what == kind::ping_pong && !out.rtt_ns.empty()) {
      auto& v = out.rtt_ns;
      std::sort(v.begin(), v.end());
      auto at = [&v](double q) {
        auto i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
        return static_cast<double>(v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)]) / 1e3;
      };
      std::printf("metric rtt_p50 %.2f us\n", at(0.50));
      std::printf("metric rtt_p90 %.2f us\n", at(0.90));
      std::printf("metric rtt_p99 %.2f us\n", at(0.99));
      std::printf("metric rtt_max %.2f us\n", static_cast<double>(v.back()) / 1e3);
    }
    double rate = out.seconds > 0 ? ops / out.seconds : 0;
    switch (cfg_.what) {
      case kind::ping_pong:
        std::printf("metric round_trips_per_s %.0f 1/s\n", rate);
        break;
      case kind::throughput_small:
        std::printf("metric msg_per_s %.0f msg/s\n", rate);
        break;
      case kind::throughput_1k:
        std::printf("metric msg_per_s %.0f msg/s\n", rate);
        std::printf("metric mb_per_s %.1f MB/s\n",
                    rate * static_cast<double>(cfg_.payload) / 1e6);
        break;
      case kind::requests:
        std::printf("metric responses_per_s %.0f 1/s\n", rate);
        break;
      case kind::node_loss:
        std::printf("metric down_ms %.3f ms\n", out.down_ms);
        std::printf("metric requests_failed_ms %.3f ms\n", out.requests_failed_ms);
        return;
    }
    std::printf("metric client_cpu_per_op %.3f us\n", out.client_cpu / ops * 1e6);
    if (!std::isnan(out.server_cpu)) {
      std::printf("metric server_cpu_per_op %.3f us\n", out.server_cpu / ops * 1e6);
      std::printf("metric cpu_per_op %.3f us\n",
                  (out.client_cpu + out.server_cpu) / ops * 1e6);
    }
  }

  const config& cfg_;
  uint16_t port_ = 0;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string pending_;
};

} // namespace dist
