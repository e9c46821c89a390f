// ferret (threads), after the structure of PARSEC's pthreads version: one
// load thread, a pool of --threads threads for each of the four farm stages,
// one output thread, joined by bounded queues of query pointers (moodycamel's
// BlockingConcurrentQueue plus a semaphore for the bound). Every stage knows
// the number of queries, and its replicas claim them from a shared count
// before taking one from the queue: the queue keeps no order between
// producers, so an end marker could overtake the last queries.

#include "patterns/common/ferret.hpp"

#include <concurrentqueue/blockingconcurrentqueue.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <semaphore>
#include <thread>
#include <vector>

namespace {

class bounded_queue {
public:
  explicit bounded_queue(std::ptrdiff_t capacity) : free_(capacity) {}

  void push(ferret::query* q) {
    free_.acquire();
    items_.enqueue(q);
  }

  ferret::query* pop() {
    ferret::query* q = nullptr;
    items_.wait_dequeue(q);
    free_.release();
    return q;
  }

private:
  moodycamel::BlockingConcurrentQueue<ferret::query*> items_;
  std::counting_semaphore<> free_;
};

constexpr std::ptrdiff_t queue_capacity = 16;

} // namespace

int main(int argc, char** argv) {
  size_t threads = 0;
  auto z = ferret::parse(argc, argv, &threads);
  auto db = ferret::make_database(z.database);
  patterns::compute_timer timer;
  // queues[i] feeds stage i + 1: segment, extract, lookup, rank, output.
  std::vector<std::unique_ptr<bounded_queue>> queues;
  for (int i = 0; i < 5; ++i)
    queues.push_back(std::make_unique<bounded_queue>(queue_capacity));
  std::vector<std::vector<int32_t>> results(static_cast<size_t>(z.queries));
  std::vector<std::thread> pool;
  pool.emplace_back([&] {
    for (int32_t id = 0; id < z.queries; ++id) {
      auto* q = new ferret::query;
      q->id = id;
      q->pixels = ferret::load(id, z.side);
      queues[0]->push(q);
    }
  });
  std::atomic<int32_t> claimed[4] = {0, 0, 0, 0};
  // Stage `stage` reads queues[stage] and writes queues[stage + 1].
  auto farm = [&](size_t stage, auto work) {
    for (size_t i = 0; i < threads; ++i)
      pool.emplace_back([&, stage, work] {
        while (claimed[stage].fetch_add(1, std::memory_order_relaxed) < z.queries) {
          auto* q = queues[stage]->pop();
          work(*q);
          queues[stage + 1]->push(q);
        }
      });
  };
  farm(0, [&](ferret::query& q) { q.kept = ferret::segment(q.pixels, z.side, q.labels); });
  farm(1, [&](ferret::query& q) {
    q.feature = ferret::extract(q.pixels, z.side, q.labels, q.kept);
  });
  farm(2, [&](ferret::query& q) { q.candidates = ferret::lookup(db, q.feature); });
  farm(3, [&](ferret::query& q) { q.top = ferret::rank(db, q.feature, q.candidates); });
  pool.emplace_back([&] {
    for (int32_t i = 0; i < z.queries; ++i) {
      auto* q = queues[4]->pop();
      results[static_cast<size_t>(q->id)] = std::move(q->top);
      delete q;
    }
  });
  for (auto& t : pool)
    t.join();
  uint64_t h = ferret::hash_results(results);
  timer.stop();
  return bench::checksum("results_hash", h, ferret::expected(db, z));
}
