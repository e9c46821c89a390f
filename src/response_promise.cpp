#include "troupe/response_promise.hpp"

#include "troupe/abstract_actor.hpp"
#include "troupe/mailbox_element.hpp"

namespace troupe {

struct response_promise::state {
  // Clang 14 (the fuzz build) can't make_shared an aggregate.
  state(strong_actor_ptr self, strong_actor_ptr requester, message_id mid)
    : self(std::move(self)), requester(std::move(requester)), mid(mid) {}

  strong_actor_ptr self;
  strong_actor_ptr requester;
  message_id mid;
  bool delivered = false;

  /// A request gets a response; a plain message with a sender gets the
  /// value back as an ordinary message, as a handler's result would.
  bool owes_answer() const noexcept {
    return !delivered && requester && (mid.is_request() || mid.is_async());
  }

  void send(message msg) {
    // A promise that delivered (or had nobody to answer) keeps no actor
    // alive: an actor storing it in its state would otherwise hold a strong
    // reference to itself forever.
    auto me = std::move(self);
    if (!owes_answer())
      return;
    delivered = true;
    auto dest = std::move(requester);
    if (!mid.is_request() && msg.empty())
      return; // nothing to say to a plain send
    auto reply_id = mid.is_request() ? mid.response_id() : message_id::make();
    dest->get()->enqueue(make_mailbox_element(std::move(me), reply_id, std::move(msg)),
                         nullptr);
  }

  ~state() {
    // A plain send asked for nothing: only a requester learns of the break.
    if (mid.is_request())
      send(make_message(error{errc::broken_promise,
                              "a response promise was destroyed without a response"}));
  }
};

response_promise::response_promise(strong_actor_ptr self, strong_actor_ptr requester,
                                   message_id mid)
  : state_(std::make_shared<state>(std::move(self), std::move(requester), mid)) {}

bool response_promise::pending() const noexcept {
  return state_ && state_->owes_answer();
}

void response_promise::deliver_message(message msg) {
  if (state_)
    state_->send(std::move(msg));
}

void response_promise::deliver_error(error err) {
  if (state_)
    state_->send(make_message(std::move(err)));
}

} // namespace troupe
