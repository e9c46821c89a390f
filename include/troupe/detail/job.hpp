#pragma once

// job: work that is not an actor, run once by the scheduler's workers like
// an actor is (the pieces of a map or div_conq request, the delivery of a
// due timer's message). Its references are counted (counted_resumable).

#include "troupe/detail/counted_resumable.hpp"

#include <cstddef>

namespace troupe::detail {

class job : public counted_resumable {
public:
  resume_result resume(execution_unit* ctx, size_t) final {
    run(ctx);
    return resume_result::done;
  }

protected:
  explicit job(size_t refs = 0) noexcept : counted_resumable(refs) {}

  virtual void run(execution_unit* ctx) = 0;
};

} // namespace troupe::detail
