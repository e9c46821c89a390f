#pragma once

// A 64-bit message ID: flags in the top bits, a request number below.
// Requests carry a number unique per requesting actor; the response carries
// the same number with the response flag instead of the request flag.

#include <cstdint>

namespace troupe {

enum class message_priority : uint8_t { normal, urgent };

class message_id {
public:
  static constexpr uint64_t response_flag = uint64_t{1} << 63;
  static constexpr uint64_t request_flag = uint64_t{1} << 62;
  static constexpr uint64_t urgent_flag = uint64_t{1} << 61;
  /// Set on exit_msg, down_msg and timeouts the runtime sends, so the
  /// receiver tells them from user messages with one bit test.
  static constexpr uint64_t system_flag = uint64_t{1} << 60;
  /// Set once a promise or a delegation took over the answer, so the
  /// handler's own result no longer goes back to the sender.
  static constexpr uint64_t answered_flag = uint64_t{1} << 59;
  static constexpr uint64_t number_mask = answered_flag - 1;

  constexpr message_id() noexcept = default;

  constexpr explicit message_id(uint64_t value) noexcept : value_(value) {}

  static constexpr message_id make(message_priority p = message_priority::normal) noexcept {
    return message_id{p == message_priority::urgent ? urgent_flag : 0};
  }

  static constexpr message_id make_system(message_priority p = message_priority::normal) noexcept {
    return message_id{system_flag | (p == message_priority::urgent ? urgent_flag : 0)};
  }

  static constexpr message_id make_request(uint64_t number,
                                           message_priority p
                                           = message_priority::normal) noexcept {
    return message_id{request_flag | (number & number_mask)
                      | (p == message_priority::urgent ? urgent_flag : 0)};
  }

  constexpr bool is_request() const noexcept {
    return (value_ & request_flag) != 0;
  }

  constexpr bool is_response() const noexcept {
    return (value_ & response_flag) != 0;
  }

  constexpr bool is_async() const noexcept {
    return (value_ & (request_flag | response_flag)) == 0;
  }

  constexpr bool is_system() const noexcept {
    return (value_ & system_flag) != 0;
  }

  constexpr bool is_urgent() const noexcept {
    return (value_ & urgent_flag) != 0;
  }

  constexpr bool is_answered() const noexcept {
    return (value_ & answered_flag) != 0;
  }

  constexpr message_id with_answered() const noexcept {
    return message_id{value_ | answered_flag};
  }

  constexpr uint64_t request_number() const noexcept {
    return value_ & number_mask;
  }

  /// The ID of the response to this request; it keeps the request's
  /// priority so a response never overtakes what the responder sent before.
  constexpr message_id response_id() const noexcept {
    return message_id{response_flag | (value_ & urgent_flag) | request_number()};
  }

  constexpr uint64_t value() const noexcept {
    return value_;
  }

  friend constexpr bool operator==(message_id x, message_id y) noexcept {
    return x.value_ == y.value_;
  }

private:
  uint64_t value_ = 0;
};

} // namespace troupe
