#include "troupe/detail/deferred_flush.hpp"

#include <vector>

namespace troupe::detail {

constinit thread_local bool flushes_deferred = false;
constinit thread_local bool has_deferred_flushes = false;
constinit thread_local const flushable* last_deferred = nullptr;

namespace {

std::vector<std::shared_ptr<flushable>>& deferred_list() {
  thread_local std::vector<std::shared_ptr<flushable>> list;
  return list;
}

} // namespace

void defer_flush(std::shared_ptr<flushable> x) {
  auto& list = deferred_list();
  if (!list.empty() && list.back() == x)
    return;
  last_deferred = x.get();
  list.push_back(std::move(x));
  has_deferred_flushes = true;
}

void run_deferred_flushes() noexcept {
  auto& list = deferred_list();
  has_deferred_flushes = false;
  last_deferred = nullptr;
  // A flush may defer nothing new: flushes_deferred is false by now.
  for (auto& x : list)
    x->flush();
  list.clear();
}

} // namespace troupe::detail
