#pragma once

// fan_out_request's policy that waits for every answer: the handler gets all
// of them, in the order they arrived, once all are in; the first error (or
// timeout) goes to the error handler instead, once (troupe/fan_out_request.hpp).

namespace troupe::policy {

struct select_all_tag_t {};
inline constexpr select_all_tag_t select_all_tag{};

} // namespace troupe::policy
