// ping_pong (floor): the least any actor runtime does per round trip, written
// by hand (DESIGN.md, "Performance budget"). Each hop allocates a message
// from a per-thread free list, pushes it into the receiver's intrusive MPSC
// mailbox (one atomic exchange), marks the receiver ready and queues it on
// the worker's run queue if it was idle (one more), pops it, calls the
// receiver's handler through a pointer and frees the message. The run queue
// is the owner's end of a work-stealing deque (Chase and Lev): its pop needs
// a full fence, as in any runtime whose idle workers steal. No behaviour
// lookup, no sender reference, no request bookkeeping: what a runtime does
// beyond this is its own cost. Same conversation as the other programs
// (one request in flight, the answer echoes the number).
// One thread: a round trip with one message in flight is sequential, so a
// runtime keeps both actors on one worker at any thread count. --threads is
// accepted for a uniform command line.

#include "common/options.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <utility>

namespace {

struct message {
  std::atomic<message*> next{nullptr};
  int32_t value = 0;
};

/// A per-thread free list: a runtime's size-class cache, one class.
class free_list {
public:
  ~free_list() {
    while (head_ != nullptr)
      delete std::exchange(head_, head_->next.load(std::memory_order_relaxed));
  }
  message* allocate(int32_t value) {
    auto* x = head_;
    if (x != nullptr)
      head_ = x->next.load(std::memory_order_relaxed);
    else
      x = new message;
    x->next.store(nullptr, std::memory_order_relaxed);
    x->value = value;
    return x;
  }
  void free(message* x) {
    x->next.store(head_, std::memory_order_relaxed);
    head_ = x;
  }

private:
  message* head_ = nullptr;
};

struct actor;
using handler_fn = void (*)(actor& self, const message& msg);

/// D. Vyukov's intrusive MPSC queue with a stub node, a ready flag and a
/// handler.
struct actor {
  message stub;
  std::atomic<message*> back{&stub};
  message* front = &stub;
  std::atomic<bool> ready{false};
  handler_fn handler = nullptr;
  actor* peer = nullptr;

  /// True if the caller must queue this actor.
  bool push(message* x) {
    auto* prev = back.exchange(x, std::memory_order_acq_rel);
    prev->next.store(x, std::memory_order_release);
    return !ready.exchange(true, std::memory_order_acq_rel);
  }

  message* pop() {
    auto* first = front;
    auto* next = first->next.load(std::memory_order_acquire);
    if (first == &stub) {
      if (next == nullptr)
        return nullptr;
      front = next;
      first = next;
      next = next->next.load(std::memory_order_acquire);
    }
    if (next != nullptr) {
      front = next;
      return first;
    }
    if (first != back.load(std::memory_order_acquire))
      return nullptr; // a push in flight; never on one thread
    stub.next.store(nullptr, std::memory_order_relaxed);
    auto* prev = back.exchange(&stub, std::memory_order_acq_rel);
    prev->next.store(&stub, std::memory_order_release);
    next = first->next.load(std::memory_order_acquire);
    if (next == nullptr)
      return nullptr;
    front = next;
    return first;
  }
};

/// The owner's end of a Chase-Lev deque (thieves would take from `top`).
class run_queue {
public:
  void push(actor* x) {
    auto b = bottom_.load(std::memory_order_relaxed);
    if (b - top_.load(std::memory_order_acquire) >= static_cast<int64_t>(slots_.size()))
      std::abort(); // two actors never fill it
    slots_[static_cast<size_t>(b) % slots_.size()].store(x, std::memory_order_relaxed);
    bottom_.store(b + 1, std::memory_order_release);
  }

  actor* pop() {
    auto b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    auto t = top_.load(std::memory_order_relaxed);
    if (t > b) {
      bottom_.store(b + 1, std::memory_order_relaxed);
      return nullptr;
    }
    auto* x = slots_[static_cast<size_t>(b) % slots_.size()].load(std::memory_order_relaxed);
    if (t == b) {
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst,
                                        std::memory_order_relaxed))
        x = nullptr;
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return x;
  }

private:
  std::atomic<int64_t> top_{0};
  std::atomic<int64_t> bottom_{0};
  std::array<std::atomic<actor*>, 64> slots_{};
};

thread_local free_list messages;
thread_local run_queue ready_actors;

void send(actor& to, int32_t value) {
  if (to.push(messages.allocate(value)))
    ready_actors.push(&to);
}

void resume(actor& self) {
  while (auto* x = self.pop()) {
    self.handler(self, *x);
    messages.free(x);
  }
  self.ready.store(false, std::memory_order_release);
}

int32_t rounds_left = 0;
uint64_t sum = 0;

void ping(actor& self, const message& msg) {
  sum += static_cast<uint64_t>(msg.value);
  if (--rounds_left > 0)
    send(*self.peer, rounds_left);
}

void pong(actor& self, const message& msg) {
  send(*self.peer, msg.value);
}

} // namespace

int main(int argc, char** argv) {
  bench::options opts{argc, argv,
                      {{"round-trips", 1'000'000, 1'000'000,
                        "sequential request/response round trips"}}};
  auto rounds = static_cast<int32_t>(opts["round-trips"]);
  actor a;
  actor b;
  a.handler = ping;
  b.handler = pong;
  a.peer = &b;
  b.peer = &a;
  rounds_left = rounds;
  send(b, rounds_left);
  while (auto* next = ready_actors.pop())
    resume(*next);
  auto n = static_cast<uint64_t>(rounds);
  return bench::checksum("sum", sum, n * (n + 1) / 2);
}
