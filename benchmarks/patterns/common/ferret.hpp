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
//
// The stages are defined in ferret_kernels.cpp, compiled once for every
// version (see CMakeLists.txt): each runs the same machine code.

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
image load(int32_t id, int side);

/// Stage 2: labels[i] in [0, kept) for the pixels of the `segments` largest
/// components (0 the largest; equal sizes by first pixel), -1 elsewhere.
/// Returns kept.
int32_t segment(const image& px, int side, std::vector<int32_t>& labels);

/// Stage 3: the feature vector, `per_segment` values per kept segment, zero
/// for missing ones; every value lies in [0, 1].
std::vector<double> extract(const image& px, int side, const std::vector<int32_t>& labels,
                            int32_t kept);

/// The database and its hash index; read-only once made. The actor versions
/// give every lookup and rank replica its own copy.
struct database {
  int32_t size = 0;
  std::vector<double> vectors;                  // size x dims
  std::vector<double> planes;                   // tables x bits x dims
  std::vector<double> offsets;                  // tables x bits
  std::vector<std::vector<int32_t>> buckets;    // tables x 2^bits, ids ascending
};

uint32_t bucket_of(const database& db, int t, const double* v);

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
std::vector<int32_t> lookup(const database& db, const std::vector<double>& f);

/// The distance of two feature vectors: the best one-to-one matching of
/// their segments (all 24 permutations), squared Euclidean per pair.
double match_distance(const double* a, const double* b);

/// Stage 5: the top_k candidates by distance (equal distances by id).
std::vector<int32_t> rank(const database& db, const std::vector<double>& f,
                          const std::vector<int32_t>& candidates);

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
