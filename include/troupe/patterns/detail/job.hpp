#pragma once

// Jobs (troupe/detail/job.hpp): the pieces of a map or div_conq request,
// run by the scheduler's workers like actors are, never on threads of their
// own. The scheduler holds the only reference to each.
//
// A request's jobs share its state: the container, the failure (the first
// exception wins), and the count of jobs still running, whose last one tells
// the stage actor (job_done_atom) that the request is complete. The stage
// actor alone touches the request's sender and sends the result on.

#include "troupe/abstract_actor.hpp"
#include "troupe/detail/job.hpp"
#include "troupe/mailbox_element.hpp"
#include "troupe/patterns/detail/stage.hpp"
#include "troupe/resumable.hpp"

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <unordered_map>
#include <utility>

namespace troupe::patterns::detail {

using troupe::detail::job;

/// Hands `j` to the scheduler behind `ctx` (the worker's own queue).
inline void submit(execution_unit* ctx, job* j) {
  j->ref_resumable();
  ctx->exec_later(j);
}

/// What every request's jobs share besides the data.
struct request_state {
  strong_actor_ptr stage;
  uint64_t id = 0;
  std::atomic<size_t> running{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure; // written once, by whoever set `failed`

  void record(std::exception_ptr e) {
    if (!failed.exchange(true, std::memory_order_acq_rel))
      failure = std::move(e);
  }

  /// Called by each job at its end; the last one tells the stage.
  void job_finished(execution_unit* ctx) {
    if (running.fetch_sub(1, std::memory_order_acq_rel) == 1)
      tell_done(ctx);
  }

  /// Tells the stage once; the request then no longer keeps it alive (the
  /// stage keeps the request until then, so this breaks the cycle).
  void tell_done(execution_unit* ctx) {
    auto dest = std::move(stage);
    dest->get()->enqueue(make_mailbox_element(nullptr, message_id::make(),
                                               make_message(job_done_atom{}, id)),
                          ctx);
  }
};

/// A stage whose requests run as jobs (map, div_conq). It keeps each
/// request's sender until the last job reports, then sends the request's
/// `data` on as the result, or answers with the failure.
template <class Request>
class job_stage : public stage_actor {
public:
  using stage_actor::stage_actor;

protected:
  /// A new request for the message being handled now.
  std::shared_ptr<Request> open_request() {
    auto [sender, mid] = this->take_current_request();
    auto req = std::make_shared<Request>();
    req->stage = this->self_ptr();
    req->id = next_id_++;
    pending_.emplace(req->id, entry{std::move(sender), mid, req});
    this->begin_work();
    return req;
  }

  /// The handler of job_done_atom.
  void on_job_done(uint64_t id) {
    auto i = pending_.find(id);
    if (i == pending_.end())
      return;
    auto x = std::move(i->second);
    pending_.erase(i);
    if (x.req->failed.load(std::memory_order_acquire))
      reject(std::move(x.sender), x.mid, failure(x.req->failure));
    else
      emit(std::move(x.sender), x.mid, make_message(std::move(x.req->data)));
    end_work();
  }

private:
  struct entry {
    strong_actor_ptr sender;
    message_id mid;
    std::shared_ptr<Request> req;
  };

  uint64_t next_id_ = 0;
  std::unordered_map<uint64_t, entry> pending_;
};

} // namespace troupe::patterns::detail
