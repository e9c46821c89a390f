#pragma once

// SpikeDetection (StreamBenchmarks' definition): source (Intel Berkeley
// Research Lab sensor lines `date time epoch moteid temperature humidity
// light voltage`) -> moving average (by key device: the mean temperature of
// the device's last 1,000 readings, kept incrementally) -> detector (a
// reading is a spike when |temperature - mean| > 0.025 * mean; only spikes
// are emitted) -> sink. Plain C++17.

#include "streaming/common/stream.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace streaming::spike_detection {

/// The size flag of every version, quick / full.
constexpr bench::size_flag input_size{"lines", 2'000'000, 10'000'000, "sensor readings"};

/// The sink gets a few tuples per 100 source tuples: it samples the
/// latency of each (see stream.hpp).
constexpr uint64_t sample_every = 1;
constexpr size_t window_size = 1'000;
constexpr double spike_threshold = 0.025;
constexpr int devices = 54; // the motes of the Intel lab

/// A reading as the source emits it.
struct reading {
  int32_t device;
  double value; // temperature, the property the benchmark watches
  int64_t ts;
};

/// A reading with its device's moving average.
struct averaged {
  int32_t device;
  double value;
  double mean;
  int64_t ts;
};

inline uint64_t key_of(const reading& r) noexcept {
  return static_cast<uint64_t>(r.device);
}

inline uint64_t tuple_hash(const averaged& x) noexcept {
  uint64_t v, m;
  std::memcpy(&v, &x.value, sizeof v);
  std::memcpy(&m, &x.mean, sizeof m);
  return mix(static_cast<uint64_t>(x.device)) ^ mix(v + 1) ^ (m * 0x9e3779b97f4a7c15ULL);
}

namespace detail {

/// Appends x with `decimals` digits after the point (snprintf's %f is slow).
inline void append_fixed(std::string& out, double x, int decimals) {
  if (x < 0) {
    out.push_back('-');
    x = -x;
  }
  int64_t scale = 1;
  for (int i = 0; i < decimals; ++i)
    scale *= 10;
  auto scaled = static_cast<int64_t>(x * static_cast<double>(scale) + 0.5);
  out += std::to_string(scaled / scale);
  out.push_back('.');
  auto fraction = std::to_string(scaled % scale);
  out.append(static_cast<size_t>(decimals) - fraction.size(), '0');
  out += fraction;
}

inline void append_two_digits(std::string& out, long x) {
  out.push_back(static_cast<char>('0' + x / 10));
  out.push_back(static_cast<char>('0' + x % 10));
}

} // namespace detail

/// `lines` readings of the 54 motes in the lab's format: each mote's
/// temperature drifts slowly around its own level with some noise, and one
/// reading in 100 is off by 1 to 4 degrees.
inline std::vector<std::string> generate(size_t lines, uint64_t seed = 2004) {
  random rng{seed};
  std::vector<double> level(devices);
  for (auto& l : level)
    l = 17.0 + 6.0 * rng.unit_float();
  std::vector<std::string> result;
  result.reserve(lines);
  for (size_t i = 0; i < lines; ++i) {
    auto mote = static_cast<int>(rng.between(1, devices));
    auto epoch = static_cast<long>(i / devices) + 2;
    double drift = 0.2 * std::sin(static_cast<double>(epoch) / 20'000.0 + mote);
    double t = level[static_cast<size_t>(mote - 1)] + drift + 0.3 * (rng.unit_float() - 0.5);
    if (rng.between(0, 99) == 0)
      t += (rng.between(0, 1) == 0 ? -1.0 : 1.0) * (1.0 + 3.0 * rng.unit_float());
    long seconds = 13'000 + static_cast<long>(i / 20);
    std::string line = "2004-03-";
    detail::append_two_digits(line, 1 + (seconds / 86'400) % 30);
    line.push_back(' ');
    detail::append_two_digits(line, (seconds / 3'600) % 24);
    line.push_back(':');
    detail::append_two_digits(line, (seconds / 60) % 60);
    line.push_back(':');
    detail::append_fixed(line, static_cast<double>(seconds % 60) + rng.unit_float(), 6);
    line.push_back(' ');
    line += std::to_string(epoch);
    line.push_back(' ');
    line += std::to_string(mote);
    line.push_back(' ');
    detail::append_fixed(line, t, 4);
    line.push_back(' ');
    detail::append_fixed(line, 35.0 + 10.0 * rng.unit_float(), 4);
    line.push_back(' ');
    detail::append_fixed(line, 40.0 + 100.0 * rng.unit_float(), 2);
    line.push_back(' ');
    detail::append_fixed(line, 2.3 + 0.4 * rng.unit_float(), 5);
    result.push_back(std::move(line));
  }
  return result;
}

/// What the source does with a line: the mote id (4th field) and the
/// temperature (5th). std::from_chars, as LinearRoad's dispatcher: with
/// strtol and strtod, which honour the locale, every version spent about
/// 70 ns more per tuple (Troupe at 1 worker: 6.6 against 12.4 Mtuples/s).
inline reading parse(const std::string& line, int64_t ts) {
  const char* p = line.data();
  const char* last = p + line.size();
  for (int field = 0; field < 3; ++field)
    p = static_cast<const char*>(std::memchr(p, ' ', static_cast<size_t>(last - p))) + 1;
  int32_t device = 0;
  p = std::from_chars(p, last, device).ptr + 1;
  double value = 0;
  std::from_chars(p, last, value);
  return reading{device, value, ts};
}

inline uint64_t line_key(const std::string& line) noexcept {
  return key_of(parse(line, 0));
}

/// The mean of each device's last 1,000 readings, updated per reading by
/// adding the new value and subtracting the one that leaves the window.
class moving_average {
public:
  template <class Emit>
  void consume(const reading& x, Emit&& emit) {
    auto& w = windows_[x.device];
    if (w.values.size() < window_size) {
      w.values.push_back(x.value);
    } else {
      w.sum -= w.values[w.next];
      w.values[w.next] = x.value;
      w.next = (w.next + 1) % window_size;
    }
    w.sum += x.value;
    emit(averaged{x.device, x.value, w.sum / static_cast<double>(w.values.size()), x.ts});
  }

private:
  struct window {
    std::vector<double> values;
    size_t next = 0; // the oldest value once the window is full
    double sum = 0.0;
  };

  std::unordered_map<int32_t, window> windows_;
};

/// Stateless: passes on the readings that are spikes.
class detector {
public:
  template <class Emit>
  void consume(const averaged& x, Emit&& emit) {
    if (std::fabs(x.value - x.mean) > spike_threshold * x.mean)
      emit(x);
  }
};

inline uint64_t expected(const std::vector<std::string>& lines) {
  moving_average average;
  detector detect;
  checksum sum;
  for (const auto& line : lines)
    average.consume(parse(line, 0), [&](const averaged& a) {
      detect.consume(a, [&](const averaged& s) { sum.add(tuple_hash(s)); });
    });
  return sum.value();
}

} // namespace streaming::spike_detection
