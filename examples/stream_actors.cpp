// Streaming with ordinary actors: an actor feeds a graph, an actor is one of
// its stages, and an actor receives what comes out.
//
//   reader (actor) -> splitter (seq_node) -> censor (actor) -> tally (actor)
//
// The reader sends lines to the graph's actor input as requests and keeps
// at most 4 unanswered: the answer comes once a line is in the graph, so a
// graph that falls behind slows the reader down without blocking a worker.
// Each stage that is an actor gets one request per tuple; its answers move
// on in input order.

#include <troupe/all.hpp>
#include <troupe/stream.hpp>

#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace troupe;

/// Emits the words of each line.
struct splitter : stream::seq_node<std::string, std::string> {
  void consume(std::string&& line, stream::emitter<std::string>& out) override {
    std::istringstream words{line};
    for (std::string word; words >> word;)
      out.emit(std::move(word));
  }
};

/// What the reader keeps between answers.
struct reader_state {
  actor input;
  std::vector<std::string> lines;
  size_t next = 0;
  size_t answered = 0;
};

/// Sends lines while at most 4 are unanswered; after the last answer, ends
/// the stream.
void read_more(event_based_actor* self, std::shared_ptr<reader_state> st) {
  for (; st->next < st->lines.size() && st->next - st->answered < 4; ++st->next)
    self->request(st->input, infinite, st->lines[st->next]).then([self, st] {
      if (++st->answered == st->lines.size())
        self->mail(close_atom_v).send(st->input); // end of stream
      else
        read_more(self, st);
    });
}

behavior reader(event_based_actor* self, actor input, std::vector<std::string> lines) {
  read_more(self, std::make_shared<reader_state>(reader_state{std::move(input), std::move(lines)}));
  return {};
}

/// A stage: answers each word with what goes on.
behavior censor() {
  return {
    [](const std::string& word) -> std::string { return word == "not" ? "***" : word; },
  };
}

/// The end of the graph: counts words; get_atom asks for the counts.
behavior tally(stateful_actor<std::map<std::string, int>>* self) {
  return {
    [self](const std::string& word) { ++self->state[word]; },
    [self](get_atom) { return self->state["be"] * 100 + self->state["***"]; },
  };
}

int main() {
  actor_system_config cfg;
  actor_system sys{cfg};

  auto counts = sys.spawn(tally);
  stream::graph g{sys};
  auto lines = g.add_actor_input<std::string>();
  auto split = g.add<splitter>().replicas(2);
  auto clean = g.add_actor<std::string, std::string>(sys.spawn(censor));
  auto count = g.add_actor<std::string>(counts); // emits nothing
  g.connect(lines, split);
  g.connect(split, clean);
  g.connect(clean, count);

  auto running = g.start();
  if (!running) {
    std::cerr << "cannot start: " << to_string(running.error()) << '\n';
    return 1;
  }
  sys.spawn(reader, lines.handle(),
            std::vector<std::string>{"to be or not to be", "that is the question",
                                     "not to be is not to be"});

  // The graph is an actor: it terminates when the graph has finished.
  scoped_actor self{sys};
  self->monitor(*running);
  self->receive([](const down_msg& msg) {
    if (msg.reason != error{exit_reason::normal})
      std::cerr << "the graph failed: " << to_string(msg.reason) << '\n';
  });

  int be_and_censored = 0;
  self->request(counts, std::chrono::seconds(5), get_atom_v)
    .receive([&](int x) { be_and_censored = x; },
             [](const error& err) { std::cerr << to_string(err) << '\n'; });
  std::cout << "'be' " << be_and_censored / 100 << " times, " << be_and_censored % 100
            << " words censored\n";
  return be_and_censored == 403 ? 0 : 1;
}
