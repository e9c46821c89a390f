#pragma once

// What a bounded mailbox does with a message that finds it full
// (troupe.mailbox.overflow, local_actor::set_mailbox_capacity).

#include "troupe/detail/parse_name.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace troupe {

enum class mailbox_overflow : uint8_t {
  /// The message is not queued: a request gets errc::queue_full, anything
  /// else counts as a dead letter (logged at debug level).
  drop,
  /// Nothing is dropped. An event-based actor that sends to the full
  /// mailbox is muted after its current handler: it runs again once that
  /// mailbox has drained below half its capacity (a sender whose own bounded
  /// mailbox is at least half full is never muted, so two actors flooding
  /// each other can't both wait). Any other thread waits before sending
  /// until the mailbox is below half, for at most troupe.mailbox.push-timeout;
  /// then the message is dropped as with `drop`.
  mute,
};

/// A bound for one actor's mailbox, given at spawn:
/// `sys.spawn(mailbox_limit{1000, mailbox_overflow::drop}, fn, args...)`.
struct mailbox_limit {
  /// The messages the mailbox holds; 0 is no bound.
  size_t capacity = 0;
  mailbox_overflow overflow = mailbox_overflow::mute;
};

inline constexpr mailbox_overflow mailbox_overflows[] = {mailbox_overflow::drop,
                                                        mailbox_overflow::mute};

constexpr std::string_view to_string(mailbox_overflow x) noexcept {
  return x == mailbox_overflow::drop ? "drop" : "mute";
}

/// Parses a name as written by to_string; false if it is none of them.
constexpr bool from_string(std::string_view str, mailbox_overflow& x) noexcept {
  return detail::parse_name(str, mailbox_overflows,
                            [](mailbox_overflow y) { return to_string(y); }, x);
}

} // namespace troupe
