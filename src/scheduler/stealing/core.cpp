// The work-stealing core: how it is built from the configuration, where
// the locality policy places a job, and what stop() leaves to drop.

#include "core.hpp"

#include "worker.hpp"

#include "troupe/defaults.hpp"
#include "troupe/detail/full_fence.hpp"

#include <algorithm>
#include <memory>
#include <utility>

namespace troupe::detail::stealing {

namespace {

/// max-threads, or else one worker per core of the topology.
size_t workers_on(const scheduler_config& cfg, const topology& topo) {
  if (cfg.max_threads > 0)
    return cfg.max_threads;
  return std::min(topo.num_cores(), scheduler_config::max_threads_limit());
}

/// Affinity placement: counts a wake of `job` by a job of worker `waker`,
/// not its last; true once that worker woke it follow_after_wakes times in a
/// row. An actor that only one other worker's jobs keep waking talks to them
/// across cores on every message (a hub's client, half of a pair a steal
/// split): it follows them there, as under local placement.
bool follows(resumable& job, size_t waker) noexcept {
  // Waker index + 1 above, streak in the low 8 bits (see remote_wakes()).
  auto from = static_cast<uint32_t>(waker + 1) << 8;
  auto x = job.remote_wakes();
  uint32_t n = (x & ~0xFFu) == from ? (x & 0xFFu) + 1 : 1;
  if (n < defaults::scheduler::follow_after_wakes) {
    job.set_remote_wakes(from | n);
    return false;
  }
  job.set_remote_wakes(0);
  return true;
}

} // namespace

locality_state::locality_state(const scheduler_config& cfg)
  : topo(topology::load(cfg.topology)),
    layout(topo.layout(workers_on(cfg, topo))),
    affinity(cfg.placement == locality_placement::affinity),
    pinned(cfg.pin_workers || std::any_of(layout.workers.begin(), layout.workers.end(),
                                          [](const worker_place& w) {
                                            return w.levels.size() > 1;
                                          })),
    polling(std::make_unique<node_polling[]>(topo.num_numa_nodes())) {
}

core::core(const scheduler_config& config)
  : core(config,
         config.policy == "locality" ? std::make_unique<locality_state>(config) : nullptr) {
}

core::core(const scheduler_config& config, std::unique_ptr<locality_state> loc)
  : worker_pool(loc ? "locality" : "work-stealing", "troupe-steal",
                loc ? loc->layout.workers.size() : config.num_workers(), config.pin_workers),
    cfg(config),
    max_throughput(std::max<size_t>(config.max_throughput, 1)),
    locality(std::move(loc)) {
}

int core::cpu_of(size_t index) const noexcept {
  // On this machine's topology each worker runs on its own core.
  if (locality == nullptr || !locality->pinned)
    return -1;
  return locality->layout.workers[index].cpu;
}

core::placement core::placement_of(resumable* job, const worker* current) noexcept {
  auto last = job->last_worker();
  if (last == resumable::never_ran)
    return {}; // New actors start where they were spawned.
  placement result;
  if (last == resumable::new_hub) {
    // Only its first start is spread: where it runs from then on is the
    // placement's business. If the push fails, it starts here.
    job->set_last_worker(resumable::never_ran);
    result = {workers[locality->next_hub_worker()].get(), true};
  } else if (locality->affinity && last < workers.size()) {
    auto* home = workers[last].get();
    if (home == current) {
      if (job->remote_wakes() != 0)
        job->set_remote_wakes(0); // Woken at home: the streak ends.
      return {};
    }
    if (home->public_backlog() >= defaults::scheduler::placed_backlog_limit)
      return {}; // It would wait behind them.
    if (current == nullptr || !follows(*job, current->index()))
      result.target = home;
    return result;
  }
  if (result.target == current)
    result.target = nullptr;
  return result;
}

core::~core() = default;

void core::never_started(size_t started) {
  // Counts the workers that never ran as gone, so the started ones can leave
  // (they wait until every worker is idle or gone).
  exited.fetch_add(workers.size() - started, std::memory_order_seq_cst);
}

void core::drop_leftovers() {
  // Only jobs from other threads that raced with stop() can be left here.
  // An outside thread that places a job on an affinity queue checks
  // `injection.closed()` afterwards (both under the queue's mutex): pushed
  // before the close, the job is dropped below; after it, by that thread.
  // The fence pairs with that thread's, should it have seen `stopping` unset.
  detail::full_fence();
  for (auto* job : injection.close())
    job->deref_resumable();
  drop_placed();
  for (auto& w : workers) { // The owners are gone (joined): popping is safe.
    if (auto* job = std::exchange(w->next_job_, nullptr))
      job->deref_resumable();
    for (auto* job : w->later_)
      job->deref_resumable();
    w->later_.clear();
    while (auto job = w->deque.pop())
      (*job)->deref_resumable();
  }
}

void core::drop_placed() noexcept {
  for (auto& w : workers)
    if (w->affinity != nullptr)
      while (auto job = w->affinity->try_pop())
        (*job)->deref_resumable();
}

} // namespace troupe::detail::stealing
