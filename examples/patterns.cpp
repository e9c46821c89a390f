// Parallel patterns: parallelise a hot spot by spawning a pattern instead of
// writing workers, routing and result collection by hand. A pattern is one
// actor handle; request it like any actor.
//
//   seq(fn)                 one stage running fn
//   pipeline(a, b, ...)     stages in order
//   farm(w, n, policy)      n replicas of w (round_robin, by_key, ...)
//   map(fn, partitioning)   fn over slices of a container, in place
//   div_conq(divide, combine, base_case, is_base)
//
// Any pattern nests in any other. Work runs on the scheduler's workers.

#include <troupe/all.hpp>
#include <troupe/patterns.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <iostream>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

using namespace troupe;
using namespace troupe::patterns;

using ints = std::vector<int32_t>;

int main() {
  actor_system_config cfg;
  actor_system sys{cfg};
  scoped_actor self{sys};
  auto timeout = std::chrono::seconds{10};
  int failures = 0;
  auto check = [&](bool ok, const char* what) {
    std::cout << (ok ? "ok    " : "FAILED") << "  " << what << '\n';
    failures += ok ? 0 : 1;
  };

  // 1. A pipeline whose middle stage is a farm: each request goes through
  //    all three stages and gets its own answer.
  auto words = spawn_pattern(sys, pipeline(
    seq([](std::string line) { return static_cast<int32_t>(line.size()); }).name("length"),
    farm(seq([](int32_t n) { return n * n; }).name("square")),
    seq([](int32_t n) { return "area " + std::to_string(n); }).name("format")));
  self->request(words, timeout, std::string{"hello"})
    .receive([&](const std::string& s) { check(s == "area 25", "pipeline of a farm"); },
             [&](const error& err) { check(false, to_string(err).c_str()); });

  // 2. map: the vector is moved in, shared by the workers without copies,
  //    transformed in place slice by slice, and moved back out.
  auto roots = spawn_pattern(sys, map([](slice<std::vector<double>> s) {
    for (auto& x : s)
      x = std::sqrt(x);
  }));
  std::vector<double> squares(1'000'000);
  for (size_t i = 0; i < squares.size(); ++i)
    squares[i] = static_cast<double>(i * i);
  self->request(roots, timeout, std::move(squares))
    .receive([&](const std::vector<double>& xs) { check(xs[1234] == 1234.0, "map"); },
             [&](const error& err) { check(false, to_string(err).c_str()); });

  // 3. div_conq: quicksort in place. Sub-problems run as jobs on the
  //    workers; below 2,000 elements a worker sorts sequentially.
  auto sort = spawn_pattern(sys, div_conq(
    [](slice<ints> s) { // divide: partition around the middle element
      auto pivot = s[s.size() / 2];
      auto mid1 = std::partition(s.begin(), s.end(), [&](int32_t x) { return x < pivot; });
      auto mid2 = std::partition(mid1, s.end(), [&](int32_t x) { return x == pivot; });
      return std::array{s.sub(0, mid1 - s.begin()), s.sub(mid2 - s.begin(), s.size())};
    },
    [](slice<ints>&, std::span<slice<ints>>) {}, // combine: nothing, sorted in place
    [](slice<ints> s) { std::sort(s.begin(), s.end()); }, // base case
    [](const slice<ints>& s) { return s.size() <= 2000; })); // is it small enough?
  ints numbers(1'000'000);
  std::iota(numbers.begin(), numbers.end(), 0);
  std::shuffle(numbers.begin(), numbers.end(), std::mt19937{42});
  self->request(sort, timeout, std::move(numbers))
    .receive([&](const ints& xs) { check(std::is_sorted(xs.begin(), xs.end()), "div_conq"); },
             [&](const error& err) { check(false, to_string(err).c_str()); });

  // 4. Errors are values: an exception in a stage fails that request only,
  //    naming the stage; the pattern goes on serving.
  auto picky = spawn_pattern(sys, seq([](int32_t x) {
    if (x < 0)
      throw std::invalid_argument("negative input");
    return x;
  }).name("picky"));
  self->request(picky, timeout, int32_t{-1})
    .receive([&](int32_t) { check(false, "an exception should fail the request"); },
             [&](const error& err) {
               std::cout << "        " << to_string(err) << '\n';
               check(err == errc::unhandled_exception, "exception in a stage");
             });
  return failures == 0 ? 0 : 1;
}
