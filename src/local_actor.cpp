#include "troupe/local_actor.hpp"

#include "troupe/actor_system.hpp"
#include "troupe/detail/hot.hpp"
#include "troupe/logger.hpp"

namespace troupe {

error detail::exit_reason_of(std::exception_ptr eptr) {
  try {
    std::rethrow_exception(eptr);
  } catch (const std::exception& e) {
    return error{exit_reason::unhandled_exception, e.what()};
  } catch (...) {
    return error{exit_reason::unhandled_exception, "an exception of unknown type"};
  }
}

local_actor::~local_actor() = default;

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

void local_actor::delayed_deliver(strong_actor_ptr dest, timespan delay,
                                  mailbox_element_ptr elem) {
  if (!dest) {
    bounce(std::move(elem), error{errc::invalid_argument, "invalid actor handle"},
           system(), context_);
    return;
  }
  // Dropped unsent (the system shut down first), it counts as a dead letter.
  struct delayed_message {
    strong_actor_ptr dest;
    mailbox_element_ptr elem;
    delayed_message(strong_actor_ptr d, mailbox_element_ptr e)
      : dest(std::move(d)), elem(std::move(e)) {}
    delayed_message(delayed_message&&) noexcept = default;
    ~delayed_message() {
      if (elem)
        dest->system().add_dead_letter(elem->payload, "a delayed message the shutdown dropped");
    }
    void operator()() {
      dest->get()->enqueue(std::move(elem), nullptr);
    }
  };
  auto deadline = std::chrono::steady_clock::now() + delay;
  system().timers().schedule(deadline, delayed_message{std::move(dest), std::move(elem)});
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
  message payload;
  switch (res.kind) {
    case detail::result_kind::value:
      payload = std::move(res.value);
      break;
    case detail::result_kind::error:
      payload = make_message(std::move(res.err));
      break;
    case detail::result_kind::delegated:
    case detail::result_kind::skip:
      return;
  }
  // A request is answered with a response; a plain send gets a non-empty
  // result back as an ordinary message, as in CAF.
  if (!req.mid.is_request() && payload.empty())
    return;
  if (!req.sender) {
    system().add_dead_letter(payload, "a result for a message without a sender");
    return;
  }
  auto reply_id = req.mid.is_request() ? req.mid.response_id() : message_id::make();
  req.sender->get()->enqueue(make_mailbox_element(self_ptr(), reply_id, std::move(payload)),
                             context_);
}

TROUPE_HOT bool local_actor::push_to_mailbox(mailbox_element_ptr& elem, execution_unit* ctx) {
  switch (mailbox_.push(elem.get())) {
    case detail::inbox_result::success:
      elem.release();
      return false;
    case detail::inbox_result::backlog:
      // We may be what keeps the receiver from running: it may sit in a
      // slot of our worker that no other worker can take.
      elem.release();
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

std::string local_actor::wait_report() const {
  std::string out = std::to_string(mailbox_.size()) + " queued messages";
  if (auto n = pending_requests_.load(std::memory_order_relaxed); n > 0)
    out += ", " + std::to_string(n) + " pending requests";
  if (in_receive_.load(std::memory_order_relaxed))
    out += ", in a blocking receive";
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
}

} // namespace troupe
