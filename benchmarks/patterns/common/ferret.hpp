#pragma once

// ferret: content-based similarity search over generated images, shared by
// every version of the application (plain C++17: the CAF 0.17 program
// includes it too). A query runs through six stages:
//
//   load     (serial)  generates the query's image from its id: a dark, noisy
//                      background with bright random discs and rectangles
//   segment  (farm)    threshold, 4-connected components; the `segments`
//                      largest components are kept
//   extract  (farm)    per kept segment a feature vector (area, centroid,
//                      second moments, mean brightness, fill of its box)
//   lookup   (farm)    candidates from a locality-sensitive hash index of the
//                      database: several tables of random hyperplanes, each
//                      probed at the query's bucket and its one-bit neighbours
//   rank     (farm)    exact distance to every candidate (the best matching of
//                      the query's segments to the candidate's), top k
//   output   (serial)  collects every query's top k ids
//
// The checksum hashes the results in query order, so farms need not keep the
// order of the queries.

#include "common/options.hpp"
#include "patterns/common/util.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace ferret {

constexpr int segments = 4;        // segments kept per image
constexpr int per_segment = 8;     // features per segment
constexpr int dims = segments * per_segment;
constexpr int tables = 8;          // LSH tables
constexpr int bits = 12;           // hyperplanes per table: 4096 buckets
constexpr int top_k = 10;
constexpr uint8_t threshold = 128; // foreground: brighter than this

/// Draws on top of the study's generator: an integer below n (n < 2^32)
/// and a double in [0, 1).
inline uint32_t below(patterns::random& r, uint32_t n) noexcept {
  return static_cast<uint32_t>((r.next() >> 32) * n >> 32);
}

inline double unit(patterns::random& r) noexcept {
  return static_cast<double>(r.next() >> 11) * (1.0 / 9007199254740992.0);
}

using image = std::vector<std::byte>;

/// Stage 1: the image of query `id`, side x side pixels.
inline image load(int32_t id, int side) {
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

/// Stage 2: labels[i] in [0, kept) for the pixels of the `segments` largest
/// components (0 the largest; equal sizes by first pixel), -1 elsewhere.
/// Returns kept.
inline int32_t segment(const image& px, int side, std::vector<int32_t>& labels) {
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

/// Stage 3: the feature vector, `per_segment` values per kept segment, zero
/// for missing ones; every value lies in [0, 1].
inline std::vector<double> extract(const image& px, int side, const std::vector<int32_t>& labels,
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

/// The database and its hash index; read-only once made. The actor versions
/// give every lookup and rank replica its own copy.
struct database {
  int32_t size = 0;
  std::vector<double> vectors;                  // size x dims
  std::vector<double> planes;                   // tables x bits x dims
  std::vector<double> offsets;                  // tables x bits
  std::vector<std::vector<int32_t>> buckets;    // tables x 2^bits, ids ascending
};

inline uint32_t bucket_of(const database& db, int t, const double* v) {
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

/// Database vectors look like features: per segment a random area, centroid,
/// spread and brightness.
inline database make_database(int32_t size) {
  database db;
  db.size = size;
  patterns::random r{0xdb5eed};
  db.vectors.resize(static_cast<size_t>(size) * dims);
  for (int32_t i = 0; i < size; ++i) {
    double* v = db.vectors.data() + static_cast<size_t>(i) * dims;
    for (int s = 0; s < segments; ++s) {
      double* out = v + s * per_segment;
      double a = unit(r); // area: small ones more likely
      out[0] = 0.002 + 0.05 * a * unit(r);
      out[1] = unit(r);
      out[2] = unit(r);
      out[3] = 0.01 * unit(r);
      out[4] = 0.01 * unit(r);
      out[5] = 0.5 + 0.004 * (unit(r) - 0.5);
      out[6] = 0.55 + 0.43 * unit(r);
      out[7] = 0.6 + 0.4 * unit(r);
    }
  }
  // Hyperplanes through the database's centre, so that buckets are even.
  std::vector<double> mean(dims, 0.0);
  for (int32_t i = 0; i < size; ++i)
    for (int d = 0; d < dims; ++d)
      mean[static_cast<size_t>(d)] += db.vectors[static_cast<size_t>(i) * dims + d] / size;
  db.planes.resize(static_cast<size_t>(tables) * bits * dims);
  db.offsets.resize(static_cast<size_t>(tables) * bits);
  for (size_t p = 0; p < db.offsets.size(); ++p) {
    double offset = 0;
    for (int d = 0; d < dims; ++d) {
      double a = 2 * unit(r) - 1;
      db.planes[p * dims + d] = a;
      offset += a * mean[static_cast<size_t>(d)];
    }
    db.offsets[p] = offset;
  }
  db.buckets.assign(static_cast<size_t>(tables) << bits, {});
  for (int t = 0; t < tables; ++t)
    for (int32_t i = 0; i < size; ++i)
      db.buckets[(static_cast<size_t>(t) << bits) |
                 bucket_of(db, t, db.vectors.data() + static_cast<size_t>(i) * dims)]
        .push_back(i);
  return db;
}

/// Stage 4: candidate ids, ascending, each once.
inline std::vector<int32_t> lookup(const database& db, const std::vector<double>& f) {
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

/// The distance of two feature vectors: the best one-to-one matching of
/// their segments (all 24 permutations), squared Euclidean per pair.
inline double match_distance(const double* a, const double* b) {
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

/// Stage 5: the top_k candidates by distance (equal distances by id).
inline std::vector<int32_t> rank(const database& db, const std::vector<double>& f,
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

/// Everything the stages compute for one query, for the versions that hand
/// a query from stage to stage by pointer.
struct query {
  int32_t id = 0;
  image pixels;
  std::vector<int32_t> labels;
  int32_t kept = 0;
  std::vector<double> feature;
  std::vector<int32_t> candidates;
  std::vector<int32_t> top;
};

/// Stage 6's checksum: FNV-1a over (id, top ids) of each query, in id order;
/// results[id] is the top k of query id.
inline uint64_t hash_results(const std::vector<std::vector<int32_t>>& results) {
  uint64_t h = 14695981039346656037ull;
  auto mix = [&](uint32_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  for (size_t id = 0; id < results.size(); ++id) {
    mix(static_cast<uint32_t>(id));
    mix(static_cast<uint32_t>(results[id].size()));
    for (int32_t x : results[id])
      mix(static_cast<uint32_t>(x));
  }
  return h;
}

struct sizes {
  int32_t queries;
  int side;
  int32_t database;
};

inline sizes parse(int argc, char** argv, size_t* threads) {
  bench::options opts{argc, argv,
                      {{"queries", 600, 6'000, "query images"},
                       {"side", 128, 128, "pixels per image side"},
                       {"database", 20'000, 20'000, "feature vectors in the database"}}};
  *threads = opts.threads();
  sizes z{static_cast<int32_t>(opts["queries"]), static_cast<int>(opts["side"]),
          static_cast<int32_t>(opts["database"])};
  if (z.side < 8 || z.side > 4096 || z.database < 1 || opts["queries"] > 100'000'000) {
    std::fprintf(stderr, "--side must be in [8, 4096], --database positive\n");
    std::exit(2);
  }
  return z;
}

/// All stages of one query, in order.
inline void run_query(const database& db, int side, query& q) {
  q.pixels = load(q.id, side);
  q.kept = segment(q.pixels, side, q.labels);
  q.feature = extract(q.pixels, side, q.labels, q.kept);
  q.candidates = lookup(db, q.feature);
  q.top = rank(db, q.feature, q.candidates);
}

/// Sequential reference: the checksum of the given sizes.
inline uint64_t search_all(const database& db, const sizes& z) {
  std::vector<std::vector<int32_t>> results(static_cast<size_t>(z.queries));
  for (int32_t id = 0; id < z.queries; ++id) {
    query q;
    q.id = id;
    run_query(db, z.side, q);
    results[static_cast<size_t>(id)] = std::move(q.top);
  }
  return hash_results(results);
}

/// The checksum every version must reproduce: known for the default sizes,
/// computed sequentially (after the timed part) for others.
inline uint64_t expected(const database& db, const sizes& z) {
  if (z.queries == 600 && z.side == 128 && z.database == 20'000)
    return 7952923785002016388ull;
  if (z.queries == 6'000 && z.side == 128 && z.database == 20'000)
    return 11950358676731145836ull;
  return search_all(db, z);
}

} // namespace ferret
