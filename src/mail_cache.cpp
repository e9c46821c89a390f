#include "troupe/mail_cache.hpp"

#include "troupe/actor_system.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace troupe {

mail_cache::~mail_cache() {
  error reason{errc::actor_down, "dropped from a mail_cache"};
  while (auto* x = elements_.pop_front())
    abstract_actor::bounce(mailbox_element_ptr{x}, reason, self_->system(), self_->context());
}

void mail_cache::stash(message msg) {
  if (full())
    throw std::length_error("mail_cache: full, max_size " + std::to_string(max_size_));
  auto* current = self_->current_mailbox_element();
  if (current == nullptr) {
    elements_.push_back(make_mailbox_element(nullptr, message_id{}, std::move(msg)).release());
    return;
  }
  auto mid = current->mid;
  // The stashed copy answers the request once handled; the current handler's
  // result must not.
  if (mid.is_request() && !mid.is_answered())
    current->mid = mid.with_answered();
  elements_.push_back(make_mailbox_element(current->sender, mid, std::move(msg)).release());
}

void mail_cache::unstash() {
  // prepend takes every element, leaving the list empty.
  self_->mailbox().prepend(std::move(elements_));
}

} // namespace troupe
