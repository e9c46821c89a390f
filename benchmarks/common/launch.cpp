// Runs one benchmark program and records what the kernel accounted to it:
//
//   troupe_bench_launch <report-file> <program> [args...]
//
// writes "<wall s> <user s> <sys s> <max rss KiB> <status>" to report-file
// once the program has exited (status: exit code, or minus the signal).
//
// Why not measure from Python: a child forked from the interpreter starts with
// the interpreter's resident set (about 16 MiB), and the kernel keeps that in
// the child's peak RSS across exec. Forked from this small process, the floor
// is about 1 MiB. Plain libc only, to keep it that small.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace {

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
}

double seconds_between(const timespec& from, const timespec& to) {
  return static_cast<double>(to.tv_sec - from.tv_sec)
         + static_cast<double>(to.tv_nsec - from.tv_nsec) * 1e-9;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s <report-file> <program> [args...]\n", argv[0]);
    return 2;
  }
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  pid_t pid = fork();
  if (pid < 0) {
    std::perror("troupe_bench_launch: fork");
    return 2;
  }
  if (pid == 0) {
    execv(argv[2], argv + 2);
    std::fprintf(stderr, "troupe_bench_launch: exec %s: %s\n", argv[2],
                 std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) {
      std::perror("troupe_bench_launch: wait4");
      return 2;
    }
  }
  timespec stop{};
  clock_gettime(CLOCK_MONOTONIC, &stop);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  std::FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) {
    std::perror("troupe_bench_launch: report file");
    return 2;
  }
  std::fprintf(out, "%.9f %.6f %.6f %ld %d\n", seconds_between(start, stop),
               seconds(usage.ru_utime), seconds(usage.ru_stime), usage.ru_maxrss, code);
  std::fclose(out);
  return code < 0 ? 128 - code : code;
}
