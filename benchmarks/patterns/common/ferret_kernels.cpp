// ferret's stages (declared and described in ferret.hpp), compiled once
// into the library every version of the application links.

#include "patterns/common/ferret.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ferret {

image load(int32_t id, int side) {
  patterns::random r{0xfe77e7ull * 1000003ull + static_cast<uint64_t>(id)};
  image px(static_cast<size_t>(side) * side);
  for (auto& p : px)
    p = static_cast<std::byte>(20 + below(r, 60));
  int shapes = 6 + static_cast<int>(below(r, 10));
  for (int s = 0; s < shapes; ++s) {
    int cx = static_cast<int>(below(r, static_cast<uint32_t>(side)));
    int cy = static_cast<int>(below(r, static_cast<uint32_t>(side)));
    int size = 3 + static_cast<int>(below(r, static_cast<uint32_t>(side / 6)));
    auto level = static_cast<std::byte>(140 + below(r, 110));
    bool disc = below(r, 2) == 0;
    for (int y = std::max(0, cy - size); y < std::min(side, cy + size + 1); ++y)
      for (int x = std::max(0, cx - size); x < std::min(side, cx + size + 1); ++x)
        if (!disc || (x - cx) * (x - cx) + (y - cy) * (y - cy) <= size * size)
          px[static_cast<size_t>(y) * side + x] = level;
  }
  return px;
}

int32_t segment(const image& px, int side, std::vector<int32_t>& labels) {
  size_t n = px.size();
  labels.assign(n, -1);
  std::vector<int32_t> stack;
  std::vector<std::pair<int32_t, int32_t>> sizes; // (-size, component)
  int32_t components = 0;
  for (size_t start = 0; start < n; ++start) {
    if (labels[start] != -1 || static_cast<uint8_t>(px[start]) <= threshold)
      continue;
    int32_t c = components++;
    int32_t size = 0;
    labels[start] = c;
    stack.push_back(static_cast<int32_t>(start));
    while (!stack.empty()) {
      int32_t i = stack.back();
      stack.pop_back();
      ++size;
      int x = i % side;
      int y = i / side;
      auto visit = [&](int nx, int ny) {
        if (nx < 0 || ny < 0 || nx >= side || ny >= side)
          return;
        size_t j = static_cast<size_t>(ny) * side + nx;
        if (labels[j] == -1 && static_cast<uint8_t>(px[j]) > threshold) {
          labels[j] = c;
          stack.push_back(static_cast<int32_t>(j));
        }
      };
      visit(x - 1, y);
      visit(x + 1, y);
      visit(x, y - 1);
      visit(x, y + 1);
    }
    sizes.emplace_back(-size, c);
  }
  std::sort(sizes.begin(), sizes.end());
  auto kept = static_cast<int32_t>(std::min<size_t>(segments, sizes.size()));
  std::vector<int32_t> rename(static_cast<size_t>(components), -1);
  for (int32_t k = 0; k < kept; ++k)
    rename[static_cast<size_t>(sizes[static_cast<size_t>(k)].second)] = k;
  for (auto& l : labels)
    if (l != -1)
      l = rename[static_cast<size_t>(l)];
  return kept;
}

std::vector<double> extract(const image& px, int side, const std::vector<int32_t>& labels,
                            int32_t kept) {
  struct moments {
    double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0, light = 0;
    int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
  };
  std::array<moments, segments> m{};
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) {
      size_t i = static_cast<size_t>(y) * side + x;
      int32_t l = labels[i];
      if (l < 0)
        continue;
      auto& s = m[static_cast<size_t>(l)];
      s.n += 1;
      s.sx += x;
      s.sy += y;
      s.sxx += static_cast<double>(x) * x;
      s.syy += static_cast<double>(y) * y;
      s.sxy += static_cast<double>(x) * y;
      s.light += static_cast<uint8_t>(px[i]);
      s.x0 = std::min(s.x0, x);
      s.y0 = std::min(s.y0, y);
      s.x1 = std::max(s.x1, x);
      s.y1 = std::max(s.y1, y);
    }
  std::vector<double> f(dims, 0.0);
  double w = side;
  for (int32_t k = 0; k < kept; ++k) {
    const auto& s = m[static_cast<size_t>(k)];
    double mx = s.sx / s.n;
    double my = s.sy / s.n;
    double* out = f.data() + k * per_segment;
    out[0] = s.n / (w * w);
    out[1] = mx / w;
    out[2] = my / w;
    out[3] = (s.sxx / s.n - mx * mx) / (w * w);
    out[4] = (s.syy / s.n - my * my) / (w * w);
    out[5] = 0.5 + (s.sxy / s.n - mx * my) / (w * w);
    out[6] = s.light / s.n / 255.0;
    out[7] = s.n / ((s.x1 - s.x0 + 1.0) * (s.y1 - s.y0 + 1.0));
  }
  return f;
}

uint32_t bucket_of(const database& db, int t, const double* v) {
  uint32_t key = 0;
  for (int b = 0; b < bits; ++b) {
    const double* plane = db.planes.data() + (static_cast<size_t>(t) * bits + b) * dims;
    double s = 0;
    for (int d = 0; d < dims; ++d)
      s += plane[d] * v[d];
    if (s > db.offsets[static_cast<size_t>(t) * bits + b])
      key |= 1u << b;
  }
  return key;
}

std::vector<int32_t> lookup(const database& db, const std::vector<double>& f) {
  std::vector<int32_t> out;
  for (int t = 0; t < tables; ++t) {
    uint32_t key = bucket_of(db, t, f.data());
    for (int flip = -1; flip < bits; ++flip) {
      uint32_t probe = flip < 0 ? key : key ^ (1u << flip);
      const auto& b = db.buckets[(static_cast<size_t>(t) << bits) | probe];
      out.insert(out.end(), b.begin(), b.end());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double match_distance(const double* a, const double* b) {
  double pair[segments][segments];
  for (int i = 0; i < segments; ++i)
    for (int j = 0; j < segments; ++j) {
      double s = 0;
      for (int d = 0; d < per_segment; ++d) {
        double diff = a[i * per_segment + d] - b[j * per_segment + d];
        s += diff * diff;
      }
      pair[i][j] = s;
    }
  std::array<int, segments> perm{0, 1, 2, 3};
  double best = 1e300;
  do {
    double s = 0;
    for (int i = 0; i < segments; ++i)
      s += pair[i][perm[static_cast<size_t>(i)]];
    best = std::min(best, s);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

std::vector<int32_t> rank(const database& db, const std::vector<double>& f,
                          const std::vector<int32_t>& candidates) {
  std::vector<std::pair<double, int32_t>> scored;
  scored.reserve(candidates.size());
  for (int32_t id : candidates)
    scored.emplace_back(
      match_distance(f.data(), db.vectors.data() + static_cast<size_t>(id) * dims), id);
  size_t k = std::min<size_t>(top_k, scored.size());
  std::partial_sort(scored.begin(), scored.begin() + static_cast<ptrdiff_t>(k), scored.end());
  std::vector<int32_t> top(k);
  for (size_t i = 0; i < k; ++i)
    top[i] = scored[i].second;
  return top;
}

} // namespace ferret
