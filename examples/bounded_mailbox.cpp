// A producer floods a slower consumer. The consumer's mailbox is bounded and
// mutes whoever sends to it while it is full: the producer pauses between
// its handlers until the mailbox has drained below half, so memory stays
// flat and nothing is dropped. Run it with --app.capacity=0 to see the
// unbounded mailbox grow instead.

#include <troupe/all.hpp>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

using namespace troupe;

namespace {

/// A field of /proc/self/status in MiB ("VmRSS": now, "VmHWM": peak); 0 if
/// the system has no such file.
double status_mib(const std::string& field) {
  std::ifstream in{"/proc/self/status"};
  std::string key;
  while (in >> key) {
    if (key == field + ":") {
      double kib = 0;
      in >> kib;
      return kib / 1024;
    }
    in.ignore(1 << 10, '\n');
  }
  return 0;
}

/// Sums what it gets, a little slower than the producer sends it, and tells
/// `report` the sum once `total` numbers have arrived.
behavior consumer(event_based_actor* self, actor report, int64_t total) {
  auto seen = std::make_shared<int64_t>(0);
  auto sum = std::make_shared<int64_t>(0);
  return {[self, report, total, seen, sum](int64_t x) {
    // Unsigned: the work may wrap around.
    volatile uint64_t work = static_cast<uint64_t>(x);
    for (int i = 0; i < 50; ++i)
      work = work * 3 + 1;
    *sum += x;
    if (++*seen == total)
      self->send(report, *sum);
  }};
}

/// Sends 0 .. total-1 to `dest`, a batch of 100 per handler; the next batch
/// is a message to itself, so a mute can pause it between batches.
behavior producer(event_based_actor* self, actor dest, int64_t total) {
  return {[self, dest, total](int64_t next) {
    auto end = std::min<int64_t>(next + 100, total);
    for (auto i = next; i < end; ++i)
      self->send(dest, i);
    if (end < total)
      self->send(self->self_handle(), end);
  }};
}

} // namespace

int main(int argc, char** argv) {
  actor_system_config cfg;
  int64_t messages = 200'000;
  size_t capacity = 1000;
  cfg.add_option("app.messages", &messages, "how many numbers the producer sends")
    .add_option("app.capacity", &capacity, "the consumer's mailbox capacity (0: no bound)");
  if (auto err = cfg.parse(argc, argv)) {
    std::cerr << to_string(err) << '\n';
    return 1;
  }
  if (cfg.helptext_requested()) {
    std::cout << cfg.helptext();
    return 0;
  }
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto rss_before = status_mib("VmRSS");
  auto sink = sys.spawn(mailbox_limit{capacity, mailbox_overflow::mute}, consumer,
                        actor{self}, messages);
  auto source = sys.spawn(producer, sink, messages);
  auto start = std::chrono::steady_clock::now();
  anon_send(source, int64_t{0});
  int64_t sum = 0;
  self->receive([&](int64_t x) { sum = x; });
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  // mimalloc hands freed pages back to the system after a short delay.
  std::this_thread::sleep_for(std::chrono::milliseconds{500});
  std::cout << messages << " numbers through a mailbox of capacity " << capacity << " in "
            << took.count() << " s; sum " << (sum == messages * (messages - 1) / 2 ? "ok" : "WRONG")
            << ", dead letters " << sys.dead_letters() << '\n'
            << "resident memory: " << rss_before << " MiB before, peak " << status_mib("VmHWM")
            << " MiB, " << status_mib("VmRSS") << " MiB after\n";
  return sum == messages * (messages - 1) / 2 && sys.dead_letters() == 0 ? 0 : 1;
}
