#include "troupe/local_actor.hpp"

#include "detail/system_internals.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/defaults.hpp"
#include "troupe/detail/hot.hpp"
#include "troupe/logger.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace troupe {

std::optional<std::string> detail::exception_what(std::exception_ptr eptr) {
  try {
    std::rethrow_exception(std::move(eptr));
  } catch (const std::exception& e) {
    return std::string{e.what()};
  } catch (...) {
    return std::nullopt;
  }
}

error detail::exit_reason_of(std::exception_ptr eptr) {
  return error{exit_reason::unhandled_exception,
               exception_what(std::move(eptr)).value_or("an exception of unknown type")};
}

namespace detail {

constinit thread_local local_actor* running_actor = nullptr;
constinit thread_local bool push_may_wait = true;

/// The bound of a mailbox and the actors muted on it.
struct bounded_mailbox {
  std::atomic<size_t> capacity{0};
  std::atomic<mailbox_overflow> overflow{mailbox_overflow::mute};
  std::mutex mtx;
  // Guarded by mtx; each holds a strong reference until it is unmuted.
  std::vector<strong_actor_ptr> muted;
  // True while `muted` may be non-empty: the receiver reads it after each
  // message it takes, without the lock (see add_muted for the fences).
  std::atomic<bool> has_muted{false};
};

} // namespace detail

local_actor::local_actor(actor_config& cfg) : abstract_actor(cfg) {
  auto& conf = system().config();
  if (conf.mailbox.capacity > 0)
    set_mailbox_capacity(conf.mailbox.capacity, conf.mailbox.overflow);
}

local_actor::~local_actor() {
  delete bounded_.load(std::memory_order_relaxed);
}

void detail::check_mailbox_capacity(size_t capacity) {
  if (capacity > defaults::mailbox::max_capacity)
    throw std::invalid_argument{"mailbox capacity " + std::to_string(capacity)
                                + " exceeds the largest bound, "
                                + std::to_string(defaults::mailbox::max_capacity)};
}

void local_actor::set_mailbox_capacity(size_t capacity, mailbox_overflow overflow) {
  detail::check_mailbox_capacity(capacity);
  auto* b = bounded_.load(std::memory_order_acquire);
  if (b == nullptr) {
    if (capacity == 0)
      return;
    b = new detail::bounded_mailbox;
    b->capacity.store(capacity, std::memory_order_relaxed);
    b->overflow.store(overflow, std::memory_order_relaxed);
    bounded_.store(b, std::memory_order_release);
    return;
  }
  b->overflow.store(overflow, std::memory_order_relaxed);
  b->capacity.store(capacity, std::memory_order_relaxed);
  if (capacity == 0 || overflow == mailbox_overflow::drop)
    release_muted();
}

size_t local_actor::mailbox_capacity() const noexcept {
  auto* b = bounded_.load(std::memory_order_acquire);
  return b != nullptr ? b->capacity.load(std::memory_order_relaxed) : 0;
}

namespace detail {

void mute_running_actor(abstract_actor* full) {
  running_actor->request_mute(full);
}

void resume_muted(const strong_actor_ptr& x) {
  static_cast<local_actor*>(x->get())->resume_muted();
}

} // namespace detail

bool local_actor::mailbox_full() const noexcept {
  auto cap = mailbox_capacity();
  return cap != 0 && mailbox_size() >= cap;
}

bool local_actor::mailbox_drained() const noexcept {
  auto cap = mailbox_capacity();
  return cap == 0 || mailbox_size() < cap / 2 || terminated();
}

void local_actor::request_mute(abstract_actor*) {
  // Only event-based actors are ever muted.
}

void local_actor::unmute() {
  // Only event-based actors are ever muted.
}

bool local_actor::add_muted(strong_actor_ptr sender) {
  auto* b = bounded_.load(std::memory_order_acquire);
  if (b == nullptr)
    return false;
  std::lock_guard guard{b->mtx};
  // Dekker with release_muted_if_drained: we announce a muted sender, then
  // look at the size; the receiver takes a message, then looks for muted
  // senders. With a full fence on both sides, one of us sees the other.
  b->has_muted.store(true, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  auto cap = b->capacity.load(std::memory_order_relaxed);
  if (cap == 0 || b->overflow.load(std::memory_order_relaxed) != mailbox_overflow::mute
      || mailbox_.size() < cap / 2 || mailbox_.closed()) {
    if (b->muted.empty())
      b->has_muted.store(false, std::memory_order_relaxed);
    return false;
  }
  b->muted.push_back(std::move(sender));
  return true;
}

void local_actor::release_muted_if_drained(detail::bounded_mailbox& b) {
  auto cap = b.capacity.load(std::memory_order_relaxed);
  if (cap != 0 && mailbox_.size() >= cap / 2)
    return;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (b.has_muted.load(std::memory_order_relaxed))
    release_muted();
}

void local_actor::release_muted() {
  auto* b = bounded_.load(std::memory_order_acquire);
  if (b == nullptr)
    return;
  std::vector<strong_actor_ptr> xs;
  {
    std::lock_guard guard{b->mtx};
    xs.swap(b->muted);
    b->has_muted.store(false, std::memory_order_relaxed);
  }
  for (auto& x : xs)
    static_cast<local_actor*>(x->get())->resume_muted();
}

void local_actor::resume_if_pressed(detail::bounded_mailbox& b) {
  auto cap = b.capacity.load(std::memory_order_relaxed);
  if (cap == 0 || mailbox_.size() < cap / 2)
    return;
  // Dekker with scheduled_actor::try_mute: we pushed, then look for the
  // flag; it sets the flag, then looks at the size.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (muted_.load(std::memory_order_relaxed))
    resume_muted();
}

bool local_actor::make_room(detail::bounded_mailbox& b, mailbox_element_ptr& elem,
                            execution_unit* ctx) {
  auto cap = b.capacity.load(std::memory_order_relaxed);
  if (cap == 0 || elem->mid.is_response() || elem->mid.is_system() || mailbox_.size() < cap)
    return true;
  if (b.overflow.load(std::memory_order_relaxed) == mailbox_overflow::mute) {
    // An event-based sender is queued and pauses after its handler (unless
    // it is under pressure itself, or sends to itself: it is the one that
    // drains). The timer thread never waits.
    if (detail::running_actor != nullptr) {
      if (detail::running_actor != this)
        detail::running_actor->request_mute(this);
      return true;
    }
    if (!detail::push_may_wait)
      return true;
    // Any other thread waits for room, polling: it is outside the scheduler
    // and nobody would wake it.
    auto deadline = std::chrono::steady_clock::now() + system().config().mailbox.push_timeout;
    auto pause = std::chrono::microseconds{10};
    auto half = std::max<size_t>(cap / 2, 1);
    while (mailbox_.size() >= half && !mailbox_.closed()) {
      if (std::chrono::steady_clock::now() >= deadline) {
        refuse(elem, cap, ctx);
        return false;
      }
      std::this_thread::sleep_for(pause);
      pause = std::min(2 * pause, std::chrono::microseconds{1000});
    }
    return true;
  }
  refuse(elem, cap, ctx);
  return false;
}

void local_actor::refuse(mailbox_element_ptr& elem, size_t cap, execution_unit* ctx) {
  auto why = "actor#" + std::to_string(id()) + "'s mailbox is full (capacity "
             + std::to_string(cap) + ")";
  if (elem->mid.is_request() && elem->sender)
    bounce(std::move(elem), error{errc::queue_full, std::move(why)}, system(), ctx);
  else
    system().add_dead_letter(elem->payload, "queue_full: " + why);
  elem.reset();
}

void local_actor::quit(error reason) {
  quit_requested_ = true;
  quit_reason_ = std::move(reason);
}

const strong_actor_ptr& local_actor::current_sender() const noexcept {
  static const strong_actor_ptr none;
  return current_element_ ? current_element_->sender : none;
}

message_id local_actor::current_message_id() const noexcept {
  return current_element_ ? current_element_->mid : message_id{};
}

response_promise local_actor::make_response_promise() {
  if (current_element_ == nullptr || current_element_->mid.is_answered()
      || current_element_->mid.is_response() || current_element_->mid.is_system())
    return response_promise{self_ptr(), nullptr, message_id{}};
  auto mid = current_element_->mid;
  // The promise answers now; the handler's own result must not.
  current_element_->mid = mid.with_answered();
  return response_promise{self_ptr(), current_element_->sender, mid};
}

TROUPE_HOT void local_actor::deliver(actor_control_block* dest, mailbox_element_ptr elem) {
  if (dest == nullptr) {
    bounce(std::move(elem), error{errc::invalid_argument, "invalid actor handle"},
           system(), context_);
    return;
  }
  dest->get()->enqueue(std::move(elem), context_);
}

disposable local_actor::delayed_deliver(strong_actor_ptr dest, timespan delay,
                                        mailbox_element_ptr elem) {
  if (!dest) {
    bounce(std::move(elem), error{errc::invalid_argument, "invalid actor handle"},
           system(), context_);
    return {};
  }
  return detail::deliver_later(std::move(dest), delay, std::move(elem));
}

disposable detail::deliver_later(strong_actor_ptr dest, timespan delay,
                                 mailbox_element_ptr elem) {
  // Dropped unsent and not disposed (the system shut down first), it counts
  // as a dead letter.
  struct delayed_message {
    std::shared_ptr<delayed_state> state;
    strong_actor_ptr dest;
    mailbox_element_ptr elem;
    delayed_message(std::shared_ptr<delayed_state> s, strong_actor_ptr d, mailbox_element_ptr e)
      : state(std::move(s)), dest(std::move(d)), elem(std::move(e)) {}
    delayed_message(delayed_message&&) noexcept = default;
    ~delayed_message() {
      if (elem && state && state->settle())
        dest->system().add_dead_letter(elem->payload, "a delayed message the shutdown dropped");
    }
    void operator()() {
      if (!state->settle()) {
        elem.reset(); // disposed
        return;
      }
      auto& sys = dest->system();
      detail::system_internals::deliver_due(sys, std::move(dest), std::move(elem));
    }
  };
  auto& sys = dest->system();
  auto state = std::make_shared<delayed_state>(sys.weak_clock());
  auto& clock = sys.clock();
  auto deadline = clock.now() + delay;
  state->set_timer(
    clock.schedule(deadline, delayed_message{state, std::move(dest), std::move(elem)}));
  return disposable{std::move(state)};
}

void local_actor::forward_current(actor_control_block* dest, message msg) {
  if (current_element_ == nullptr)
    return;
  auto mid = current_element_->mid;
  // The delegate answers now; the handler's own result must not.
  current_element_->mid = mid.with_answered();
  deliver(dest, make_mailbox_element(current_element_->sender, mid, std::move(msg)));
}

void local_actor::respond(mailbox_element& req, detail::handler_result& res) {
  if (req.mid.is_answered() || req.mid.is_response() || req.mid.is_system())
    return;
  switch (res.kind) {
    case detail::result_kind::value:
      // A request is answered with a response; a plain send gets a non-empty
      // result back as an ordinary message, as in CAF.
      if (req.mid.is_request() || !res.value.empty())
        reply(req, std::move(res.value));
      return;
    case detail::result_kind::error:
      reply(req, make_message(std::move(res.err)));
      return;
    case detail::result_kind::delegated:
    case detail::result_kind::skip:
      return;
  }
}

void local_actor::reply(mailbox_element& req, message payload) {
  if (!req.sender) {
    system().add_dead_letter(payload, "a result for a message without a sender");
    return;
  }
  auto reply_id = req.mid.is_request() ? req.mid.response_id() : message_id::make();
  req.sender->get()->enqueue(make_mailbox_element(self_ptr(), reply_id, std::move(payload)),
                             context_);
}

TROUPE_HOT bool local_actor::push_to_mailbox(mailbox_element_ptr& elem, execution_unit* ctx) {
  auto* b = bounded_.load(std::memory_order_acquire);
  if (b != nullptr) [[unlikely]]
    if (!make_room(*b, elem, ctx))
      return false;
  switch (mailbox_.push(elem.get())) {
    case detail::inbox_result::success:
      elem.release();
      if (b != nullptr) [[unlikely]]
        resume_if_pressed(*b);
      return false;
    case detail::inbox_result::backlog:
      // We may be what keeps the receiver from running: it may sit in a
      // slot of our worker that no other worker can take.
      elem.release();
      if (b != nullptr) [[unlikely]]
        resume_if_pressed(*b);
      if (ctx != nullptr)
        ctx->share_private_work();
      return false;
    case detail::inbox_result::unblocked_reader:
      elem.release();
      return true;
    case detail::inbox_result::queue_closed:
      break;
  }
  bounce(std::move(elem), down_error(fail_state()), system(), ctx);
  return false;
}

error local_actor::down_error(const error& reason) const {
  // A request caught by shutdown learns why, not only that the actor is gone.
  auto code = reason == exit_reason::system_shutdown ? errc::system_shutdown : errc::actor_down;
  return error{code,
               "actor#" + std::to_string(id()) + " has terminated: " + to_string(reason)};
}

bool local_actor::active() const noexcept {
  // An idle actor blocks its mailbox (scheduled_actor::resume, a blocking
  // actor's dequeue); size() is never too low while a sender pushes.
  return !mailbox_.blocked() || mailbox_.size() > 0;
}

std::string local_actor::wait_report() const {
  std::string out = std::to_string(mailbox_.size()) + " queued messages";
  if (auto n = pending_requests_.load(std::memory_order_relaxed); n > 0)
    out += ", " + std::to_string(n) + " pending requests";
  switch (receive_wait_.load(std::memory_order_relaxed)) {
    case receive_wait::none:
      break;
    case receive_wait::untimed:
      out += ", in a blocking receive";
      break;
    case receive_wait::timed:
      out += ", in a blocking receive with a timeout";
      break;
  }
  if (auto n = self_sends_.load(std::memory_order_relaxed); n > 0)
    out += ", sent itself " + std::to_string(n) + " messages";
  return out;
}

void local_actor::bounce_all(mailbox_type::list_type& xs, const error& reason,
                             execution_unit* ctx) {
  if (xs.empty())
    return;
  auto down = down_error(reason);
  while (auto* x = xs.pop_front())
    bounce(mailbox_element_ptr{x}, down, system(), ctx);
}

void local_actor::on_cleanup(const error& reason, execution_unit* ctx) {
  auto rest = mailbox_.close();
  bounce_all(rest, reason, ctx);
  // After close: add_muted refuses from now on.
  release_muted();
}

} // namespace troupe
