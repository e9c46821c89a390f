#include "troupe/blocking_actor.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/detail/cpu_relax.hpp"

#include <algorithm>

namespace troupe {

namespace {

/// Pause instructions a blocking actor spins before it sleeps (a few
/// microseconds: 10 to 140 cycles each, depending on the x86 core).
constexpr int spin_before_sleep = 300;

} // namespace

actor_exited::actor_exited(error reason)
  : reason_(std::move(reason)), what_("troupe::actor_exited: " + to_string(reason_)) {}

const char* actor_exited::what() const noexcept {
  return what_.c_str();
}

blocking_actor::blocking_actor(actor_config& cfg) : local_actor(cfg) {}

blocking_actor::~blocking_actor() = default;

void blocking_actor::act() {
  // Function-based blocking actors run their function instead.
}

void blocking_actor::enqueue(mailbox_element_ptr elem, execution_unit* ctx) {
  if (push_to_mailbox(elem, ctx))
    wakeup_.unpark();
}

void blocking_actor::finish(error reason) {
  cleanup(std::move(reason), nullptr);
}

bool blocking_actor::active() const noexcept {
  if (borrows_thread_)
    return false;
  switch (receive_wait_.load(std::memory_order_relaxed)) {
    case receive_wait::none:
    case receive_wait::timed:
      return true;
    case receive_wait::untimed:
      break;
  }
  return mailbox_.size() > 0;
}

mailbox_element_ptr blocking_actor::dequeue(clock::time_point deadline) {
  struct waiting {
    std::atomic<receive_wait>& where;
    waiting(std::atomic<receive_wait>& w, receive_wait x) : where(w) {
      where.store(x, std::memory_order_relaxed);
    }
    ~waiting() {
      where.store(receive_wait::none, std::memory_order_relaxed);
    }
  } report{receive_wait_, deadline == clock::time_point::max() ? receive_wait::untimed
                                                                 : receive_wait::timed};
  for (;;) {
    if (auto* x = mailbox_.pop()) {
      after_pop();
      return mailbox_element_ptr{x};
    }
    if (mailbox_.closed())
      return nullptr;
    // A response often arrives within microseconds: look a while before
    // paying a sleep and a wake-up in the kernel.
    for (int i = 0; i < spin_before_sleep && mailbox_.empty(); ++i)
      detail::cpu_relax();
    if (!mailbox_.try_block())
      continue; // a message arrived meanwhile
    if (deadline == clock::time_point::max()) {
      wakeup_.park();
      continue;
    }
    if (wakeup_.park_until(deadline))
      continue;
    if (mailbox_.try_unblock())
      return nullptr;
    // A sender unblocked us as the deadline passed and unparks us: take
    // that token so that the next wait does not return at once.
    wakeup_.park();
  }
}

bool blocking_actor::handle_system_message(mailbox_element_ptr& elem) {
  auto& msg = elem->payload;
  if (msg.match_elements<exit_msg>()) {
    auto& x = msg.get_mutable_as<exit_msg>(0);
    if (x.reason == exit_reason::system_shutdown) {
      shut_down_ = true;
      return true;
    }
    if (x.reason == exit_reason::kill || (!trap_exit_ && x.reason))
      throw actor_exited{x.reason};
    // A normal exit is ignored unless trapped; a trapped one is a message.
    return !trap_exit_;
  }
  return msg.match_elements<detail::request_timeout_msg>();
}

void blocking_actor::receive_shutdown(behavior& bhvr) {
  auto msg = make_message(error{errc::system_shutdown, "the actor system shut down"});
  detail::handler_result ignored;
  if (!bhvr.invoke(msg, ignored))
    throw actor_exited{exit_reason::system_shutdown};
}

blocking_actor::receive_status blocking_actor::receive_one(behavior& bhvr,
                                                           clock::time_point deadline) {
  if (shut_down_)
    return receive_status::shut_down;
  auto try_handle = [&](mailbox_element_ptr& elem) {
    bool matched = false;
    with_current_message(*elem, [&] {
      detail::handler_result res;
      matched = bhvr.invoke(elem->payload, res) && res.kind != detail::result_kind::skip;
      if (matched)
        respond(*elem, res);
    });
    return matched;
  };
  // Messages skipped by an earlier receive come first, in arrival order.
  if (!stash_.empty()) {
    mailbox_type::list_type rest;
    bool done = false;
    while (auto* x = stash_.pop_front()) {
      mailbox_element_ptr elem{x};
      if (!done && !elem->mid.is_response() && try_handle(elem)) {
        done = true;
        continue;
      }
      rest.push_back(elem.release());
    }
    stash_ = std::move(rest);
    if (done)
      return receive_status::handled;
  }
  for (;;) {
    auto elem = dequeue(deadline);
    if (!elem)
      return receive_status::timed_out;
    if (handle_system_message(elem) || is_stale_response(*elem)) {
      if (shut_down_)
        return receive_status::shut_down;
      continue;
    }
    if (!elem->mid.is_response() && try_handle(elem))
      return receive_status::handled;
    stash_.push_back(elem.release());
  }
}

mailbox_element_ptr blocking_actor::await_response(uint64_t number, clock::time_point deadline) {
  if (shut_down_)
    return nullptr;
  auto is_answer = [number](const mailbox_element& x) {
    return x.mid.is_response() && x.mid.request_number() == number;
  };
  if (!stash_.empty()) {
    mailbox_type::list_type rest;
    mailbox_element_ptr found;
    while (auto* x = stash_.pop_front()) {
      if (!found && is_answer(*x))
        found.reset(x);
      else
        rest.push_back(x);
    }
    stash_ = std::move(rest);
    if (found)
      return found;
  }
  for (;;) {
    auto elem = dequeue(deadline);
    if (!elem) {
      timed_out_.push_back(number);
      return nullptr;
    }
    if (is_answer(*elem))
      return elem;
    if (handle_system_message(elem) || is_stale_response(*elem)) {
      if (shut_down_)
        return nullptr;
      continue;
    }
    stash_.push_back(elem.release());
  }
}

bool blocking_actor::is_stale_response(const mailbox_element& elem) {
  if (timed_out_.empty() || !elem.mid.is_response())
    return false;
  auto i = std::find(timed_out_.begin(), timed_out_.end(), elem.mid.request_number());
  if (i == timed_out_.end())
    return false;
  timed_out_.erase(i);
  return true;
}

void blocking_actor::on_cleanup(const error& reason, execution_unit* ctx) {
  local_actor::on_cleanup(reason, ctx);
  bounce_all(stash_, reason, ctx);
}

} // namespace troupe
