// quicksort (caf-0.17 and caf-1.x): CAF's plain actors the "pure" actor way of
// Savina's QuickSort: one actor per sub-problem, and the data travel in
// messages as copies. A sorter gets its part of the vector, sorts it alone
// if it is no larger than the cutoff, else partitions it and spawns one
// child per outer part with a copy of that part; it copies the sorted parts
// back into place as they return and sends the whole up to its parent.
// troupe-actors/quicksort.cpp is the same program against Troupe's API; the
// CAF-version differences go through common/caf_compat.hpp.

#include "common/caf_compat.hpp"
#include "common/options.hpp"
#include "patterns/common/quicksort.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace qs = patterns::quicksort;

#if CAF_MAJOR_VERSION >= 1
CAF_BEGIN_TYPE_ID_BLOCK(patterns_quicksort, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(patterns_quicksort, (std::vector<int32_t>))
CAF_END_TYPE_ID_BLOCK(patterns_quicksort)
#endif

namespace {

using values = std::vector<int32_t>;

// Messages: `values` (the part to sort, to a new sorter) and
// `(int32_t side, values)` (a sorted part, to the parent; side 0 is the part
// below the pivot, side 1 the part above).
class sorter : public caf::event_based_actor {
public:
  sorter(caf::actor_config& cfg, caf::actor parent, int32_t side, size_t cutoff)
    : caf::event_based_actor(cfg), parent_(std::move(parent)), side_(side),
      cutoff_(cutoff) {}

  caf::behavior make_behavior() override {
    return {
      [this](values& part) { start(part); },
      [this](int32_t side, values& sorted) { merge(side, sorted); },
    };
  }

private:
  void start(values& part) {
    data_ = std::move(part);
    if (data_.size() <= cutoff_) {
      qs::sort_base(data_.data(), data_.size());
      finish();
      return;
    }
    auto [lt, gt] = qs::partition(data_.data(), data_.size());
    upper_ = gt;
    if (lt > 0)
      split(0, 0, lt);
    if (gt < data_.size())
      split(1, gt, data_.size());
    if (pending_ == 0)
      finish();
  }

  void split(int32_t side, size_t first, size_t last) {
    ++pending_;
    auto child = spawn<sorter>(caf::actor_cast<caf::actor>(this), side, cutoff_);
    caf_compat::tell(this, child,
                     values(data_.begin() + static_cast<ptrdiff_t>(first),
                            data_.begin() + static_cast<ptrdiff_t>(last)));
  }

  void merge(int32_t side, values& sorted) {
    std::copy(sorted.begin(), sorted.end(),
              data_.begin() + static_cast<ptrdiff_t>(side == 0 ? 0 : upper_));
    if (--pending_ == 0)
      finish();
  }

  void finish() {
    caf_compat::tell(this, parent_, side_, std::move(data_));
    quit();
  }

  caf::actor parent_;
  int32_t side_;
  size_t cutoff_;
  values data_;
  size_t upper_ = 0; // where the part above the pivot starts in data_
  int pending_ = 0;  // children whose sorted part has not come back
};

} // namespace

int main(int argc, char** argv) {
  auto opts = qs::parse_options(argc, argv);
  auto data = qs::make_input(opts["size"]);
  auto expected = qs::expected_checksum(data);
  values result;
  BENCH_CAF_INIT_META_OBJECTS(patterns_quicksort);
  {
    caf::actor_system_config cfg;
    caf_compat::set_max_threads(cfg, opts.threads());
    caf::actor_system sys{cfg};
    caf::scoped_actor self{sys};
    patterns::compute_timer timer;
    auto root = sys.spawn<sorter>(caf::actor{self}, int32_t{0}, size_t{opts["cutoff"]});
    caf_compat::tell(self.ptr(), root, values(data));
    self->receive([&](int32_t, values& sorted) { result = std::move(sorted); });
    timer.stop();
  }
  return bench::checksum("sorted", qs::result_checksum(result), expected);
}
