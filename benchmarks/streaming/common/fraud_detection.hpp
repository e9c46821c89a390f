#pragma once

// FraudDetection (StreamBenchmarks' definition, after beymani's Markov-model
// outlier detection): source (lines `entityID,transactionID,type`) ->
// predictor (by key entity: the types of the entity's last 5 transactions
// are a sequence of states of a Markov model of 18 states; its score is the
// mean, over the sequence's 4 transitions, of the probability of going
// anywhere but where the entity went (the "miss probability"); a score
// above 0.96 is an outlier, and only outliers are emitted) -> sink.
// Plain C++17.

#include "streaming/common/stream.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace streaming::fraud_detection {

/// The size flag of every version, quick / full.
constexpr bench::size_flag input_size{"lines", 1'000'000, 4'000'000, "transactions"};

constexpr size_t state_count = 18;
/// The sink gets a few tuples per 100 source tuples: it samples the
/// latency of each (see stream.hpp).
constexpr uint64_t sample_every = 1;
constexpr size_t window_size = 5;
constexpr double threshold = 0.96;

/// A transaction as the source emits it: the entity (the key) and the rest
/// of the line, `transactionID,type`.
struct transaction {
  std::string entity;
  std::string record;
  int64_t ts;
};

/// An outlier: the entity, the transaction that completed its window, and
/// the window's score.
struct prediction {
  std::string entity;
  uint64_t transaction_id;
  double score;
  int64_t ts;
};

inline uint64_t key_of(const transaction& t) noexcept {
  return fnv1a(t.entity);
}

inline uint64_t tuple_hash(const prediction& p) noexcept {
  uint64_t bits;
  std::memcpy(&bits, &p.score, sizeof bits);
  return fnv1a(p.entity) ^ mix(p.transaction_id) ^ mix(bits + 1);
}

/// The 18 states: the transaction's amount (Low, Medium, High), whether it
/// followed the previous one after a Normal or a Long gap, and whether its
/// amount was Less than, Equal to or Greater than the previous one's.
inline const std::array<std::string, state_count>& state_names() {
  static const std::array<std::string, state_count> names = [] {
    std::array<std::string, state_count> result;
    size_t i = 0;
    for (char amount : {'L', 'M', 'H'})
      for (char gap : {'N', 'L'})
        for (char trend : {'L', 'E', 'G'})
          result[i++] = std::string{amount, gap, trend};
    return result;
  }();
  return names;
}

/// The Markov model: an 18 x 18 transition matrix, seeded, each row a few
/// likely successors and many unlikely ones, normalised to sum to 1.
class markov_model {
public:
  explicit markov_model(uint64_t seed = 2002) {
    random rng{seed};
    for (auto& row : p_) {
      double total = 0.0;
      for (auto& x : row) {
        double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
        x = 0.002 + u * u * u * u * u * u;
        total += x;
      }
      for (auto& x : row)
        x /= total;
    }
  }

  double probability(size_t from, size_t to) const noexcept {
    return p_[from][to];
  }

  /// The index of a state name, or state_count if there is none.
  static size_t index_of(std::string_view name) noexcept {
    const auto& names = state_names();
    for (size_t i = 0; i < state_count; ++i)
      if (names[i] == name)
        return i;
    return state_count;
  }

private:
  std::array<std::array<double, state_count>, state_count> p_;
};

/// `lines` transactions of 20,000 entities. Each entity's types follow the
/// model's chain, except that one transaction in 3 jumps to any state.
inline std::vector<std::string> generate(size_t lines, uint64_t seed = 2020) {
  random rng{seed};
  markov_model model;
  constexpr size_t entities = 20'000;
  std::vector<std::string> ids(entities);
  std::vector<size_t> state(entities);
  const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  for (size_t e = 0; e < entities; ++e) {
    for (int i = 0; i < 10; ++i)
      ids[e].push_back(alphabet[rng.between(0, 35)]);
    state[e] = static_cast<size_t>(rng.between(0, state_count - 1));
  }
  std::vector<std::string> result;
  result.reserve(lines);
  uint64_t transaction_id = 1'380'000'000;
  for (size_t i = 0; i < lines; ++i) {
    auto e = static_cast<size_t>(rng.between(0, entities - 1));
    size_t next;
    if (rng.between(0, 2) == 0) {
      next = static_cast<size_t>(rng.between(0, state_count - 1));
    } else {
      double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
      next = 0;
      for (double acc = model.probability(state[e], 0); acc <= u && next + 1 < state_count;)
        acc += model.probability(state[e], ++next);
    }
    state[e] = next;
    transaction_id += static_cast<uint64_t>(rng.between(1, 9));
    result.push_back(ids[e] + ',' + std::to_string(transaction_id) + ','
                     + state_names()[next]);
  }
  return result;
}

/// What the source does with a line: the entity before the first comma,
/// the record after it.
inline transaction parse(const std::string& line, int64_t ts) {
  auto comma = line.find(',');
  return transaction{line.substr(0, comma), line.substr(comma + 1), ts};
}

/// The key of a raw line (for partitioning the input among sources).
inline uint64_t line_key(const std::string& line) noexcept {
  return fnv1a(std::string_view{line}.substr(0, line.find(',')));
}

/// Keeps each entity's last 5 states and emits the transactions whose
/// window scores above the threshold.
class predictor {
public:
  template <class Emit>
  void consume(const transaction& x, Emit&& emit) {
    auto comma = x.record.find(',');
    auto state = markov_model::index_of(std::string_view{x.record}.substr(comma + 1));
    auto& window = windows_[x.entity];
    window.push_back(state);
    if (window.size() > window_size)
      window.pop_front();
    if (window.size() < window_size)
      return;
    double missed = 0.0;
    for (size_t i = 1; i < window_size; ++i)
      for (size_t j = 0; j < state_count; ++j)
        if (j != window[i])
          missed += model_.probability(window[i - 1], j);
    double score = missed / static_cast<double>(window_size - 1);
    if (score > threshold)
      emit(prediction{x.entity, std::stoull(x.record.substr(0, comma)), score, x.ts});
  }

private:
  markov_model model_;
  std::unordered_map<std::string, std::deque<size_t>> windows_;
};

inline uint64_t expected(const std::vector<std::string>& lines) {
  predictor predict;
  checksum sum;
  for (const auto& line : lines)
    predict.consume(parse(line, 0), [&](const prediction& p) { sum.add(tuple_hash(p)); });
  return sum.value();
}

} // namespace streaming::fraud_detection
