#pragma once

// One entry of a mailbox: the message with its sender and ID, linked
// intrusively so that enqueueing allocates nothing beyond the element.

#include "troupe/actor_control_block.hpp"
#include "troupe/detail/thread_cache.hpp"
#include "troupe/message.hpp"
#include "troupe/message_id.hpp"

#include <cstddef>
#include <memory>

namespace troupe {

class mailbox_element {
public:
  mailbox_element(strong_actor_ptr sender, message_id mid, message payload) noexcept
    : sender(std::move(sender)), mid(mid), payload(std::move(payload)) {}

  mailbox_element(const mailbox_element&) = delete;
  mailbox_element& operator=(const mailbox_element&) = delete;

  bool is_urgent() const noexcept {
    return mid.is_urgent();
  }

  // Elements come from the per-thread block caches.
  static void* operator new(size_t size) {
    return detail::cached_allocate(size);
  }

  static void operator delete(void* ptr, size_t size) noexcept {
    detail::cached_deallocate(ptr, size);
  }

  /// Intrusive link for the mailbox; owned by the queue the element is in.
  mailbox_element* next = nullptr;
  strong_actor_ptr sender;
  message_id mid;
  message payload;
};

using mailbox_element_ptr = std::unique_ptr<mailbox_element>;

inline mailbox_element_ptr make_mailbox_element(strong_actor_ptr sender,
                                                message_id mid, message payload) {
  return mailbox_element_ptr{
    new mailbox_element(std::move(sender), mid, std::move(payload))};
}

} // namespace troupe
