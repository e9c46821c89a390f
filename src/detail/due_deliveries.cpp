#include "due_deliveries.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/detail/job.hpp"
#include "troupe/local_actor.hpp"
#include "troupe/scheduler/scheduler.hpp"

#include <utility>

namespace troupe::detail {

/// One due message, and the job that delivers the oldest one. Two
/// references: the queue's, dropped once the message is delivered (or the
/// queue is destroyed), and the scheduler's, dropped after the job ran (or
/// when a stopped scheduler refuses it).
class due_deliveries::entry final : public job {
public:
  entry(due_deliveries* owner, strong_actor_ptr to, mailbox_element_ptr what) noexcept
    : job(2), dest(std::move(to)), elem(std::move(what)), owner_(owner) {}

  strong_actor_ptr dest;
  mailbox_element_ptr elem;
  entry* next = nullptr; // under the owner's mutex

protected:
  void run(execution_unit* ctx) override {
    owner_->deliver_oldest(ctx);
  }

private:
  due_deliveries* owner_;
};

due_deliveries::~due_deliveries() {
  for (auto* e = head_; e != nullptr;) {
    auto* next = e->next;
    e->dest->system().add_dead_letter(e->elem->payload,
                                      "a due delayed message the stopped scheduler dropped");
    e->deref_resumable();
    e = next;
  }
}

void due_deliveries::push(strong_actor_ptr dest, mailbox_element_ptr elem) {
  auto* e = new entry(this, std::move(dest), std::move(elem));
  {
    std::lock_guard guard{mtx_};
    if (tail_ == nullptr)
      head_ = e;
    else
      tail_->next = e;
    tail_ = e;
  }
  // After the append: a job never finds the queue empty, since as many
  // entries were appended as jobs handed over, each before its job.
  sched_.schedule(e);
}

void due_deliveries::deliver_oldest(execution_unit* ctx) {
  entry* e;
  {
    std::lock_guard guard{mtx_};
    e = head_;
    head_ = e->next;
    if (head_ == nullptr)
      tail_ = nullptr;
    // Under the mutex, so that no later entry overtakes this one on another
    // worker. A full muting mailbox takes it anyway: no actor runs here to
    // pause, and a worker must not wait for room.
    no_push_wait over_the_bound;
    e->dest->get()->enqueue(std::move(e->elem), ctx);
  }
  // Outside the mutex: the last reference to the actor may go here.
  e->dest = nullptr;
  e->deref_resumable();
}

} // namespace troupe::detail
