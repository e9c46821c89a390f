#pragma once

// job: work that is not an actor, run once by the scheduler's workers like
// an actor is (the pieces of a map or div_conq request, the delivery of a
// due timer's message). Its references are counted: whoever hands it to a
// scheduler adds one, the scheduler drops it after the run, and the last one
// deletes the job.

#include "troupe/resumable.hpp"

#include <atomic>
#include <cstddef>

namespace troupe::detail {

class job : public resumable {
public:
  resume_result resume(execution_unit* ctx, size_t) final {
    run(ctx);
    return resume_result::done;
  }

  void ref_resumable() const noexcept final {
    refs_.fetch_add(1, std::memory_order_relaxed);
  }

  void deref_resumable() const noexcept final {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }

protected:
  /// `refs`: the references the job is made with, for holders known at
  /// construction; others add theirs with ref_resumable().
  explicit job(size_t refs = 0) noexcept : refs_(refs) {}

  virtual void run(execution_unit* ctx) = 0;

private:
  mutable std::atomic<size_t> refs_;
};

} // namespace troupe::detail
