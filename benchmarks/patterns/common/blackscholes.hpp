#pragma once

// blackscholes (after PARSEC's blackscholes): price a portfolio of European
// options with the Black-Scholes formula, in float, `runs` times over the
// same portfolio (PARSEC's NUM_RUNS), each run split statically into one
// contiguous chunk per worker. The options are generated from a seed with
// the fields of PARSEC's input file; the kernel uses spot, strike, rate,
// volatility, time and type. Every version prices each option with the one
// function below, so the prices are bit-identical whatever the split.
// Plain C++17: the CAF 0.17 programs include it too.

#include "common/options.hpp"
#include "patterns/common/util.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace patterns::blackscholes {

inline constexpr uint64_t quick_options = 400'000;
inline constexpr uint64_t full_options = 1'000'000;
inline constexpr uint64_t quick_runs = 20;
inline constexpr uint64_t full_runs = 100;
inline constexpr uint64_t seed = 0x5eed0003;

/// One line of PARSEC's input format.
struct option_data {
  float spot;       // S, the underlying's price
  float strike;     // K
  float rate;       // r, risk-free rate
  float dividend;   // divq, dividend rate (0 here, as in PARSEC's inputs)
  float volatility; // v
  float time;       // T, years to maturity
  char type;        // 'C' call or 'P' put
  float div_s;      // divs (unused by the kernel)
  float reference;  // DGrefval, a reference price (unused: we check bits)
};

inline std::vector<option_data> make_input(size_t count) {
  random rng{seed};
  std::vector<option_data> xs(count);
  for (auto& x : xs) {
    x.spot = 20.0f + 100.0f * rng.unit_float();
    x.strike = x.spot * (0.8f + 0.4f * rng.unit_float());
    x.rate = 0.01f + 0.09f * rng.unit_float();
    x.dividend = 0.0f;
    x.volatility = 0.05f + 0.6f * rng.unit_float();
    x.time = 0.1f + 1.9f * rng.unit_float();
    x.type = (rng.next() & 1) != 0 ? 'C' : 'P';
    x.div_s = 0.0f;
    x.reference = 0.0f;
  }
  return xs;
}

/// The fields the kernel reads, as one record of floats. Messages of the
/// actor versions carry chunks of these as a flat std::vector<float>, a type
/// every runtime carries without a custom serialiser.
inline constexpr size_t fields = 6;

inline void pack(const option_data& x, float* out) noexcept {
  out[0] = x.spot;
  out[1] = x.strike;
  out[2] = x.rate;
  out[3] = x.volatility;
  out[4] = x.time;
  out[5] = x.type == 'P' ? 1.0f : 0.0f;
}

inline std::vector<float> pack_all(const std::vector<option_data>& xs) {
  std::vector<float> out(xs.size() * fields);
  for (size_t i = 0; i < xs.size(); ++i)
    pack(xs[i], out.data() + i * fields);
  return out;
}

/// Standard normal cumulative distribution, by the polynomial approximation
/// 26.2.17 of Abramowitz and Stegun (absolute error below 7.5e-8), in float
/// as PARSEC computes it.
inline float cndf(float x) noexcept {
  bool negative = x < 0.0f;
  float ax = negative ? -x : x;
  float density = std::exp(-0.5f * ax * ax) * 0.39894228040143270286f; // 1/sqrt(2 pi)
  float k = 1.0f / (1.0f + 0.2316419f * ax);
  float poly = k * (0.319381530f
                    + k * (-0.356563782f
                           + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
  float upper = 1.0f - density * poly;
  return negative ? 1.0f - upper : upper;
}

/// Black-Scholes price of a European option without dividends.
inline float price(float spot, float strike, float rate, float volatility, float time,
                   bool put) noexcept {
  float sqrt_time = std::sqrt(time);
  float v_sqrt_t = volatility * sqrt_time;
  float d1 = (std::log(spot / strike) + (rate + 0.5f * volatility * volatility) * time)
             / v_sqrt_t;
  float d2 = d1 - v_sqrt_t;
  float discounted_strike = strike * std::exp(-rate * time);
  if (put)
    return discounted_strike * (1.0f - cndf(d2)) - spot * (1.0f - cndf(d1));
  return spot * cndf(d1) - discounted_strike * cndf(d2);
}

/// Prices records [begin, end) of a packed chunk into out[begin, end).
inline void price_packed(const float* packed, float* out, size_t begin, size_t end) noexcept {
  for (size_t i = begin; i < end; ++i) {
    const float* x = packed + i * fields;
    out[i] = price(x[0], x[1], x[2], x[3], x[4], x[5] != 0.0f);
  }
}

inline float price(const option_data& x) noexcept {
  return price(x.spot, x.strike, x.rate, x.volatility, x.time, x.type == 'P');
}

/// Prices options [begin, end) of the portfolio into prices[begin, end).
inline void price_range(const option_data* xs, float* prices, size_t begin,
                        size_t end) noexcept {
  for (size_t i = begin; i < end; ++i)
    prices[i] = price(xs[i]);
}

/// Chunk w of `workers` in a static split of `count` items: [first, last).
inline void chunk(size_t count, size_t workers, size_t w, size_t& first,
                  size_t& last) noexcept {
  first = count * w / workers;
  last = count * (w + 1) / workers;
}

/// The hash of the prices one sequential pass computes: what every
/// version's result must hash to.
inline uint64_t expected_checksum(const std::vector<option_data>& xs) {
  std::vector<float> prices(xs.size());
  price_range(xs.data(), prices.data(), 0, xs.size());
  return hash_floats(prices.data(), prices.size());
}

inline uint64_t result_checksum(const std::vector<float>& prices) {
  return hash_floats(prices.data(), prices.size());
}

/// The command line every version of blackscholes takes.
inline bench::options parse_options(int argc, char** argv) {
  return bench::options{argc, argv,
                        {{"options", quick_options, full_options, "options to price"},
                       {"runs", quick_runs, full_runs, "passes over the portfolio"}}};
}

} // namespace patterns::blackscholes
