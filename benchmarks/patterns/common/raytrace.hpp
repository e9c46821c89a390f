#pragma once

// raytrace: a built-in scene rendered row by row, shared by every version of
// the application (plain C++17: the CAF 0.17 program includes it too).
//
// The scene is made to be unbalanced: the upper part of the frame is empty
// sky (one ray that misses everything), the lower part a reflective checkered
// floor, and a dense cluster of mirror spheres in the lower left costs a few
// hundred intersection tests per ray and per bounce. A row's cost therefore
// varies by far more than 10x across the frame, which is why the versions
// hand out rows dynamically, one at a time.

#include "common/options.hpp"
#include "patterns/common/util.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace raytrace {

struct vec {
  double x, y, z;
};

inline vec operator+(vec a, vec b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline vec operator-(vec a, vec b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline vec operator*(vec a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline vec mul(vec a, vec b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
inline double dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline vec normalize(vec a) { return a * (1.0 / std::sqrt(dot(a, a))); }

struct sphere {
  vec center;
  double radius;
  vec color;
  double reflect;
};

struct light {
  vec position;
  vec color;
};

/// Everything a row needs: copied whole into every worker of the actor
/// versions (a few kilobytes).
struct scene {
  int width = 0;
  int height = 0;
  int max_depth = 0;
  vec eye{0, 0, 0};
  vec forward{0, 0, 1};
  vec right{1, 0, 0};
  vec up{0, 1, 0};
  double floor_reflect = 0.35;
  std::vector<sphere> cluster; // tested only when a ray enters the bound
  vec bound_center{0, 0, 0};
  double bound_radius = 0;
  std::vector<sphere> singles; // a few large spheres, always tested
  std::vector<light> lights;
};

/// Frame `frame` of the animation: the camera pans to the right.
inline scene make_scene(int width, int height, int frame) {
  scene s;
  s.width = width;
  s.height = height;
  s.max_depth = 5;
  s.eye = {-0.6 + 0.15 * frame, 1.6, -7.0};
  vec target{-0.6 + 0.1 * frame, 0.6, 4.0};
  s.forward = normalize(target - s.eye);
  s.right = normalize(vec{s.forward.z, 0, -s.forward.x});
  s.up = {s.right.y * s.forward.z - s.right.z * s.forward.y,
          s.right.z * s.forward.x - s.right.x * s.forward.z,
          s.right.x * s.forward.y - s.right.y * s.forward.x};
  // The cluster: a 9 x 5 x 7 lattice of small mirror spheres on the floor.
  vec lo{-5.2, 0.25, 1.5};
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 5; ++j)
      for (int k = 0; k < 7; ++k) {
        vec c = lo + vec{0.55 * i, 0.5 * j, 0.55 * k};
        vec color{0.3 + 0.07 * i, 0.3 + 0.1 * j, 0.9 - 0.08 * k};
        s.cluster.push_back({c, 0.22, color, 0.7});
      }
  vec hi = lo + vec{0.55 * 8, 0.5 * 4, 0.55 * 6};
  s.bound_center = (lo + hi) * 0.5;
  vec half = (hi - lo) * 0.5;
  s.bound_radius = std::sqrt(dot(half, half)) + 0.25;
  s.singles.push_back({{2.6, 1.0, 3.0}, 1.0, {0.9, 0.3, 0.2}, 0.3});
  s.singles.push_back({{4.2, 0.6, 6.0}, 0.6, {0.2, 0.8, 0.3}, 0.1});
  s.lights.push_back({{-8.0, 9.0, -4.0}, {0.6, 0.6, 0.55}});
  s.lights.push_back({{6.0, 7.0, -2.0}, {0.35, 0.35, 0.45}});
  s.lights.push_back({{0.0, 12.0, 8.0}, {0.25, 0.25, 0.25}});
  return s;
}

struct hit {
  double t = 1e30;
  vec normal{0, 0, 0};
  vec color{0, 0, 0};
  double reflect = 0;
};

// Nearest positive root of |o + t d - c| = r for a unit d, or a negative value.
inline double intersect(const sphere& sp, vec o, vec d) {
  vec oc = o - sp.center;
  double b = dot(oc, d);
  double c = dot(oc, oc) - sp.radius * sp.radius;
  double disc = b * b - c;
  if (disc < 0)
    return -1;
  double root = std::sqrt(disc);
  double t = -b - root;
  if (t > 1e-6)
    return t;
  t = -b + root;
  return t > 1e-6 ? t : -1;
}

inline bool enters_bound(const scene& s, vec o, vec d) {
  vec oc = o - s.bound_center;
  double b = dot(oc, d);
  double c = dot(oc, oc) - s.bound_radius * s.bound_radius;
  return c < 0 || (b < 0 && b * b - c >= 0);
}

inline void test(const sphere& sp, vec o, vec d, hit& h) {
  double t = intersect(sp, o, d);
  if (t > 0 && t < h.t) {
    h.t = t;
    h.normal = normalize(o + d * t - sp.center);
    h.color = sp.color;
    h.reflect = sp.reflect;
  }
}

inline bool trace_hit(const scene& s, vec o, vec d, hit& h) {
  for (const auto& sp : s.singles)
    test(sp, o, d, h);
  if (enters_bound(s, o, d))
    for (const auto& sp : s.cluster)
      test(sp, o, d, h);
  // The floor y = 0, checkered.
  if (d.y < -1e-9) {
    double t = -o.y / d.y;
    if (t > 1e-6 && t < h.t) {
      h.t = t;
      h.normal = {0, 1, 0};
      vec p = o + d * t;
      bool dark = (static_cast<long>(std::floor(p.x)) + static_cast<long>(std::floor(p.z))) & 1;
      h.color = dark ? vec{0.15, 0.15, 0.15} : vec{0.85, 0.85, 0.8};
      h.reflect = s.floor_reflect;
    }
  }
  return h.t < 1e29;
}

inline bool in_shadow(const scene& s, vec p, vec to_light, double distance) {
  hit h;
  h.t = distance;
  trace_hit(s, p, to_light, h);
  return h.t < distance;
}

inline vec trace(const scene& s, vec o, vec d, int depth) {
  hit h;
  if (!trace_hit(s, o, d, h)) {
    double k = 0.5 + 0.5 * d.y; // sky gradient
    return vec{0.55, 0.7, 0.95} * k + vec{1, 1, 1} * (1 - k) * 0.6;
  }
  vec p = o + d * h.t;
  vec color = h.color * 0.08; // ambient
  for (const auto& l : s.lights) {
    vec to = l.position - p;
    double distance = std::sqrt(dot(to, to));
    vec dir = to * (1.0 / distance);
    double lambert = dot(h.normal, dir);
    if (lambert <= 0 || in_shadow(s, p, dir, distance))
      continue;
    color = color + mul(h.color, l.color) * lambert;
    vec half = normalize(dir - d);
    double spec = std::pow(std::max(0.0, dot(h.normal, half)), 40.0);
    color = color + l.color * (spec * h.reflect);
  }
  if (h.reflect > 0 && depth < s.max_depth) {
    vec r = d - h.normal * (2 * dot(d, h.normal));
    color = color * (1 - h.reflect) + trace(s, p, r, depth + 1) * h.reflect;
  }
  return color;
}

inline uint32_t channel(double v) {
  return static_cast<uint32_t>(std::clamp(v, 0.0, 1.0) * 255.0 + 0.5);
}

/// Renders row `y` (0 is the top) into `out[0 .. width)`, one pixel as
/// 0x00RRGGBB; int32_t so that the row travels in a message type every
/// actor runtime knows.
inline void render_row(const scene& s, int y, int32_t* out) {
  double aspect = static_cast<double>(s.width) / s.height;
  double v = 1.0 - 2.0 * (y + 0.5) / s.height;
  for (int x = 0; x < s.width; ++x) {
    double u = (2.0 * (x + 0.5) / s.width - 1.0) * aspect;
    vec d = normalize(s.forward * 1.6 + s.right * u + s.up * v);
    vec c = trace(s, s.eye, d, 0);
    out[x] = static_cast<int32_t>((channel(c.x) << 16) | (channel(c.y) << 8) | channel(c.z));
  }
}

/// FNV-1a over the pixels of a frame, rows in order; frames chain through
/// `h` (start with fnv_offset).
constexpr uint64_t fnv_offset = 14695981039346656037ull;

inline uint64_t hash_pixels(uint64_t h, const int32_t* px, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<uint32_t>(px[i]);
    h *= 1099511628211ull;
  }
  return h;
}

struct sizes {
  int width;
  int height;
  int frames;
  bool debug;
};

inline sizes parse(int argc, char** argv, size_t* threads) {
  bench::options opts{argc, argv,
                      {{"width", 960, 1920, "pixels per row"},
                       {"height", 540, 1080, "rows per frame"},
                       {"frames", 1, 3, "frames, the camera panning between them"},
                       {"debug", 0, 0, "1: print the measured cost of the rows"}}};
  *threads = opts.threads();
  sizes result{static_cast<int>(opts["width"]), static_cast<int>(opts["height"]),
               static_cast<int>(opts["frames"]), opts["debug"] != 0};
  if (result.width < 1 || result.height < 1 || result.frames < 1) {
    std::fprintf(stderr, "--width, --height and --frames must be positive\n");
    std::exit(2);
  }
  return result;
}

/// With --debug=1: renders frame 0 once, timing every row, and prints how
/// far apart the cheapest and the costliest rows are (before the timed part).
inline void print_row_costs(const sizes& z) {
  if (!z.debug)
    return;
  scene s = make_scene(z.width, z.height, 0);
  std::vector<int32_t> row(static_cast<size_t>(z.width));
  double lo = 1e30;
  double hi = 0;
  for (int y = 0; y < z.height; ++y) {
    auto t0 = std::chrono::steady_clock::now();
    render_row(s, y, row.data());
    double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    lo = std::min(lo, dt);
    hi = std::max(hi, dt);
  }
  std::printf("debug rows: cheapest %.3g s, costliest %.3g s, ratio %.1f\n", lo, hi, hi / lo);
}

/// Sequential reference over every frame: the checksum of the given sizes.
inline uint64_t render_all(const sizes& z) {
  uint64_t h = fnv_offset;
  std::vector<int32_t> row(static_cast<size_t>(z.width));
  for (int f = 0; f < z.frames; ++f) {
    scene s = make_scene(z.width, z.height, f);
    for (int y = 0; y < z.height; ++y) {
      render_row(s, y, row.data());
      h = hash_pixels(h, row.data(), row.size());
    }
  }
  return h;
}

/// The checksum every version must reproduce: known for the default sizes,
/// computed sequentially (after the timed part) for others.
inline uint64_t expected(const sizes& z) {
  if (z.width == 960 && z.height == 540 && z.frames == 1)
    return 4371788513071334802ull;
  if (z.width == 1920 && z.height == 1080 && z.frames == 3)
    return 9564699306513371934ull;
  return render_all(z);
}

} // namespace raytrace
