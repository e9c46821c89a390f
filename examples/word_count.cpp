// Streaming: count words with a graph of typed operators.
//
//   lines -> splitter (2 replicas) -> counter (2 replicas, by word) -> printer
//
// Each operator is a class with consume(); the graph connects them with
// bounded typed queues, routes each word to the counter replica that owns
// it (by_key), and runs on the actor system's workers. A full queue makes
// its producer wait (back-pressure); nothing is dropped. The end of the
// input reaches every replica, and on_stop runs once per replica.

#include <troupe/all.hpp>
#include <troupe/stream.hpp>

#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace troupe;

using word_count = std::pair<std::string, int>;

/// Emits the words of each line.
struct splitter : stream::seq_node<std::string, std::string> {
  void consume(std::string&& line, stream::emitter<std::string>& out) override {
    std::istringstream words{line};
    for (std::string word; words >> word;)
      out.emit(std::move(word));
  }
};

/// A running count per word: each replica owns the words by_key sends it.
struct counter : stream::seq_node<std::string, word_count> {
  void consume(std::string&& word, stream::emitter<word_count>& out) override {
    auto n = ++counts[word];
    out.emit({std::move(word), n});
  }

  std::map<std::string, int> counts; // this replica's words only: no lock
};

/// Keeps the latest count of each word.
struct totals : stream::sink_node<word_count> {
  explicit totals(std::map<std::string, int>* result) : result(result) {}

  void consume(word_count&& x) override {
    (*result)[x.first] = x.second;
  }

  std::map<std::string, int>* result; // one replica: no lock
};

int main() {
  actor_system_config cfg;
  actor_system sys{cfg};

  std::map<std::string, int> result;
  stream::graph g{sys};
  auto lines = g.add_input<std::string>();
  auto split = g.add<splitter>().replicas(2);
  auto count = g.add<counter>().replicas(2);
  auto print = g.add<totals>(&result);
  g.connect(lines, split);
  g.connect(split, count, by_key{[](const std::string& word) { return word; }});
  g.connect(count, print);

  auto running = g.start();
  if (!running) {
    std::cerr << "cannot start: " << to_string(running.error()) << '\n';
    return 1;
  }
  for (const char* line : {"to be or not to be", "that is the question",
                           "whether tis nobler in the mind to suffer"})
    if (auto err = lines.push(line)) {
      std::cerr << "push failed: " << to_string(err) << '\n';
      return 1;
    }
  lines.close(); // end of stream

  // The graph is an actor: it terminates when the graph has finished.
  scoped_actor self{sys};
  self->monitor(*running);
  self->receive([](const down_msg&) {});

  for (const auto& [word, n] : result)
    std::cout << word << ' ' << n << '\n';
  return result["to"] == 3 && result["be"] == 2 ? 0 : 1;
}
