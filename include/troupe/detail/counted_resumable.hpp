#pragma once

// counted_resumable: a resumable that is neither an actor nor owned by one
// (a job, a stream graph's runner), kept alive by counted references:
// whoever hands it to a scheduler adds one, the scheduler drops it after the
// run, and the last one deletes it.

#include "troupe/resumable.hpp"

#include <atomic>
#include <cstddef>

namespace troupe::detail {

class counted_resumable : public resumable {
public:
  void ref_resumable() const noexcept final {
    refs_.fetch_add(1, std::memory_order_relaxed);
  }

  void deref_resumable() const noexcept final {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1)
      delete this;
  }

protected:
  /// `refs`: the references it is made with, for holders known at
  /// construction; others add theirs with ref_resumable().
  explicit counted_resumable(size_t refs = 0) noexcept : refs_(refs) {}

private:
  mutable std::atomic<size_t> refs_;
};

} // namespace troupe::detail
