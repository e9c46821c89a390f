#pragma once

// WordCount (StreamBenchmarks' definition): source (lines of text) ->
// splitter (splits each line on spaces) -> counter (by key word: a running
// count per word, emits (word, count) for every word) -> sink. Plain C++17.

#include "streaming/common/stream.hpp"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace streaming::wordcount {

/// The size flag of every version, quick / full.
constexpr bench::size_flag input_size{"lines", 50'000, 1'000'000, "lines of text"};

/// A line of the input, as the source emits it.
struct sentence {
  std::string text;
  int64_t ts;
};

/// One word of a line.
struct word {
  std::string text;
  int64_t ts;
};

/// A word and how many times the counter has seen it so far.
struct word_count {
  std::string text;
  uint64_t count;
  int64_t ts;
};

/// The key of the splitter -> counter edge.
inline uint64_t key_of(const word& w) noexcept {
  return fnv1a(w.text);
}

inline uint64_t tuple_hash(const word_count& x) noexcept {
  return fnv1a(x.text) ^ mix(x.count);
}

/// `lines` lines of 4 to 16 words drawn from a vocabulary of 20,000 made-up
/// words (2 to 11 letters) with a skewed frequency, as in text: the input
/// the source replays.
inline std::vector<std::string> generate(size_t lines, uint64_t seed = 21) {
  random rng{seed};
  std::vector<std::string> vocabulary(20'000);
  for (auto& w : vocabulary) {
    auto length = rng.between(2, 11);
    for (int64_t i = 0; i < length; ++i)
      w.push_back(static_cast<char>('a' + rng.between(0, 25)));
  }
  std::vector<std::string> result(lines);
  for (auto& line : result) {
    auto words = rng.between(4, 16);
    for (int64_t i = 0; i < words; ++i) {
      // u^3 favours the first words of the vocabulary, as a Zipf law would.
      double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
      auto index = static_cast<size_t>(u * u * u * static_cast<double>(vocabulary.size()));
      if (i > 0)
        line.push_back(' ');
      line += vocabulary[index];
    }
  }
  return result;
}

/// Splits a line on spaces, one tuple per word.
class splitter {
public:
  template <class Emit>
  void consume(const sentence& x, Emit&& emit) {
    const auto& s = x.text;
    size_t start = 0;
    while (start < s.size()) {
      auto end = s.find(' ', start);
      if (end == std::string::npos)
        end = s.size();
      if (end > start)
        emit(word{s.substr(start, end - start), x.ts});
      start = end + 1;
    }
  }
};

/// Counts the words of its keys; emits each word with its running count.
class counter {
public:
  template <class Emit>
  void consume(const word& x, Emit&& emit) {
    auto n = ++counts_[x.text];
    emit(word_count{x.text, n, x.ts});
  }

private:
  std::unordered_map<std::string, uint64_t> counts_;
};

/// The sink's checksum over `lines`, computed by one plain loop over the
/// same operators.
inline uint64_t expected(const std::vector<std::string>& lines) {
  splitter split;
  counter count;
  checksum sum;
  for (const auto& line : lines)
    split.consume(sentence{line, 0}, [&](word w) {
      count.consume(w, [&](const word_count& c) { sum.add(tuple_hash(c)); });
    });
  return sum.value();
}

} // namespace streaming::wordcount
