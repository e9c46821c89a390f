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

  void send(message msg) {
    if (delivered || !requester || !mid.is_request())
      return;
    delivered = true;
    // A delivered promise keeps no actor alive: an actor storing it in its
    // state would otherwise hold a strong reference to itself forever.
    auto dest = std::move(requester);
    dest->get()->enqueue(make_mailbox_element(std::move(self), mid.response_id(),
                                              std::move(msg)),
                         nullptr);
  }

  ~state() {
    send(make_message(error{errc::broken_promise,
                            "a response promise was destroyed without a response"}));
  }
};

response_promise::response_promise(strong_actor_ptr self, strong_actor_ptr requester,
                                   message_id mid)
  : state_(std::make_shared<state>(std::move(self), std::move(requester), mid)) {}

bool response_promise::pending() const noexcept {
  return state_ && !state_->delivered && state_->requester && state_->mid.is_request();
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
