#pragma once

// recmm (after Savina's parallelism benchmark RecMatMul): C = A * B for
// square matrices of `size` x `size` doubles, row-major. C is divided into
// quadrants recursively until a block is at most `cutoff` wide; each block
// of C is computed by one task with the block kernel below, so parallel
// tasks never write the same block.
//
// The kernel accumulates every element of C over k = 0, 1, ..., size - 1 in
// that order, whatever the block's place or shape, so every version gets a
// bit-identical C. The entries of A and B are small integers, so C is exact
// and can be checked in O(size^2) (Freivalds' test) instead of by a second
// multiplication.
// Plain C++17: the CAF 0.17 programs include it too.

#include "common/options.hpp"
#include "patterns/common/util.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace patterns::recmm {

inline constexpr uint64_t quick_size = 512;
inline constexpr uint64_t full_size = 1024;
inline constexpr uint64_t default_cutoff = 64;
inline constexpr uint64_t seed = 0x5eed0002;

/// A and B, size x size, entries integers in [-8, 8].
struct input {
  size_t size;
  std::vector<double> a;
  std::vector<double> b;
};

inline input make_input(size_t size) {
  random rng{seed};
  input in{size, std::vector<double>(size * size), std::vector<double>(size * size)};
  for (auto& x : in.a)
    x = static_cast<double>(rng.between(-8, 8));
  for (auto& x : in.b)
    x = static_cast<double>(rng.between(-8, 8));
  return in;
}

/// Whether the size and cutoff give square blocks all of one width: the
/// size is the cutoff times a power of two.
inline bool valid_sizes(size_t size, size_t cutoff) noexcept {
  if (cutoff == 0 || size < cutoff || size % cutoff != 0)
    return false;
  size_t ratio = size / cutoff;
  return (ratio & (ratio - 1)) == 0;
}

/// c[j] += a * b[j] for j < n; c and b do not overlap.
inline void add_scaled(double* __restrict c, double a, const double* __restrict b,
                       size_t n) noexcept {
  // Eight at a time, a count the compiler knows: it turns them into vector
  // instructions at -O2. A plain loop of one element stayed scalar, and its
  // few instructions ran 1.7x slower in some programs than in others,
  // depending on where the compiler placed and spilled them.
  size_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (size_t x = 0; x < 8; ++x)
      c[j + x] += a * b[j + x];
  for (; j < n; ++j)
    c[j] += a * b[j];
}

/// The block kernel every version uses: c[i][j] += sum over k of
/// a[i][k] * b[k][j] for a `rows` x `cols` block of C, with `inner` values
/// of k. ld* are the row strides. The i-k-j order streams rows of B and C.
inline void multiply_block(const double* a, size_t lda, const double* b, size_t ldb,
                           double* c, size_t ldc, size_t rows, size_t cols,
                           size_t inner) noexcept {
  for (size_t i = 0; i < rows; ++i) {
    double* c_row = c + i * ldc;
    for (size_t k = 0; k < inner; ++k)
      add_scaled(c_row, a[i * lda + k], b + k * ldb, cols);
  }
}

/// The block of C at (row, col), `width` wide, from the shared A and B.
/// The block's columns of B are first packed into a contiguous panel, as
/// any tuned kernel does (and as the actor versions receive them): rows of
/// B a whole matrix row apart map to the same cache sets.
inline void multiply_block_at(const input& in, double* c, size_t row, size_t col,
                              size_t width) {
  size_t n = in.size;
  thread_local std::vector<double> panel;
  panel.resize(n * width);
  for (size_t k = 0; k < n; ++k)
    std::copy_n(in.b.data() + k * n + col, width, panel.data() + k * width);
  multiply_block(in.a.data() + row * n, n, panel.data(), width, c + row * n + col, n, width,
                 width, n);
}

/// Exact sum of every element of A * B, from the column sums of A and the
/// row sums of B: what every version's checksum must be.
inline uint64_t expected_checksum(const input& in) {
  size_t n = in.size;
  int64_t total = 0;
  for (size_t k = 0; k < n; ++k) {
    int64_t a_col = 0, b_row = 0;
    for (size_t i = 0; i < n; ++i) {
      a_col += static_cast<int64_t>(in.a[i * n + k]);
      b_row += static_cast<int64_t>(in.b[k * n + i]);
    }
    total += a_col * b_row;
  }
  return static_cast<uint64_t>(total);
}

/// The sum of C's elements if C passes Freivalds' test (C x == A (B x) for
/// two seeded integer vectors x, exact in doubles), else 0.
inline uint64_t result_checksum(const input& in, const std::vector<double>& c) {
  size_t n = in.size;
  random rng{seed ^ 0xf00d};
  for (int round = 0; round < 2; ++round) {
    std::vector<double> x(n), bx(n, 0.0);
    for (auto& v : x)
      v = static_cast<double>(rng.between(-3, 3));
    for (size_t k = 0; k < n; ++k)
      for (size_t j = 0; j < n; ++j)
        bx[k] += in.b[k * n + j] * x[j];
    for (size_t i = 0; i < n; ++i) {
      double abx = 0.0, cx = 0.0;
      for (size_t k = 0; k < n; ++k) {
        abx += in.a[i * n + k] * bx[k];
        cx += c[i * n + k] * x[k];
      }
      if (abx != cx) {
        std::fprintf(stderr, "row %zu of C is wrong\n", i);
        return 0;
      }
    }
  }
  int64_t total = 0;
  for (double v : c)
    total += static_cast<int64_t>(v);
  return static_cast<uint64_t>(total);
}

/// The command line every version of recmm takes.
inline bench::options parse_options(int argc, char** argv) {
  return bench::options{argc, argv,
                        {{"size", quick_size, full_size, "rows (and columns) of A, B, C"},
                       {"cutoff", default_cutoff, default_cutoff,
                        "width of the blocks of C computed without splitting"}}};
}

} // namespace patterns::recmm
